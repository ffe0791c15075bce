// Pins: "fuzz: random valid run files with random byte mutations → reader never throws; every
// untouched line returned" (QUALITY.md reliability table; research/reliability.md test plan T7,
// after SQLite's corrupt*.test and dbsqlfuzz). fast-check builds valid run files, applies 1–3
// mutations (truncate, insert a NUL run, flip a byte, duplicate a line) and reads the file with the
// real reader, whole and from the end. The seed is printed before the run and on failure, and
// replayable with FC_SEED / FC_PATH; RELIABILITY_FULL=1 runs 1,000 cases instead of 150.
import * as fs from 'node:fs';
import type { RunRecord } from '@episodic/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { fuzzParameters } from './__fixtures__/fuzz.js';
import { createFsStore, type FsStore } from './index.js';

const RUN_ID = '1f2e3d4c-5b6a-4798-8a6b-5c4d3e2f1a0b';
const TS = '2026-02-03T12:00:01.000Z';

const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('line\nbreak', 'tab\tand "quotes"', '{"json":"inside"}', '🙂👩‍💻', ''),
);

const recordArbitrary: fc.Arbitrary<RunRecord> = fc.oneof(
  fc.record({ seq: fc.nat(1000), content: text }).map(({ seq, content }) => ({
    type: 'agent.event',
    run_id: RUN_ID,
    ts: TS,
    seq,
    event: { type: 'text', content },
  })),
  fc
    .record({ id: fc.stringMatching(/^call_[a-z0-9]{1,6}$/), raw: text, isError: fc.boolean() })
    .map(({ id, raw, isError }) => ({
      type: 'tool.output',
      run_id: RUN_ID,
      ts: TS,
      tool: 'exec',
      tool_call_id: id,
      result_raw: raw,
      is_error: isError,
    })),
  fc
    .record({ status: fc.constantFrom('running', 'awaiting_ui', 'something_new'), message: text })
    .map(({ status, message }) => ({
      type: 'run.status',
      run_id: RUN_ID,
      ts: TS,
      status,
      message,
    })),
  fc
    .record({ label: text })
    .map(({ label }) => ({ type: 'x.fuzz.note', run_id: RUN_ID, ts: TS, label })),
);

type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'nul'; at: number; length: number }
  | { kind: 'flip'; at: number; value: number }
  | { kind: 'duplicate'; line: number };

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  fc
    .record({
      kind: fc.constant('truncate' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ at }) => ({ kind: 'truncate' as const, at })),
  fc
    .record({
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      length: fc.integer({ min: 1, max: 700 }),
    })
    .map(({ at, length }) => ({ kind: 'nul' as const, at, length })),
  fc
    .record({
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      value: fc.integer({ min: 0, max: 255 }),
    })
    .map(({ at, value }) => ({ kind: 'flip' as const, at, value })),
  fc.nat(100).map((line) => ({ kind: 'duplicate' as const, line })),
) as fc.Arbitrary<Mutation>;

interface Line {
  start: number;
  /** Offset of the line's `\n`. */
  end: number;
  record: RunRecord;
}

/** Applies mutations (positions are fractions of the original size) and reports which lines they touched. */
function mutate(
  original: Buffer,
  lines: Line[],
  mutations: Array<{ kind: Mutation['kind'] } & Record<string, number | string>>,
): { bytes: Buffer; untouched: RunRecord[] } {
  const touched = new Set<number>();
  const edits: Array<{ at: number; apply(bytes: Buffer): Buffer }> = [];
  for (const mutation of mutations) {
    if (mutation.kind === 'duplicate') {
      const line = lines[(mutation.line as number) % lines.length] as Line;
      const copy = original.subarray(line.start, line.end + 1);
      edits.push({
        at: line.end + 1,
        apply: (bytes) =>
          Buffer.concat([bytes.subarray(0, line.end + 1), copy, bytes.subarray(line.end + 1)]),
      });
      continue;
    }
    const at = Math.min(original.length - 1, Math.floor((mutation.at as number) * original.length));
    lines.forEach((line, index) => {
      const hit =
        mutation.kind === 'truncate'
          ? at <= line.end
          : mutation.kind === 'nul'
            ? at >= line.start && at <= line.end
            : at >= line.start - 1 && at <= line.end;
      if (hit) touched.add(index);
    });
    if (mutation.kind === 'truncate') edits.push({ at, apply: (bytes) => bytes.subarray(0, at) });
    else if (mutation.kind === 'nul') {
      const nul = Buffer.alloc(mutation.length as number);
      edits.push({
        at,
        apply: (bytes) => Buffer.concat([bytes.subarray(0, at), nul, bytes.subarray(at)]),
      });
    } else {
      edits.push({
        at,
        apply: (bytes) => {
          const copy = Buffer.from(bytes);
          if (at < copy.length) copy[at] = mutation.value as number;
          return copy;
        },
      });
    }
  }
  // Apply from the end so each position still refers to the original bytes.
  let bytes = original;
  for (const edit of edits.sort((left, right) => right.at - left.at)) bytes = edit.apply(bytes);
  return {
    bytes,
    untouched: lines.filter((_, index) => !touched.has(index)).map((line) => line.record),
  };
}

/** True when `expected` appears in `actual` in order (other records may sit between). */
function isSubsequence(expected: RunRecord[], actual: RunRecord[]): boolean {
  let position = 0;
  for (const record of actual) {
    if (position < expected.length && JSON.stringify(record) === JSON.stringify(expected[position]))
      position++;
  }
  return position === expected.length;
}

let store: FsStore;
let path: string;
let remove: () => void;
beforeAll(async () => {
  const directory = temporaryDirectory();
  remove = directory.remove;
  store = createFsStore({ root: directory.path, durability: 'none' });
  await store.runs.append(RUN_ID, [
    { type: 'header', schema_version: 1, run_id: RUN_ID, started_at: TS },
  ]);
  path = (await store.locateRun(RUN_ID)) as string;
});
afterAll(async () => {
  await store.close();
  remove();
});

describe('the run reader under random damage', () => {
  it('never throws and returns every line the damage did not touch', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(recordArbitrary, { minLength: 1, maxLength: 25 }),
        fc.array(mutationArbitrary, { minLength: 1, maxLength: 3 }),
        async (records, mutations) => {
          const all: RunRecord[] = [
            { type: 'header', schema_version: 1, run_id: RUN_ID, started_at: TS },
            ...records,
          ];
          const lines: Line[] = [];
          const parts: Buffer[] = [];
          let offset = 0;
          for (const record of all) {
            const bytes = Buffer.from(`${JSON.stringify(record)}\n`);
            lines.push({ start: offset, end: offset + bytes.length - 1, record });
            parts.push(bytes);
            offset += bytes.length;
          }
          const { bytes, untouched } = mutate(Buffer.concat(parts), lines, mutations as never);
          fs.writeFileSync(path, bytes);

          const read = await store.runs.read(RUN_ID);
          expect(isSubsequence(untouched, read.records)).toBe(true);
          for (const error of read.errors) expect(error.message.length).toBeGreaterThan(0);
          const tail = await store.runs.tail(RUN_ID, { count: 1_000 });
          expect(tail.records).toEqual(read.records);
          expect(tail.errors).toHaveLength(read.errors.length);
          const listed = await store.runs.list();
          expect(listed.runs.length + listed.errors.length).toBe(1);
        },
      ),
      { ...fuzzParameters('reader fuzz', 150, 1_000), verbose: 1 },
    );
  }, 600_000);
});
