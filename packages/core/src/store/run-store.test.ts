import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { rejection } from '../__fixtures__/episodic-errors.js';
import { EpisodicError } from '../errors/episodic-error.js';
import type { RunHeader, RunRecord } from '../schema/run-record.js';
import { uuidSchema } from '../schema/session-state.js';
import { jsonEqual } from '../util/json-equal.js';
import { createMemoryRunStoreAdapter } from './memory-run-store.js';
import {
  compareRunSummaries,
  createRunReadCollector,
  createRunStore,
  hasLoneSurrogateEscape,
  parseRunId,
  planRunAppend,
  prepareRunRecords,
  type RunStoreAdapter,
  readRunLine,
  readRunText,
  tailRunText,
} from './run-store.js';

const RUN_ID = '8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a';
const TS = '2026-02-03T12:00:00.000Z';
const header: RunHeader = { type: 'header', schema_version: 1, run_id: RUN_ID, started_at: TS };
const event = (seq: number, content = `event ${seq}`): RunRecord => ({
  type: 'agent.event',
  run_id: RUN_ID,
  ts: TS,
  seq,
  event: { type: 'text', content },
});

describe('createRunStore', () => {
  it('refuses an adapter of another specification version', () => {
    const adapter = createMemoryRunStoreAdapter();
    expect(() => createRunStore({ ...adapter, specificationVersion: 'v2' as 'v1' })).toThrow(
      expect.objectContaining({ code: 'UNSUPPORTED', message: expect.stringContaining('v2') }),
    );
  });

  it('turns backend failures into STORAGE_ERROR naming the store and the operation', async () => {
    const failing: RunStoreAdapter = {
      ...createMemoryRunStoreAdapter(),
      name: 'broken',
      read: () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
    };
    const error = await rejection(createRunStore(failing).read(RUN_ID));
    expect(error.code).toBe('STORAGE_ERROR');
    expect(error.details).toMatchObject({
      store: 'broken',
      operation: `read run ${RUN_ID}`,
      backendCode: 'EACCES',
    });
  });

  it('validates ids and records before calling the adapter, and lowercases ids', async () => {
    const calls: string[] = [];
    const adapter = createMemoryRunStoreAdapter();
    const store = createRunStore({
      ...adapter,
      append(runId, entries) {
        calls.push(runId);
        return adapter.append(runId, entries);
      },
    });
    await rejection(store.append('../../x', [header]));
    await rejection(store.append(RUN_ID, [{ ...header, run_id: 'other' }]));
    expect(calls).toEqual([]);
    await store.append(RUN_ID.toUpperCase(), [{ ...header, run_id: RUN_ID.toUpperCase() }]);
    expect(calls).toEqual([RUN_ID]);
  });

  it('lists from rows: stops reading pages once the limit holds dated matches, reports bad rows', async () => {
    const idOf = (index: number) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
    const row = (index: number, day: string, extra: Record<string, unknown> = {}) => ({
      runId: idOf(index),
      header: JSON.stringify({
        ...header,
        run_id: idOf(index),
        started_at: `2026-02-${day}T10:00:00.000Z`,
        ...extra,
      }),
    });
    const read: number[] = [];
    function* pages() {
      read.push(1);
      yield { rows: [row(1, '03'), { runId: idOf(9), header: '{"type":"header"' }] };
      read.push(2);
      yield { rows: [row(2, '02', { scope: 'team-a' }), row(3, '02')] };
      read.push(3);
      yield { rows: [row(4, '01')], errors: [{ location: 'x', message: 'unreadable' }] };
    }
    const store = createRunStore({ ...createMemoryRunStoreAdapter(), list: () => pages() });
    const limited = await store.list({ limit: 2 });
    expect(limited.runs.map((run) => run.runId)).toEqual([idOf(1), idOf(2)]);
    expect(read).toEqual([1, 2]);
    expect(limited.errors).toEqual([
      {
        runId: idOf(9),
        location: `run ${idOf(9)}`,
        message: 'the first line is not a readable run header',
      },
    ]);
    read.length = 0;
    const scoped = await store.list({ scope: 'default' });
    expect(scoped.runs.map((run) => run.runId)).toEqual([idOf(1), idOf(3), idOf(4)]);
    expect(read).toEqual([1, 2, 3]);
    expect(scoped.errors).toHaveLength(2);
    expect((await store.list({ scope: 'team-a' })).runs.map((run) => run.runId)).toEqual([idOf(2)]);
  });
});

