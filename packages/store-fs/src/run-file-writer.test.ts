import * as fs from 'node:fs';
import type { RunRecord } from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import { rejection, temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore, type FsIo, type FsStoreOptions, nodeFsIo } from './index.js';

const RUN_ID = '3c9d8e7f-6a5b-4c3d-9e2f-1a0b9c8d7e6f';
const header: RunRecord = {
  type: 'header',
  schema_version: 1,
  run_id: RUN_ID,
  session_id: '5b0d1a8e-2c3f-4a5b-8c6d-7e8f9a0b1c2d',
  started_at: '2026-02-03T12:00:00.000Z',
};
const event = (seq: number, content = `event ${seq}`): RunRecord => ({
  type: 'agent.event',
  run_id: RUN_ID,
  ts: '2026-02-03T12:00:01.000Z',
  seq,
  event: { type: 'text', content },
});
const end: RunRecord = {
  type: 'run.end',
  run_id: RUN_ID,
  ts: '2026-02-03T12:00:02.000Z',
  outcome: 'completed',
};

/** An FsIo that records calls and can be told to fail. */
function spyIo() {
  const writes: Buffer[] = [];
  const syncs: number[] = [];
  const control = { failWrite: undefined as undefined | 'throw' | 'short', failSync: false };
  const io: FsIo = {
    ...nodeFsIo,
    writeSync(fd, buffer, offset, length) {
      writes.push(Buffer.from(buffer.subarray(offset, offset + length)));
      if (control.failWrite === 'throw') {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
          code: 'ENOSPC',
        });
      }
      if (control.failWrite === 'short') {
        // The kernel accepted only part of the buffer (a full disk).
        return nodeFsIo.writeSync(fd, buffer, offset, Math.floor(length / 2));
      }
      return nodeFsIo.writeSync(fd, buffer, offset, length);
    },
    fdatasyncSync(fd) {
      syncs.push(fd);
      if (control.failSync)
        throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      nodeFsIo.fdatasyncSync(fd);
    },
  };
  return { io, writes, syncs, control };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function open(options: Omit<FsStoreOptions, 'root'> = {}) {
  const directory = temporaryDirectory();
  const spy = spyIo();
  const store = createFsStore({ root: directory.path, io: spy.io, ...options });
  cleanups.push(
    () => directory.remove(),
    () => store.close(),
  );
  return { store, root: directory.path, ...spy };
}

