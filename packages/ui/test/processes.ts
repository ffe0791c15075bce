import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLI and demo (the UI package's test task builds them first: see turbo.json). */
export const CLI = fileURLToPath(new URL('../../cli/dist/bin/episodic.js', import.meta.url));
export const DEMO = fileURLToPath(new URL('../../../apps/demo/dist/main.js', import.meta.url));

/** The environment without any Episodic or OpenAI variables of the machine running the tests. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('EPISODIC_') && !key.startsWith('OPENAI_')) env[key] = value;
  }
  return env;
}

/** Runs a node script to its end; rejects with its stderr when it fails. */
export function runNode(
  script: string,
  args: readonly string[],
  timeoutMs = 120_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [script, ...args],
      { env: cleanEnv(), timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null)
          reject(new Error(`${script} ${args.join(' ')} failed: ${stderr || error.message}`));
        else resolve(stdout);
      },
    );
  });
}

/** The demo run into a fresh temp home. */
export interface DemoHome {
  home: string;
  report: {
    session: { id: string };
    fork: { id: string };
    task: { episodeId: string; episode: { reward_score: number } };
    turns: Array<{ label: string; runId: string; outcome: string }>;
  };
}

export async function runDemoHome(): Promise<DemoHome> {
  const home = join(mkdtempSync(join(tmpdir(), 'episodic-ui-e2e-')), 'home');
  const report = JSON.parse(await runNode(DEMO, ['--home', home, '--json'])) as DemoHome['report'];
  return { home, report };
}

/** A running `episodic ui`: its URL, and how to stop it. */
export interface UiProcess {
  url: string;
  origin: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the real `episodic ui` process on a free port and reads the URL it prints (`--json`). */
export function startUi(args: readonly string[]): Promise<UiProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CLI, 'ui', '--port', '0', '--no-open', '--json', ...args],
      { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`episodic ui printed no URL in 30 s: ${stderr}`)),
      30_000,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('exit', (code) => reject(new Error(`episodic ui exited with ${code}: ${stderr}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n')[0];
      if (!stdout.includes('\n') || line === undefined) return;
      clearTimeout(timer);
      const receipt = JSON.parse(line) as { url: string; origin: string };
      resolve({
        url: receipt.url,
        origin: receipt.origin,
        child,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGINT');
          }),
      });
    });
  });
}
