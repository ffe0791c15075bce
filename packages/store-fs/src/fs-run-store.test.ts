import * as fs from 'node:fs';
import { join } from 'node:path';
import { createRunRecorder, type EpisodicError, type RunRecord } from '@episodic/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rejection, temporaryDirectory } from './__fixtures__/fs-harness.js';
import {
  createFsStore,
  type FsIo,
  type FsStore,
  type FsStoreOptions,
  nodeFsIo,
  tailRunFileAt,
} from './index.js';

const SESSION_ID = '5b0d1a8e-2c3f-4a5b-8c6d-7e8f9a0b1c2d';
const runIdFor = (index: number) =>
  `8e7d6c5b-4a39-4281-9f0e-${index.toString(16).padStart(12, '0')}`;
const headerFor = (runId: string, startedAt = '2026-02-03T12:00:00.000Z'): RunRecord => ({
  type: 'header',
  schema_version: 1,
  run_id: runId,
  session_id: SESSION_ID,
  started_at: startedAt,
});

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function open(options: Omit<FsStoreOptions, 'root'> = {}): { store: FsStore; root: string } {
  const directory = temporaryDirectory();
  const store = createFsStore({ root: directory.path, ...options });
  cleanups.push(
    () => directory.remove(),
    () => store.close(),
  );
  return { store, root: directory.path };
}

/** An FsIo counting bytes read and files opened. */
function countingIo() {
  const counters = { bytesRead: 0, opened: 0 };
  const io: FsIo = {
    ...nodeFsIo,
    openSync(path, flags, mode) {
      counters.opened++;
      return nodeFsIo.openSync(path, flags, mode);
    },
    readSync(fd, buffer, offset, length, position) {
      const read = nodeFsIo.readSync(fd, buffer, offset, length, position);
      counters.bytesRead += read;
      return read;
    },
  };
  return { io, counters };
}

