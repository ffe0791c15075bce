import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import type { RunRecord } from '@episodic/core';
import { toolOutputRefFor } from '@episodic/core/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore, type FsIo, type FsStore } from './index.js';

const RUN_ID = '2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f';
const TS = '2026-02-03T12:00:00.000Z';
const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');
const header: RunRecord = { type: 'header', schema_version: 1, run_id: RUN_ID, started_at: TS };
const event = (seq: number, content = `event ${seq}`): RunRecord => ({
  type: 'agent.event',
  run_id: RUN_ID,
  ts: TS,
  seq,
  event: { type: 'text', content },
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function open(io?: FsIo): { store: FsStore; root: string } {
  const directory = temporaryDirectory();
  const store = createFsStore({ root: directory.path, durability: 'run', ...(io ? { io } : {}) });
  cleanups.push(
    () => directory.remove(),
    () => store.close(),
  );
  return { store, root: directory.path };
}

describe('redacting a run file', () => {
  it('loses no append issued around it in this process', async () => {
    const { store } = open();
    await store.runs.append(RUN_ID, [header]);
    const before = Array.from({ length: 50 }, (_, seq) =>
      store.runs.append(RUN_ID, [event(seq, `key ${SECRET} #${seq}`)]),
    );
    const redaction = store.runs.redact(RUN_ID);
    const after = Array.from({ length: 50 }, (_, seq) =>
      store.runs.append(RUN_ID, [event(50 + seq)]),
    );
    await Promise.all([...before, redaction, ...after]);
    expect((await redaction).changedLines).toBe(50);
    const read = await store.runs.read(RUN_ID);
    expect(read.errors).toEqual([]);
    expect(read.records.map((record) => record.seq ?? 'header')).toEqual([
      'header',
      ...Array.from({ length: 100 }, (_, seq) => seq),
    ]);
    expect(JSON.stringify(read.records)).not.toContain(SECRET);
  });

  it('reaches every copy of a run: listed once (the copy reported), both files scrubbed, both deleted', async () => {
    const { store, root } = open();
    await store.runs.append(RUN_ID, [header, event(1, `key ${SECRET}`)]);
    const original = join(root, 'sessions', '2026', '02', '03', `${RUN_ID}.jsonl`);
    const copy = join(root, 'sessions', '2026', '02', '04', `${RUN_ID}.jsonl`);
    fs.mkdirSync(dirname(copy), { recursive: true });
    fs.copyFileSync(original, copy);

    const listed = await store.runs.list();
    expect(listed.runs.map((run) => run.runId)).toEqual([RUN_ID]);
    expect(listed.errors).toEqual([
      expect.objectContaining({
        runId: RUN_ID,
        location: expect.stringContaining('2026/02/03'),
        message: expect.stringContaining('second copy'),
      }),
    ]);

    const receipt = await store.runs.redact(RUN_ID);
    expect(receipt.changedLines).toBe(2);
    for (const path of [original, copy])
      expect(fs.readFileSync(path, 'utf8')).not.toContain(SECRET);

    expect(await store.runs.delete(RUN_ID)).toBe(true);
    expect(fs.existsSync(original) || fs.existsSync(copy)).toBe(false);
    expect((await store.runs.list()).runs).toEqual([]);
  });

  it('scrubs the cached full text of its tool outputs too', async () => {
    const { store } = open();
    const output = `line 1\nAWS_ACCESS_KEY_ID=${SECRET}\n`;
    await store.runs.append(RUN_ID, [
      header,
      {
        type: 'tool.output',
        run_id: RUN_ID,
        ts: TS,
        tool: 'exec',
        tool_call_id: 'call_1',
        result_raw: output,
        output_ref: toolOutputRefFor('call_1', output),
      },
    ]);
    expect(await store.readToolOutput('call_1')).toContain(SECRET);
    const receipt = await store.runs.redact(RUN_ID);
    expect(receipt).toMatchObject({ changedLines: 1, changedToolOutputs: 1 });
    expect(await store.readToolOutput('call_1')).toBe(
      'line 1\nAWS_ACCESS_KEY_ID=[REDACTED:aws_key]\n',
    );
    const content = await store.runs.redact(RUN_ID, { mode: 'content' });
    expect(content.changedToolOutputs).toBe(1);
    expect(await store.readToolOutput('call_1')).toBe('[REDACTED]');
  });

  it('loses nothing another writer appends through a descriptor it keeps open', async () => {
    const { store, root } = open();
    // A second store is another writer (as another process would be): it keeps its own
    // descriptor of the run file open across the redaction.
    const other = createFsStore({ root, durability: 'run' });
    cleanups.push(() => other.close());
    await store.runs.append(RUN_ID, [header, event(0, `key ${SECRET}`)]);
    await other.runs.append(RUN_ID, [event(1)]);
    const path = (await store.locateRun(RUN_ID)) as string;
    const inode = fs.statSync(path).ino;
    const size = fs.statSync(path).size;
    expect((await store.runs.redact(RUN_ID)).changedLines).toBe(1);
    // In place: the same file, the same size, every line where it was.
    expect(fs.statSync(path).ino).toBe(inode);
    expect(fs.statSync(path).size).toBe(size);
    await other.runs.append(RUN_ID, [event(2)]);
    const read = await store.runs.read(RUN_ID);
    expect(read.errors).toEqual([]);
    expect(read.records.map((record) => record.seq)).toEqual([undefined, 0, 1, 2]);
    expect(fs.readFileSync(path, 'utf8')).not.toContain(SECRET);
  });

  it('finishes a redaction a crash interrupted after its journal was written', async () => {
    const { store } = open();
    await store.runs.append(RUN_ID, [header, event(0, `key ${SECRET}`), event(1)]);
    const path = (await store.locateRun(RUN_ID)) as string;
    const text = fs.readFileSync(path, 'utf8');
    const line = `${JSON.stringify(event(0, `key ${SECRET}`))}`;
    const offset = Buffer.byteLength(text.slice(0, text.indexOf(line)));
    const patched = Buffer.alloc(Buffer.byteLength(line), ' ');
    patched.write(JSON.stringify(event(0, 'key [REDACTED:aws_key]')));
    const { ino, size } = fs.statSync(path);
    // What the journal holds when the process dies before changing a byte of the run file.
    fs.writeFileSync(
      `${path}.redact`,
      JSON.stringify({ ino, size, patches: [[offset, patched.toString('base64')]] }),
    );
    // The next redaction replays it first (no finding is left for it to count).
    expect(await store.runs.redact(RUN_ID)).toMatchObject({ changedLines: 0, replacements: 0 });
    expect(fs.existsSync(`${path}.redact`)).toBe(false);
    expect(fs.readFileSync(path, 'utf8')).not.toContain(SECRET);
    const read = await store.runs.read(RUN_ID);
    expect(read.errors).toEqual([]);
    expect(read.records[1]).toEqual(event(0, 'key [REDACTED:aws_key]'));
  });

  it('drops a journal written for another file, and leaves an unchanged run untouched', async () => {
    const { store } = open();
    await store.runs.append(RUN_ID, [header, event(0)]);
    const path = (await store.locateRun(RUN_ID)) as string;
    const orphan = join(dirname(path), `.${RUN_ID}.jsonl.redact.999999999.abcdef012345.tmp`);
    fs.writeFileSync(orphan, 'half a journal');
    fs.writeFileSync(
      `${path}.redact`,
      JSON.stringify({
        ino: -1,
        size: 0,
        patches: [[0, Buffer.from('garbage').toString('base64')]],
      }),
    );
    const before = fs.readFileSync(path);
    const inode = fs.statSync(path).ino;
    expect(await store.runs.redact(RUN_ID)).toMatchObject({ changedLines: 0, replacements: 0 });
    expect(fs.existsSync(orphan)).toBe(false);
    expect(fs.existsSync(`${path}.redact`)).toBe(false);
    expect(fs.statSync(path).ino).toBe(inode);
    expect(fs.readFileSync(path).equals(before)).toBe(true);
    const listed = await store.runs.list();
    expect(listed).toMatchObject({ errors: [], runs: [{ runId: RUN_ID }] });
  });
});
