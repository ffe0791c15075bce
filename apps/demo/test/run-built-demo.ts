import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** A fresh temporary folder for a demo home. */
export function temporaryHome(prefix = 'episodic-demo-test-'): string {
  return join(mkdtempSync(join(tmpdir(), prefix)), 'home');
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
        timeout: options.timeoutMs ?? 60_000,
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
