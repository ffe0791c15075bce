import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/** The built demo entry: tests run the real binary (`npx tsup` builds it). */
export const DEMO_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** The built `episodic` CLI (its package's `bin`), to run the commands the demo prints. */
export const CLI_MAIN = ((): string => {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@episodic/cli/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    bin: Record<string, string>;
  };
  return resolve(dirname(manifestPath), manifest.bin.episodic as string);
})();

export interface ProcessResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const created: string[] = [];
// Every folder a test file made is removed once its tests are done: the tests leave nothing in the
// system's temporary folder (the leak check in vitest.shared.ts fails the run otherwise).
afterAll(() => {
  for (const directory of created.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A fresh temporary folder, removed after the test file. */
export function temporaryDirectory(prefix = 'episodic-demo-test-'): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  created.push(directory);
  return directory;
}

/** A fresh temporary folder for a demo home (`<temp>/home`, not created yet). */
export function temporaryHome(prefix = 'episodic-demo-test-'): string {
  return join(temporaryDirectory(prefix), 'home');
}

/** The environment without any OpenAI or Episodic variables of the machine running the tests. */
export function cleanEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('OPENAI_') && !key.startsWith('EPISODIC_')) env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Runs a script with node, asynchronously (a test's own HTTP server must keep serving meanwhile),
 * optionally feeding `input` on stdin.
 */
export function runNode(
  script: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number } = {},
): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [script, ...args],
      {
        env: options.env ?? cleanEnvironment(),
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ status, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

/** Runs the built demo. */
export function runDemo(
  args: readonly string[],
  options?: Parameters<typeof runNode>[2],
): Promise<ProcessResult> {
  return runNode(DEMO_MAIN, args, options);
}
