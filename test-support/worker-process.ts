import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Full counts with `RELIABILITY_FULL=1`; reduced counts otherwise. Pass figures never change. */
export const FULL = process.env.RELIABILITY_FULL === '1';

/** A running worker: its stdout lines so far, and a promise of how it ended. */
export interface Worker {
  readonly child: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  /** Resolves once a stdout line satisfies `test`. */
  waitFor(test: (line: string) => boolean): Promise<string>;
}

export function startWorker(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Worker {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<{ test: (line: string) => boolean; resolve: (line: string) => void }> = [];
  let buffered = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    buffered += chunk;
    let end = buffered.indexOf('\n');
    while (end !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
      end = buffered.indexOf('\n');
    }
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stderr: string;
  }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
  return {
    child,
    lines,
    exited,
    waitFor(test) {
      const found = lines.find(test);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        waiters.push({ test, resolve });
        exited.then(({ stderr: output }) =>
          reject(new Error(`worker exited before the expected line; stderr: ${output}`)),
        );
      });
    },
  };
}

/** A fresh temporary directory, removed by the returned function. */
export function temporaryDirectory(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'episodic-reliability-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
