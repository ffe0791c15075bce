import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreHarness } from '@episodic/core/testing';

export { rejection } from '@episodic/core/testing';

import { createFsStore, type FsStore, type FsStoreOptions } from '../index.js';
import { spawnChild } from './child-process.js';

/** A fresh temporary directory, removed by the returned function. */
export function temporaryDirectory(prefix = 'episodic-fs-'): { path: string; remove(): void } {
  const path = fs.mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => fs.rmSync(path, { recursive: true, force: true }) };
}

/** A conformance harness over a fresh fs store in a temporary directory. */
export function createFsHarness(
  options: Omit<FsStoreOptions, 'root'> = {},
): StoreHarness & { store: FsStore } {
  const directory = temporaryDirectory();
  const store = createFsStore({ ...options, root: directory.path });
  const runPath = async (runId: string) => {
    const path = await store.locateRun(runId);
    if (path === null) throw new Error(`run ${runId} does not exist`);
    return path;
  };
  return {
    store,
    runs: store.runs,
    sessions: store.sessions,
    damage: {
      appendRawToRun: async (runId, bytes) => fs.appendFileSync(await runPath(runId), bytes),
      replaceRawRun: async (runId, bytes) => fs.writeFileSync(await runPath(runId), bytes),
      writeRawSnapshot: async (sessionId, bytes) => {
        const directory = join(store.root, 'sessions', 'state');
        fs.mkdirSync(directory, { recursive: true });
        fs.writeFileSync(join(directory, `${sessionId}.json`), bytes);
      },
      appendRawToDeltas: async (sessionId, bytes) =>
        fs.appendFileSync(
          join(store.root, 'sessions', 'state', `${sessionId}.deltas.jsonl`),
          bytes,
        ),
    },
    ...(options.chain === undefined || options.chain === false
      ? {}
      : {
          chain: {
            sha256: (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest(),
            readRunChain: (runId: string) => store.readRunChain(runId),
            readErasures: () => store.readErasures(),
            strict: options.chain === 'strict',
          },
        }),
    async runInChild(task) {
      const child = spawnChild('conformance-child', {
        root: directory.path,
        durability: options.durability ?? 'run',
        chain: options.chain ?? false,
        task,
      });
      const { code, stderr } = await child.exited;
      if (code !== 0) throw new Error(`conformance child exited with ${code}: ${stderr}`);
      return JSON.parse(child.lines.at(-1) as string);
    },
    async close() {
      await store.close();
      directory.remove();
    },
  };
}
