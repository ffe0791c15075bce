// Pins: "damaged file corpus (cut mid-string, NUL run, BOM, CRLF, lone surrogate, wrong schema, two
// objects on one line, torn tail) → every undamaged record returned in order; errors = damaged
// lines exactly; read never stops early" (QUALITY.md reliability table; research/reliability.md
// test plan T6, from Claude Code #50347 (silent stop at the first bad line), #49876 (NUL runs),
// #53821 (torn last line), Codex #28139 (BOM) and #45150). Also headers over 64 KiB and bytes that
// are not UTF-8. Each fixture is written byte for byte and read with the real reader (read and tail).
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { RunRecord } from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore, type FsStore } from './index.js';

const RUN_ID = '6e5d4c3b-2a19-4f08-8e7d-6c5b4a392817';
const header: RunRecord = {
  type: 'header',
  schema_version: 1,
  run_id: RUN_ID,
  started_at: '2026-02-03T12:00:00.000Z',
};
const event = (seq: number): RunRecord => ({
  type: 'agent.event',
  run_id: RUN_ID,
  ts: '2026-02-03T12:00:01.000Z',
  seq,
  event: { type: 'text', content: `event ${seq} ✓` },
});
const line = (record: RunRecord) => JSON.stringify(record);

type Piece = { good: RunRecord } | { bad: string | Buffer };

interface Fixture {
  name: string;
  pieces: Piece[];
  /** The file ends without a newline (the last piece is a torn tail). */
  noFinalNewline?: boolean;
  /** Bytes before the first line (a BOM). */
  prefix?: Buffer;
  /** Line separator. @default '\n' */
  separator?: string;
}

const good = (record: RunRecord): Piece => ({ good: record });
const bad = (text: string | Buffer): Piece => ({ bad: text });

const FIXTURES: Fixture[] = [
  {
    name: 'a line cut in the middle of a string',
    pieces: [
      good(header),
      good(event(0)),
      bad('{"type":"agent.event","run_id":"6e5d4c3b-2a19-4f08-8e7d-6c5b4a392817","ts":"2026-02-0'),
      good(event(1)),
    ],
  },
  {
    name: 'a NUL run in the middle (ext4 delayed allocation)',
    pieces: [good(header), good(event(0)), bad('\0'.repeat(512)), good(event(1)), good(event(2))],
  },
  {
    name: 'NUL bytes in front of a record on the same line',
    pieces: [good(header), bad(`${'\0'.repeat(300)}{"type":"agent.ev`), good(event(0))],
  },
  {
    name: 'a BOM at the start',
    prefix: Buffer.from([0xef, 0xbb, 0xbf]),
    pieces: [good(header), good(event(0))],
  },
  {
    name: 'CRLF line ends',
    separator: '\r\n',
    pieces: [good(header), good(event(0)), good(event(1))],
  },
  {
    name: 'a lone surrogate escape (a string truncated by UTF-16 code unit)',
    pieces: [
      good(header),
      bad(
        '{"type":"agent.event","run_id":"x","ts":"2026-02-03T12:00:01.000Z","seq":5,"event":{"type":"text","content":"cut \\ud83d"}}',
      ),
      good(event(0)),
    ],
  },
  {
    name: 'valid JSON with the wrong schema',
    pieces: [
      good(header),
      bad(
        '{"type":"agent.event","run_id":"x","ts":"2026-02-03T12:00:01.000Z","seq":"first","event":{"type":"a"}}',
      ),
      bad('{"type":"llm.request","run_id":"x","ts":"not a time","seq":1,"input":{"messages":[]}}'),
      bad('[1,2,3]'),
      bad('"a string"'),
      bad('{"no_type":true}'),
      good(event(0)),
    ],
  },
  {
    name: 'two objects on one line (a merged append)',
    pieces: [good(header), bad(`${line(event(0))}${line(event(1))}`), good(event(2))],
  },
  {
    name: 'a torn last line',
    pieces: [
      good(header),
      good(event(0)),
      good(event(1)),
      bad('{"type":"run.end","run_id":"6e5d4c3b'),
    ],
    noFinalNewline: true,
  },
  {
    name: 'bytes that are not UTF-8',
    pieces: [
      good(header),
      // A valid record whose string holds a byte that is not UTF-8: decoding would hide it as U+FFFD.
      bad(
        Buffer.concat([
          Buffer.from(line(event(7)).slice(0, line(event(7)).indexOf('event 7'))),
          Buffer.from([0xff]),
          Buffer.from(line(event(7)).slice(line(event(7)).indexOf('event 7'))),
        ]),
      ),
      good(event(0)),
    ],
  },
  {
    name: 'a header over 64 KiB, unknown record types and a missing run.end',
    pieces: [
      good({
        ...header,
        prompts: { system: 'p'.repeat(200 * 1024) },
        tools: { definitions: [{ name: 'x', description: 'd'.repeat(70_000) }] },
      }),
      good({
        type: 'x.acme.checkpoint',
        run_id: RUN_ID,
        ts: '2026-02-03T12:00:01.000Z',
        label: 'custom',
      }),
      good({ type: 'run.future', run_id: RUN_ID, note: 'a type from a newer writer' }),
      good(event(0)),
    ],
  },
  {
    name: 'every kind of damage at once, with blank lines',
    separator: '\n',
    pieces: [
      good(header),
      bad('\0\0\0\0'),
      good(event(0)),
      bad('{"type":'),
      good(event(1)),
      bad(`${line(event(9))}${line(event(9))}`),
      good(event(2)),
      bad('not json at all'),
      good(event(3)),
      bad('{"type":"run.end","run_id":"x","ts":"2026'),
    ],
    noFinalNewline: true,
  },
];

