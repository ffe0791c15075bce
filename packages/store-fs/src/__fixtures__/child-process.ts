import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Where `build-children.ts` puts the bundled child scripts (under node_modules so `zod` resolves). */
export const CHILDREN_DIRECTORY = fileURLToPath(
  new URL('../../node_modules/.cache/episodic-store-fs-children/', import.meta.url),
);

/** True when the reliability tests run their full counts (`RELIABILITY_FULL=1`). */
export const FULL = process.env.RELIABILITY_FULL === '1';

/** The count for this run: `full` with RELIABILITY_FULL=1, else `reduced`. The pass figures never change. */
export function count(reduced: number, full: number): number {
  return FULL ? full : reduced;
}

/** A running child script, with its stdout as lines. */
export interface Child {
  readonly process: ChildProcess;
  /** Every stdout line so far. */
  readonly lines: string[];
  /** Resolves with the first line for which `predicate` holds. */
  waitForLine(predicate: (line: string) => boolean): Promise<string>;
  /** Resolves when the process exits, with its exit code and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Spawns a bundled child script (`children/<name>.ts`) with JSON arguments. */
export function spawnChild(
  name: string,
  argument: unknown,
  env: Record<string, string> = {},
): Child {
  const child = spawn(
    process.execPath,
    [join(CHILDREN_DIRECTORY, `${name}.js`), JSON.stringify(argument)],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    },
  );
  const lines: string[] = [];
  const waiters: Array<{ predicate: (line: string) => boolean; resolve(line: string): void }> = [];
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stderr: string;
  }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
  return {
    process: child,
    lines,
    exited,
    waitForLine(predicate) {
      const seen = lines.find(predicate);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        waiters.push({ predicate, resolve });
        void exited.then(({ code, signal, stderr: errors }) =>
          reject(
            new Error(
              `child ${name} exited (${code ?? signal}) before the expected line: ${errors}`,
            ),
          ),
        );
      });
    },
  };
}

/** A uniform random integer in [min, max]. */
export function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}