describe('the fs run store layout', () => {
  it('files runs under sessions/YYYY/MM/DD by the UTC date of started_at', async () => {
    const { store, root } = open();
    await store.runs.append(runIdFor(1), [headerFor(runIdFor(1), '2026-02-03T23:30:00-05:00')]);
    expect(await store.locateRun(runIdFor(1))).toBe(
      join(fs.realpathSync(root), 'sessions', '2026', '02', '04', `${runIdFor(1)}.jsonl`),
    );
    const text = fs.readFileSync((await store.locateRun(runIdFor(1))) as string, 'utf8');
    expect(text).toBe(`${JSON.stringify(headerFor(runIdFor(1), '2026-02-03T23:30:00-05:00'))}\n`);
  });

  it('uses the current date when started_at cannot be parsed', async () => {
    const { store } = open({ now: () => new Date('2027-07-09T01:02:03.000Z') });
    await store.runs.append(runIdFor(2), [headerFor(runIdFor(2), 'sometime on Tuesday')]);
    expect(await store.locateRun(runIdFor(2))).toContain(join('sessions', '2027', '07', '09'));
    const { runs } = await store.runs.list();
    expect(runs[0]?.startedAt).toBe('sometime on Tuesday');
    // A run without a parsable start never matches a time range.
    expect((await store.runs.list({ from: '2000-01-01T00:00:00.000Z' })).runs).toEqual([]);
  });

  it('defaults the root to EPISODIC_HOME', async () => {
    const directory = temporaryDirectory();
    cleanups.push(() => directory.remove());
    vi.stubEnv('EPISODIC_HOME', directory.path);
    cleanups.push(() => vi.unstubAllEnvs());
    const store = createFsStore();
    cleanups.push(() => store.close());
    expect(store.root).toBe(fs.realpathSync(directory.path));
  });

  it('rejects bad options with VALIDATION_ERROR', () => {
    for (const options of [
      { durability: 'sometimes' },
      { root: '' },
      { lockTimeoutMs: -1 },
      { extra: true },
    ]) {
      expect(() => createFsStore(options as FsStoreOptions)).toThrow(
        expect.objectContaining({ code: 'VALIDATION_ERROR' }),
      );
    }
  });

  it('finds a run created by another store instance (another process) and sees its deletion', async () => {
    const { store, root } = open();
    const other = createFsStore({ root });
    cleanups.push(() => other.close());
    const runId = runIdFor(3);
    await other.runs.append(runId, [headerFor(runId)]);
    await store.runs.append(runId, [
      { type: 'run.status', run_id: runId, ts: '2026-02-03T12:00:01.000Z', status: 'running' },
    ]);
    expect((await other.runs.read(runId)).records).toHaveLength(2);
    expect(await other.runs.delete(runId)).toBe(true);
    expect((await rejection(store.runs.read(runId))).code).toBe('NOT_FOUND');
  });

  it('creates a run once when two instances race to create it: identical headers agree, a different one conflicts', async () => {
    const { store, root } = open();
    const other = createFsStore({ root });
    cleanups.push(() => other.close());
    const runId = runIdFor(4);
    const results = await Promise.allSettled([
      store.runs.append(runId, [headerFor(runId)]),
      other.runs.append(runId, [headerFor(runId)]),
      other.runs.append(runId, [headerFor(runId, '2026-02-03T12:00:00.001Z')]),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(((results[2] as PromiseRejectedResult).reason as EpisodicError).code).toBe('CONFLICT');
    expect((await store.runs.read(runId)).records).toEqual([headerFor(runId)]);
  });
});

describe('tool outputs', () => {
  it('keeps the full output under cache/tool-output/<id>.txt for output_ref', async () => {
    const { store, root } = open();
    const recorder = createRunRecorder({ store: store.runs, runId: runIdFor(5) });
    await recorder.start('list files');
    const output = 'AGENTS.md\nRULES.md\npackages\nünïcödé 🙂\n';
    await recorder.toolOutput({ tool: 'exec_command', toolCallId: 'call/1:a', resultRaw: output });
    const [record] = (await store.runs.read(runIdFor(5))).records.filter(
      (entry) => entry.type === 'tool.output',
    );
    expect(record?.output_ref).toEqual({
      id: 'call_1_a',
      byte_size: Buffer.byteLength(output),
      line_count: 4,
    });
    expect(fs.readFileSync(join(root, 'cache', 'tool-output', 'call_1_a.txt'), 'utf8')).toBe(
      output,
    );
    expect(await store.readToolOutput('call_1_a')).toBe(output);
    expect(await store.readToolOutput('call_2')).toBeNull();
    await expect(store.readToolOutput('../sessions')).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });

  it('refuses an output_ref id that is not a plain name, writing nothing', async () => {
    const { store, root } = open();
    const runId = runIdFor(6);
    await store.runs.append(runId, [headerFor(runId)]);
    const error = await rejection(
      store.runs.append(runId, [
        {
          type: 'agent.event',
          run_id: runId,
          ts: '2026-02-03T12:00:01.000Z',
          seq: 0,
          event: { type: 'x' },
        },
        {
          type: 'tool.output',
          run_id: runId,
          ts: '2026-02-03T12:00:01.000Z',
          tool: 't',
          tool_call_id: 'c',
          result_raw: 'secret',
          output_ref: { id: '../../escape' },
        },
      ]),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect((await store.runs.read(runId)).records).toHaveLength(1);
    expect(fs.existsSync(join(root, 'cache'))).toBe(false);
  });
});

describe('failed creations', () => {
  it('creates no run file when a record of a new run is refused', async () => {
    const { store, root } = open();
    const runId = runIdFor(12);
    const error = await rejection(
      store.runs.append(runId, [
        headerFor(runId),
        {
          type: 'tool.output',
          run_id: runId,
          ts: '2026-02-03T12:00:01.000Z',
          tool: 't',
          tool_call_id: 'c',
          result_raw: 'x',
          output_ref: { id: 'a/b' },
        },
      ]),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(await store.locateRun(runId)).toBeNull();
    expect(fs.existsSync(join(root, 'sessions'))).toBe(false);
  });

  it('lets a header be written into a run file its creator left empty', async () => {
    const { store } = open();
    const runId = runIdFor(13);
    await store.runs.append(runId, [headerFor(runId)]);
    const path = (await store.locateRun(runId)) as string;
    await store.close();
    // The creator died after creating the file and before writing the header.
    fs.writeFileSync(path, '');
    const retry = createFsStore({ root: path.split('/sessions/')[0] as string });
    cleanups.push(() => retry.close());
    expect((await retry.runs.append(runId, [headerFor(runId)])).appended).toBe(1);
    expect((await retry.runs.read(runId)).records).toEqual([headerFor(runId)]);
  });
});

describe('paths stay under the root', () => {
  const outside = () => {
    const directory = temporaryDirectory('episodic-outside-');
    cleanups.push(() => directory.remove());
    return directory.path;
  };

  it('refuses a sessions directory that is a symbolic link, writing nothing outside the root', async () => {
    const { store, root } = open();
    const target = outside();
    fs.symlinkSync(target, join(root, 'sessions'));
    const error = await rejection(store.runs.append(runIdFor(7), [headerFor(runIdFor(7))]));
    expect(error.code).toBe('STORAGE_ERROR');
    expect(error.message).toContain('symbolic link');
    expect(fs.readdirSync(target)).toEqual([]);
    const save = await rejection(
      store.sessions.save({
        schema_version: 1,
        session_id: SESSION_ID,
        updated_at: '2026-02-03T12:00:00.000Z',
        messages: [],
      }),
    );
    expect(save.code).toBe('STORAGE_ERROR');
    expect(fs.readdirSync(target)).toEqual([]);
    expect((await rejection(store.runs.list())).code).toBe('STORAGE_ERROR');
  });

  it('never follows a symbolic link to a day directory or a run file', async () => {
    const { store, root } = open();
    const target = outside();
    const runId = runIdFor(8);
    await store.runs.append(runId, [headerFor(runId)]);
    // A day directory pointing outside: not walked, so its runs are neither listed nor found.
    fs.mkdirSync(join(target, 'day'));
    fs.writeFileSync(
      join(target, 'day', `${runIdFor(9)}.jsonl`),
      `${JSON.stringify(headerFor(runIdFor(9)))}\n`,
    );
    fs.symlinkSync(join(target, 'day'), join(root, 'sessions', '2026', '02', '05'));
    expect((await store.runs.list()).runs.map((run) => run.runId)).toEqual([runId]);
    expect((await rejection(store.runs.read(runIdFor(9)))).code).toBe('NOT_FOUND');
    // A run file replaced by a link: reads and appends refuse it.
    const path = (await store.locateRun(runId)) as string;
    await store.close();
    fs.renameSync(path, join(target, 'moved.jsonl'));
    fs.symlinkSync(join(target, 'moved.jsonl'), path);
    const reopened = createFsStore({ root });
    cleanups.push(() => reopened.close());
    expect((await rejection(reopened.runs.read(runId))).code).toBe('STORAGE_ERROR');
    expect(
      (
        await rejection(
          reopened.runs.append(runId, [
            { type: 'run.status', run_id: runId, ts: '2026-02-03T12:00:01.000Z', status: 'x' },
          ]),
        )
      ).code,
    ).toBe('STORAGE_ERROR');
    expect(fs.readFileSync(join(target, 'moved.jsonl'), 'utf8').split('\n')).toHaveLength(2);
    const listed = await reopened.runs.list();
    expect(listed.errors).toEqual([
      expect.objectContaining({ runId, message: expect.stringContaining('symbolic link') }),
    ]);
  });
});

describe('reading only what is needed', () => {
  it('tails a run by reading backwards: the same bytes for a small and a large file', async () => {
    const { io, counters } = countingIo();
    const { store } = open({ io, durability: 'none' });
    const small = runIdFor(10);
    const large = runIdFor(11);
    const events = (runId: string, count: number) =>
      Array.from(
        { length: count },
        (_, seq): RunRecord => ({
          type: 'agent.event',
          run_id: runId,
          ts: '2026-02-03T12:00:01.000Z',
          seq,
          event: { type: 'text', content: 'y'.repeat(900) },
        }),
      );
    await store.runs.append(small, [headerFor(small), ...events(small, 20)]);
    await store.runs.append(large, [headerFor(large), ...events(large, 40_000)]);
    expect(fs.statSync((await store.locateRun(large)) as string).size).toBeGreaterThan(
      35 * 1024 * 1024,
    );

    counters.bytesRead = 0;
    const smallTail = await store.runs.tail(small, { count: 10 });
    const smallBytes = counters.bytesRead;
    counters.bytesRead = 0;
    const largeTail = await store.runs.tail(large, { count: 10 });
    const largeBytes = counters.bytesRead;
    expect(smallTail.records.map((record) => record.seq)).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
    ]);
    expect(largeTail.records.map((record) => record.seq)).toEqual(
      Array.from({ length: 10 }, (_, index) => 39_990 + index),
    );
    // One 64 KiB block holds the last 10 records of either file, plus one 2 KiB read of the
    // header line (`headerLine`, for a scoped store).
    expect(largeBytes).toBeLessThanOrEqual(64 * 1024 + 2 * 1024);
    expect(smallBytes).toBeLessThanOrEqual(64 * 1024 + 2 * 1024);
    expect(largeTail.headerLine).toBe(JSON.stringify(headerFor(large)));
  });

  it('tailRunFileAt reads only the bytes before `end` of an open file and leaves it open', async () => {
    const { store } = open({ durability: 'none' });
    const runId = runIdFor(12);
    const event = (seq: number): RunRecord => ({
      type: 'agent.event',
      run_id: runId,
      ts: '2026-02-03T12:00:01.000Z',
      seq,
      event: { type: 'text', content: `event ${seq}` },
    });
    await store.runs.append(runId, [headerFor(runId), event(0), event(1), event(2)]);
    const path = (await store.locateRun(runId)) as string;
    const complete = fs.statSync(path).size;
    // A record another writer has only half written: no newline yet.
    fs.appendFileSync(path, JSON.stringify(event(3)).slice(0, 30));
    const fd = fs.openSync(path, 'r');
    try {
      const upToComplete = tailRunFileAt(nodeFsIo, fd, complete, runId, 2);
      expect(upToComplete.records.map((record) => record.seq)).toEqual([1, 2]);
      expect(upToComplete.errors).toEqual([]);
      const all = tailRunFileAt(nodeFsIo, fd, complete, runId, 10);
      expect(all.records.map((record) => record.type)).toEqual([
        'header',
        'agent.event',
        'agent.event',
        'agent.event',
      ]);
      // Counting the half-written bytes too, they are the damaged last line.
      const withPartial = tailRunFileAt(nodeFsIo, fd, fs.fstatSync(fd).size, runId, 2);
      expect(withPartial.records.map((record) => record.seq)).toEqual([1, 2]);
      expect(withPartial.errors).toHaveLength(1);
      expect(withPartial.errors[0]?.byteOffset).toBe(complete);
      expect(fs.fstatSync(fd).size).toBeGreaterThan(complete); // still open
    } finally {
      fs.closeSync(fd);
    }
  });

  it('lists by reading each file’s first line only, and stops at the days a limit needs', async () => {
    const { io, counters } = countingIo();
    const { store } = open({ io, durability: 'none' });
    const body = 'z'.repeat(256 * 1024);
    for (let index = 0; index < 60; index++) {
      const runId = runIdFor(100 + index);
      await store.runs.append(runId, [
        headerFor(
          runId,
          new Date(Date.UTC(2026, 0, 1 + Math.floor(index / 3), 12, index)).toISOString(),
        ),
        {
          type: 'agent.event',
          run_id: runId,
          ts: '2026-02-03T12:00:01.000Z',
          seq: 0,
          event: { type: 'text', content: body },
        },
      ]);
    }
    counters.bytesRead = 0;
    counters.opened = 0;
    const all = await store.runs.list({ sessionId: SESSION_ID });
    expect(all.runs).toHaveLength(60);
    expect(counters.opened).toBe(60);
    // 60 files of 256 KiB each, but only their first lines (one 64 KiB read each) were read.
    expect(counters.bytesRead).toBeLessThanOrEqual(60 * 64 * 1024);
    counters.opened = 0;
    const newest = await store.runs.list({ limit: 4 });
    expect(newest.runs.map((run) => run.runId)).toEqual([
      runIdFor(159),
      runIdFor(158),
      runIdFor(157),
      runIdFor(156),
    ]);
    expect(counters.opened).toBeLessThanOrEqual(6);
    counters.opened = 0;
    const range = await store.runs.list({
      from: '2026-01-05T00:00:00.000Z',
      to: '2026-01-06T23:59:59.999Z',
    });
    expect(range.runs).toHaveLength(6);
    expect(counters.opened).toBe(6);
  });

  it('lists given run ids by opening only their files, even when other files are damaged', async () => {
    const { io, counters } = countingIo();
    const { store, root } = open({ io, durability: 'none' });
    for (let index = 0; index < 40; index++) {
      const runId = runIdFor(200 + index);
      await store.runs.append(runId, [
        headerFor(runId, new Date(Date.UTC(2026, 0, 1 + (index % 10), 12, index)).toISOString()),
      ]);
    }
    // Another run whose file lost its header: a list that opened it would report it.
    const damaged = runIdFor(299);
    fs.writeFileSync(join(root, 'sessions', '2026', '01', '03', `${damaged}.jsonl`), '{"type":');
    expect((await store.runs.list()).errors).toMatchObject([{ runId: damaged }]);
    counters.opened = 0;
    const wanted = [runIdFor(203), runIdFor(217).toUpperCase(), runIdFor(239), runIdFor(404)];
    const listed = await store.runs.list({ runIds: wanted });
    expect(listed).toEqual({
      runs: [runIdFor(239), runIdFor(217), runIdFor(203)].map((runId) =>
        expect.objectContaining({ runId }),
      ),
      errors: [],
    });
    expect(counters.opened).toBe(3);
    counters.opened = 0;
    const ofSession = await store.runs.list({ runIds: [runIdFor(203)], sessionId: SESSION_ID });
    expect(ofSession.runs.map((run) => run.runId)).toEqual([runIdFor(203)]);
    expect(counters.opened).toBe(1);
    expect((await store.runs.list({ runIds: [] })).runs).toEqual([]);
    await expect(store.runs.list({ runIds: ['run-1'] })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });

  it('lists thousands of runs', async () => {
    const { store } = open({ durability: 'none' });
    for (let index = 0; index < 3_000; index++) {
      const runId = runIdFor(1_000 + index);
      await store.runs.append(runId, [
        headerFor(runId, new Date(Date.UTC(2025, 0, 1) + index * 60_000).toISOString()),
      ]);
    }
    const { runs, errors } = await store.runs.list();
    expect(errors).toEqual([]);
    expect(runs).toHaveLength(3_000);
    expect(runs[0]?.runId).toBe(runIdFor(3_999));
    expect(runs.at(-1)?.runId).toBe(runIdFor(1_000));
  });
});
