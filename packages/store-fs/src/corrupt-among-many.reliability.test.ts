// Pins: "one corrupt run file among 100 → the other 99 listed and readable; exactly 1 error naming
// the bad file" (QUALITY.md reliability table; research/reliability.md test plan T10, after Codex
// #28139, where one BOM-prefixed rollout file blocked the whole thread store). Each kind of
// corruption gets its own store of 100 runs spread over several days.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore } from './index.js';

const SESSION_ID = '9a8b7c6d-5e4f-4321-8fed-cba987654321';
const runIdFor = (index: number) =>
  `5a4b3c2d-1e0f-4a9b-8c7d-${index.toString(16).padStart(12, '0')}`;

const CORRUPTIONS: Array<[string, (path: string) => void]> = [
  ['truncated to 0 bytes', (path) => fs.writeFileSync(path, '')],
  ['a BOM and garbage', (path) => fs.writeFileSync(path, '\uFEFF\u0000garbage{{{')],
  ['a NUL-filled header', (path) => fs.writeFileSync(path, Buffer.alloc(4096))],
  ['a torn header', (path) => fs.writeFileSync(path, '{"type":"header","schema_version":1,"run_')],
  [
    'a directory in place of the file',
    (path) => {
      fs.rmSync(path);
      fs.mkdirSync(path);
    },
  ],
  [
    // Never opened by the listing; a read of it is CORRUPT_DATA (non-regular-files.test.ts).
    'a FIFO in place of the file',
    (path) => {
      fs.rmSync(path);
      expect(spawnSync('/usr/bin/mkfifo', [path]).status).toBe(0);
    },
  ],
  [
    'a symbolic link in place of the file',
    (path) => {
      fs.rmSync(path);
      fs.symlinkSync('/etc/hostname', path);
    },
  ],
];

describe('one corrupt run file among 100', () => {
  for (const [name, corrupt] of CORRUPTIONS) {
    it(`lists and reads the other 99 when one is ${name}, with exactly one error naming it`, async () => {
      const directory = temporaryDirectory();
      try {
        const store = createFsStore({ root: directory.path, durability: 'none' });
        for (let index = 0; index < 100; index++) {
          const runId = runIdFor(index);
          await store.runs.append(runId, [
            {
              type: 'header',
              schema_version: 1,
              run_id: runId,
              session_id: SESSION_ID,
              started_at: new Date(Date.UTC(2026, 1, 1 + (index % 7), 10, index)).toISOString(),
            },
            {
              type: 'run.end',
              run_id: runId,
              ts: '2026-02-10T00:00:00.000Z',
              outcome: 'completed',
            },
          ]);
        }
        const bad = runIdFor(42);
        const badPath = (await store.locateRun(bad)) as string;
        await store.close();
        corrupt(badPath);

        const reopened = createFsStore({ root: directory.path });
        for (const query of [{}, { sessionId: SESSION_ID }, { from: '2026-01-01T00:00:00.000Z' }]) {
          const { runs, errors } = await reopened.runs.list(query);
          expect(runs).toHaveLength(99);
          expect(runs.map((run) => run.runId)).not.toContain(bad);
          expect(errors).toHaveLength(1);
          expect(errors[0]?.runId).toBe(bad);
          // Run 42 started on 2026-02-01 (UTC), so its file is in that day's directory.
          expect(errors[0]?.location).toBe(join('sessions', '2026', '02', '01', `${bad}.jsonl`));
        }
        for (let index = 0; index < 100; index++) {
          if (index === 42) continue;
          const read = await reopened.runs.read(runIdFor(index));
          expect(read.errors).toEqual([]);
          expect(read.ended).toBe(true);
        }
        await reopened.close();
      } finally {
        directory.remove();
      }
    });
  }
});
