// Pins: "snapshot writer killed 400× → 0 unreadable or empty snapshots; 0 versions older than the
// last acknowledged; temp files swept" (QUALITY.md reliability table; research/reliability.md
// finding 3 and E3: writing in place left 83.5 % of killed writes unreadable, temp + fsync + rename
// + directory fsync left 0 of 400 but orphaned temp files in 41–54 % of kills; test plans T11, T12).
// Also pins that a lock left by a killed writer never blocks the next one. RELIABILITY_FULL=1 runs
// 400 kills.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { count, randomInt, spawnChild } from './__fixtures__/child-process.js';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore } from './index.js';

const SESSION_ID = '2b3c4d5e-6f70-4819-8a2b-3c4d5e6f7081';

describe('kill -9 of the snapshot writer (real processes)', () => {
  it('always leaves a readable snapshot no older than the last acknowledged one', async () => {
    const kills = count(40, 400);
    const directory = temporaryDirectory();
    const stateDirectory = join(directory.path, 'sessions', 'state');
    let lastAcked = 0;
    let orphansSwept = 0;
    try {
      for (let iteration = 0; iteration < kills; iteration++) {
        const child = spawnChild('snapshot-writer', {
          root: directory.path,
          sessionId: SESSION_ID,
          sizes: [4 * 1024, 1024 * 1024, 4 * 1024],
        });
        await child.waitForLine((line) => line.startsWith('ack '));
        await new Promise((resolve) => setTimeout(resolve, randomInt(0, 60)));
        child.process.kill('SIGKILL');
        const exit = await child.exited;
        expect(exit.signal, exit.stderr).toBe('SIGKILL');
        const acks = child.lines.filter((line) => line.startsWith('ack '));
        lastAcked = Number(acks.at(-1)?.slice(4));

        orphansSwept += fs
          .readdirSync(stateDirectory)
          .filter((name) => name.endsWith('.tmp')).length;
        // Opening the store sweeps the temp files the killed writer left behind.
        const store = createFsStore({ root: directory.path });
        expect(fs.readdirSync(stateDirectory).filter((name) => name.endsWith('.tmp'))).toEqual([]);
        const loaded = await store.sessions.load(SESSION_ID);
        expect(loaded).not.toBeNull();
        expect(loaded?.revision).toBeGreaterThanOrEqual(lastAcked);
        expect(loaded?.messages).toHaveLength(1);
        await store.close();
      }
      // The killed writers really left temp files and locks behind (so the sweep was exercised).
      expect(orphansSwept).toBeGreaterThan(0);
      console.log(
        `[figures] snapshot kill -9: ${kills} kills, 0 unreadable or older than acknowledged (last acknowledged revision ${lastAcked}), ${orphansSwept} orphan temp files swept`,
      );
    } finally {
      directory.remove();
    }
  }, 900_000);
});