describe('prepareRunRecords', () => {
  it('serializes each record once, exactly as given (no defaults filled in)', () => {
    const request: RunRecord = {
      type: 'llm.response',
      run_id: RUN_ID,
      ts: TS,
      seq: 1,
      output: {
        messages: [
          {
            role: 'assistant',
            tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }],
          },
        ],
      },
    };
    const [entry] = prepareRunRecords(RUN_ID, [request]);
    expect(entry?.json).toBe(JSON.stringify(request));
    expect(entry?.record).toBe(request);
  });

  it('names the record and the field in its errors', () => {
    const error = (() => {
      try {
        prepareRunRecords(RUN_ID, [header, { ...event(1), seq: 'one' }]);
      } catch (caught) {
        return caught as EpisodicError;
      }
      throw new Error('expected an error');
    })();
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('run record [1]');
    expect(error.message).toContain('seq');
  });
});

describe('hasLoneSurrogateEscape', () => {
  it('finds lone surrogates and ignores pairs and escaped backslashes', () => {
    expect(hasLoneSurrogateEscape(JSON.stringify('a\ud83d'))).toBe(true);
    expect(hasLoneSurrogateEscape(JSON.stringify('\ude00b'))).toBe(true);
    expect(hasLoneSurrogateEscape(JSON.stringify('🙂'))).toBe(false);
    expect(hasLoneSurrogateEscape('"\\ud83d\\ude00"')).toBe(false);
    expect(hasLoneSurrogateEscape(JSON.stringify('\\ud83d'))).toBe(false);
    expect(hasLoneSurrogateEscape(JSON.stringify('\\\ud83d'))).toBe(true);
  });

  test.prop([
    fc.string({
      unit: fc.oneof(
        fc.constantFrom('\\', 'u', 'd', '8', '"', '\ud83d', '\ude00'),
        fc.string({ maxLength: 1, unit: 'binary' }),
      ),
    }),
  ])('agrees with isWellFormed on JSON.stringify output', (text) => {
    expect(hasLoneSurrogateEscape(JSON.stringify(text))).toBe(!text.isWellFormed());
  });
});

describe('planRunAppend and jsonEqual', () => {
  const entries = prepareRunRecords(RUN_ID, [header, event(0)]);
  it('creates, skips an identical header, and refuses a different or unreadable one', () => {
    expect(planRunAppend(RUN_ID, undefined, entries)).toBe(entries);
    expect(planRunAppend(RUN_ID, { ...header }, entries)).toEqual(entries.slice(1));
    expect(() => planRunAppend(RUN_ID, { ...header, started_at: 'x' }, entries)).toThrow(
      expect.objectContaining({ code: 'CONFLICT' }),
    );
    expect(() => planRunAppend(RUN_ID, null, entries)).toThrow(
      expect.objectContaining({ code: 'CONFLICT' }),
    );
    expect(() => planRunAppend(RUN_ID, undefined, entries.slice(1))).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
  });

  it('reads a stored header given as its line of text', () => {
    const line = entries[0]?.json as string;
    expect(planRunAppend(RUN_ID, line, entries)).toEqual(entries.slice(1));
    expect(() =>
      planRunAppend(RUN_ID, JSON.stringify({ ...header, started_at: 'x' }), entries),
    ).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    // An unreadable stored line is a header that cannot be matched (as null is).
    expect(() => planRunAppend(RUN_ID, '{"type":', entries)).toThrow(
      expect.objectContaining({ code: 'CONFLICT', message: expect.stringContaining('unreadable') }),
    );
    // A run that exists takes records without a header, whatever its header line holds.
    expect(planRunAppend(RUN_ID, '{"type":', entries.slice(1))).toEqual(entries.slice(1));
  });

  it('compares JSON values ignoring key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 2 })).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
  });
});

describe('createRunReadCollector with the stored end', () => {
  it('refuses a start beyond the end before reading, and accepts one at the end', () => {
    expect(() => createRunReadCollector(RUN_ID, 3, 2)).toThrow(
      expect.objectContaining({
        code: 'CONFLICT',
        details: { runId: RUN_ID, position: 3, end: 2 },
      }),
    );
    expect(createRunReadCollector(RUN_ID, 2, 2).resultAfter()).toEqual({
      runId: RUN_ID,
      records: [],
      errors: [],
      position: 2,
    });
    // Without an end (or a start) nothing is checked: the caller compares.
    expect(createRunReadCollector(RUN_ID, 3).position).toBe(3);
    expect(createRunReadCollector(RUN_ID, undefined, 0).result().position).toBe(0);
  });
});

describe('compareRunSummaries', () => {
  it('orders newest first, unparsable starts last, then by run id', () => {
    const summary = (runId: string, startedAt: string) => ({
      runId,
      startedAt,
      schemaVersion: 1,
      bestEffort: false,
    });
    const sorted = [
      summary('b', 'garbage'),
      summary('a', '2026-02-01T00:00:00.000Z'),
      summary('c', '2026-02-03T00:00:00+02:00'),
      summary('b', '2026-02-02T23:00:00.000Z'),
      summary('a', 'garbage'),
    ].sort(compareRunSummaries);
    expect(sorted.map((entry) => `${entry.runId}@${entry.startedAt}`)).toEqual([
      'b@2026-02-02T23:00:00.000Z',
      'c@2026-02-03T00:00:00+02:00',
      'a@2026-02-01T00:00:00.000Z',
      'a@garbage',
      'b@garbage',
    ]);
  });
});