function build(fixture: Fixture): { bytes: Buffer; goodRecords: RunRecord[]; badLines: number[] } {
  const separator = fixture.separator ?? '\n';
  const parts: Buffer[] = [fixture.prefix ?? Buffer.alloc(0)];
  const goodRecords: RunRecord[] = [];
  const badLines: number[] = [];
  fixture.pieces.forEach((piece, index) => {
    const lineNumber = index + 1;
    if ('good' in piece) {
      goodRecords.push(piece.good);
      parts.push(Buffer.from(line(piece.good)));
    } else {
      badLines.push(lineNumber);
      parts.push(typeof piece.bad === 'string' ? Buffer.from(piece.bad) : piece.bad);
    }
    const last = index === fixture.pieces.length - 1;
    if (!last || !fixture.noFinalNewline) parts.push(Buffer.from(separator));
  });
  return { bytes: Buffer.concat(parts), goodRecords, badLines };
}

let store: FsStore;
let remove: () => void;
afterEach(async () => {
  await store.close();
  remove();
});

async function writeFixture(bytes: Buffer): Promise<void> {
  const directory = temporaryDirectory();
  remove = directory.remove;
  store = createFsStore({ root: directory.path });
  await store.runs.append(RUN_ID, [header]);
  fs.writeFileSync((await store.locateRun(RUN_ID)) as string, bytes);
}

describe('the damaged-file corpus', () => {
  for (const fixture of FIXTURES) {
    it(`reads past ${fixture.name}: every undamaged record, one error per damaged line`, async () => {
      const { bytes, goodRecords, badLines } = build(fixture);
      await writeFixture(bytes);
      const read = await store.runs.read(RUN_ID);
      expect(read.records).toEqual(goodRecords);
      expect(read.errors.map((error) => error.line)).toEqual(badLines);
      for (const error of read.errors) {
        expect(error.message).not.toBe('');
        expect(typeof error.excerpt).toBe('string');
      }
      expect(read.header).toEqual(goodRecords[0]);
      expect(read.ended).toBe(false);

      // The tail sees the same records and the same damage, reading backwards.
      const tail = await store.runs.tail(RUN_ID, { count: 1_000 });
      expect(tail.records).toEqual(goodRecords);
      expect(tail.errors).toHaveLength(badLines.length);
      const lastTwo = await store.runs.tail(RUN_ID, { count: 2 });
      expect(lastTwo.records).toEqual(goodRecords.slice(-2));

      // Listing reads the header line alone, however long it is.
      const { runs, errors } = await store.runs.list();
      expect(errors).toEqual([]);
      expect(runs.map((run) => run.runId)).toEqual([RUN_ID]);
    });
  }

  it('keeps appending correctly after any of the damage', async () => {
    const { bytes, goodRecords } = build(FIXTURES.at(-1) as Fixture);
    await writeFixture(bytes);
    await store.runs.append(RUN_ID, [event(4)]);
    const read = await store.runs.read(RUN_ID);
    expect(read.records).toEqual([...goodRecords, event(4)]);
  });

  it('reads a run whose first line is damaged best-effort, and lists it as an error', async () => {
    const directory = temporaryDirectory();
    remove = directory.remove;
    store = createFsStore({ root: directory.path });
    await store.runs.append(RUN_ID, [header]);
    const path = (await store.locateRun(RUN_ID)) as string;
    fs.writeFileSync(path, `{"type":"header","schema_ver\n${line(event(0))}\n`);
    const read = await store.runs.read(RUN_ID);
    expect(read).toMatchObject({ header: null, bestEffort: true, records: [event(0)] });
    expect(read.errors.map((error) => error.line)).toEqual([1]);
    const { runs, errors } = await store.runs.list();
    expect(runs).toEqual([]);
    expect(errors).toEqual([
      {
        runId: RUN_ID,
        location: join('sessions', '2026', '02', '03', `${RUN_ID}.jsonl`),
        message: 'the first line is not a readable run header',
      },
    ]);
  });
});