describe('the run-file writer', () => {
  // Pins "one write call per record: exactly 1 write per record, each buffer ends with its only \n"
  // (QUALITY.md; research/reliability.md finding 1 and E1, test plan T2).
  it('makes exactly one write call per record, each buffer ending with its only newline', async () => {
    const { store, writes } = open({ durability: 'none' });
    await store.runs.append(RUN_ID, [header]);
    const contents = ['plain', 'emoji 🙂👩‍💻 and accents é', 'line\nbreaks\r\ninside'];
    const large = 'x'.repeat(1024 * 1024);
    const records = Array.from({ length: 1_000 }, (_, seq) =>
      event(seq, seq % 50 === 0 ? large : contents[seq % contents.length]),
    );
    await Promise.all(records.slice(0, 500).map((record) => store.runs.append(RUN_ID, [record])));
    await store.runs.append(RUN_ID, records.slice(500));
    expect(writes).toHaveLength(1 + records.length);
    for (const buffer of writes) {
      expect(buffer.indexOf(0x0a)).toBe(buffer.length - 1);
    }
    const read = await store.runs.read(RUN_ID);
    expect(read.records.slice(1)).toEqual(records.slice(0, 500).concat(records.slice(500)));
  });

  it('syncs per the durability mode: never, at run end, or per append with group commit', async () => {
    const none = open({ durability: 'none' });
    await none.store.runs.append(RUN_ID, [header, event(0), end]);
    expect(none.syncs).toHaveLength(0);

    const run = open({ durability: 'run' });
    await run.store.runs.append(RUN_ID, [header]);
    await run.store.runs.append(RUN_ID, [event(0)]);
    expect(run.syncs).toHaveLength(0);
    await run.store.runs.append(RUN_ID, [end]);
    expect(run.syncs).toHaveLength(1);

    const always = open({ durability: 'always' });
    await always.store.runs.append(RUN_ID, [header]);
    await always.store.runs.append(RUN_ID, [event(0)]);
    expect(always.syncs).toHaveLength(2);
    // Appends issued together share one sync (group commit); each is acknowledged after it.
    await Promise.all(
      Array.from({ length: 50 }, (_, seq) => always.store.runs.append(RUN_ID, [event(seq + 1)])),
    );
    expect(always.syncs).toHaveLength(3);
    expect((await always.store.runs.read(RUN_ID)).records).toHaveLength(52);
  });

  // Pins "disk full: a typed storage error; 0 partial acknowledged records; earlier records still
  // readable" (QUALITY.md; research/reliability.md T22), simulated through the I/O interface.
  it('surfaces a failed write as STORAGE_ERROR and keeps earlier records readable', async () => {
    const { store, control } = open({ durability: 'none' });
    await store.runs.append(RUN_ID, [header, event(0)]);
    control.failWrite = 'throw';
    const error = await rejection(store.runs.append(RUN_ID, [event(1)]));
    expect(error.code).toBe('STORAGE_ERROR');
    expect(error.details).toMatchObject({ store: 'fs', backendCode: 'ENOSPC' });
    expect(error.message).toContain('no space left');
    control.failWrite = undefined;
    const read = await store.runs.read(RUN_ID);
    expect(read.records).toEqual([header, event(0)]);
    expect(read.errors).toEqual([]);
  });

  it('reports a short write instead of completing it with a second call, then repairs the tail', async () => {
    const { store, control, writes } = open({ durability: 'none' });
    await store.runs.append(RUN_ID, [header, event(0)]);
    control.failWrite = 'short';
    const error = await rejection(store.runs.append(RUN_ID, [event(1)]));
    expect(error.code).toBe('STORAGE_ERROR');
    expect(error.message).toContain('short write');
    control.failWrite = undefined;
    const before = writes.length;
    await store.runs.append(RUN_ID, [event(2)]);
    // A newline first, so the torn half stays one bad line, then the record.
    expect(writes.slice(before).map((buffer) => buffer.toString('utf8').slice(0, 1))).toEqual([
      '\n',
      '{',
    ]);
    const read = await store.runs.read(RUN_ID);
    expect(read.records).toEqual([header, event(0), event(2)]);
    expect(read.errors).toHaveLength(1);
    expect(read.errors[0]?.line).toBe(3);
  });

  it('rejects an append whose sync failed, under durability always', async () => {
    const { store, control } = open({ durability: 'always' });
    await store.runs.append(RUN_ID, [header]);
    control.failSync = true;
    const error = await rejection(store.runs.append(RUN_ID, [event(0)]));
    expect(error.code).toBe('STORAGE_ERROR');
    expect(error.details).toMatchObject({ backendCode: 'EIO' });
  });

  it('repairs a torn tail left by an earlier process before its first append (E4)', async () => {
    const first = open({ durability: 'none' });
    await first.store.runs.append(RUN_ID, [header, event(0)]);
    const path = (await first.store.locateRun(RUN_ID)) as string;
    await first.store.close();
    fs.appendFileSync(path, '{"type":"agent.event","run_id":"3c9d8e7f-6a5b-4c3d');
    const second = createFsStore({ root: first.root, durability: 'none' });
    cleanups.push(() => second.close());
    await second.runs.append(RUN_ID, [event(1), event(2)]);
    const read = await second.runs.read(RUN_ID);
    expect(read.records).toEqual([header, event(0), event(1), event(2)]);
    expect(read.errors).toHaveLength(1);
  });

  // Unsynced appends to a file with nothing queued are written at once (no queue turn); they must
  // check the tail exactly like a queued flush does.
  it.each([
    { durability: 'none', path: 'written at once' },
    { durability: 'always', path: 'queued and group-committed' },
  ] as const)(
    'repairs a torn tail another writer leaves while the file is held open (durability $durability: $path)',
    async ({ durability }) => {
      const { store, writes } = open({ durability });
      await store.runs.append(RUN_ID, [header, event(0)]);
      const path = (await store.locateRun(RUN_ID)) as string;
      // Another process (its own descriptor) dies in the middle of its record.
      fs.appendFileSync(path, '{"type":"agent.event","run_id":"3c9d8e7f-6a5b');
      const before = writes.length;
      await store.runs.append(RUN_ID, [event(1)]);
      await store.runs.append(RUN_ID, [event(2)]);
      // One newline ends the fragment; each record is still its own single write.
      expect(writes.slice(before).map((buffer) => buffer.toString('utf8').slice(0, 1))).toEqual([
        '\n',
        '{',
        '{',
      ]);
      const read = await store.runs.read(RUN_ID);
      expect(read.records).toEqual([header, event(0), event(1), event(2)]);
      expect(read.errors).toHaveLength(1);
      expect(read.errors[0]?.line).toBe(3);
    },
  );

  it('keeps appends to many runs correct when it has to close idle descriptors', async () => {
    const { store } = open({ durability: 'none', maxOpenFiles: 3 });
    const runIds = Array.from(
      { length: 8 },
      (_, index) => `3c9d8e7f-6a5b-4c3d-9e2f-00000000000${index}`,
    );
    for (const runId of runIds) await store.runs.append(runId, [{ ...header, run_id: runId }]);
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        runIds.map((runId) => store.runs.append(runId, [{ ...event(round), run_id: runId }])),
      );
    }
    for (const runId of runIds) {
      expect((await store.runs.read(runId)).records.map((record) => record.seq ?? 'h')).toEqual([
        'h',
        0,
        1,
        2,
      ]);
    }
  });

  it('refuses appends after close with STORAGE_ERROR', async () => {
    const { store } = open();
    await store.runs.append(RUN_ID, [header]);
    await store.close();
    expect((await rejection(store.runs.append(RUN_ID, [event(0)]))).code).toBe('STORAGE_ERROR');
  });
});