describe('tolerant reading of run text', () => {
  it('salvages a record padded with NULs but reports the line', () => {
    const read = readRunLine(`\0\0${JSON.stringify(event(0))}\0`, false);
    expect(read).toMatchObject({
      kind: 'record',
      record: event(0),
      damage: expect.stringContaining('3 NUL bytes'),
    });
    expect(readRunLine('\0\0\0', false)).toEqual({
      kind: 'damaged',
      message: 'a run of 3 NUL bytes',
    });
    expect(readRunLine('  \r', false)).toEqual({ kind: 'blank' });
    expect(readRunLine(`\uFEFF${JSON.stringify(header)}\r`, true)).toMatchObject({
      kind: 'record',
    });
    // JavaScript's trim() counts U+FEFF as white space, so a stray BOM later in the file is harmless too.
    expect(readRunLine(`\uFEFF${JSON.stringify(header)}`, false)).toMatchObject({ kind: 'record' });
  });

  it('reads best-effort without a header, and says why', () => {
    const read = readRunText(RUN_ID, `${JSON.stringify(event(0))}\n`);
    expect(read).toMatchObject({ header: null, bestEffort: true, records: [event(0)], errors: [] });
    expect(read.bestEffortReason).toContain('no header');
  });

  // A model of the reader: build a run from lines, damage some of them, and check that exactly
  // the undamaged records come back and each damaged line is one error, for read and tail alike.
  const damagedLine = fc.constantFrom(
    '{"type":"agent.event","run_id":"x","ts":"2026',
    '\0'.repeat(40),
    'not json',
    '[]',
    '{"type":"agent.event","run_id":"x","ts":"2026-02-03T12:00:00.000Z","seq":-4,"event":{"type":"a"}}',
    '{"type":"agent.event","run_id":"x","ts":"2026-02-03T12:00:00.000Z","seq":1,"event":{"type":"a","t":"\\udc00"}}',
    `${JSON.stringify(event(1))}${JSON.stringify(event(2))}`,
  );
  const goodRecord = fc
    .record({ seq: fc.nat(99), content: fc.string({ unit: 'grapheme', maxLength: 12 }) })
    .map(({ seq, content }) => event(seq, content));
  test.prop([
    fc.array(
      fc.oneof(
        goodRecord.map((record) => ({ record })),
        damagedLine.map((damaged) => ({ damaged })),
      ),
      { maxLength: 30 },
    ),
    fc.boolean(),
    fc.integer({ min: 1, max: 40 }),
  ])(
    'returns exactly the undamaged records and one error per damaged line',
    (lines, crlf, count) => {
      const text = [
        JSON.stringify(header),
        ...lines.map((line) => ('record' in line ? JSON.stringify(line.record) : line.damaged)),
      ].join(crlf ? '\r\n' : '\n');
      const expected = [
        header,
        ...lines.flatMap((line) => ('record' in line ? [line.record] : [])),
      ];
      const damagedLines = lines.flatMap((line, index) => ('damaged' in line ? [index + 2] : []));
      const read = readRunText(RUN_ID, text);
      expect(read.records).toEqual(expected);
      expect(read.errors.map((error) => error.line)).toEqual(damagedLines);
      expect(read.bestEffort).toBe(false);
      const tail = tailRunText(RUN_ID, text, count);
      expect(tail.records).toEqual(expected.slice(-count));
      if (count >= expected.length) expect(tail.errors).toHaveLength(damagedLines.length);
    },
  );
});

describe('parseRunId', () => {
  // The fast path tests the pattern directly; it must accept exactly what uuidSchema accepts.
  test.prop([
    fc.oneof(
      fc.uuid(),
      fc.uuid().map((id) => id.toUpperCase()),
      fc.uuid().map((id) => ` ${id}`),
      fc.uuid().map((id) => `${id}\n`),
      fc.string(),
      fc.constant(42),
      fc.constant(null),
    ),
  ])('agrees with uuidSchema and lowercases', (value) => {
    const expected = uuidSchema.safeParse(value);
    if (expected.success) {
      expect(parseRunId(value)).toBe(expected.data.toLowerCase());
    } else {
      const error = (() => {
        try {
          parseRunId(value);
        } catch (caught) {
          return caught;
        }
        throw new Error('expected a VALIDATION_ERROR');
      })();
      expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
    }
  });
});
