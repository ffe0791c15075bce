import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { BenchContext } from './context.js';

export interface LockWaits {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** A running second writer (see `probes/lock-writer.ts`); `stop()` returns its waits in ms. */
export interface LockWriter {
  stop(): Promise<LockWaits>;
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline !== -1) {
        child.stdout?.off('data', onData);
        resolve(text.slice(0, newline));
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`lock writer exited with ${code}`)));
  });
}

export async function startLockWriter(
  context: BenchContext,
  database: string,
  checkpoint = false,
): Promise<LockWriter> {
  const script = join(context.paths.dist, 'probes', 'lock-writer.js');
  const child = spawn(
    process.execPath,
    checkpoint ? [script, database, '--checkpoint'] : [script, database],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const ready = await firstLine(child);
  if (ready !== 'ready') throw new Error(`lock writer said ${ready}`);
  return {
    async stop() {
      const result = firstLine(child);
      child.stdin?.write('stop\n');
      return JSON.parse(await result) as LockWaits;
    },
  };
}
