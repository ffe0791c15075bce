import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../schema/run-record.js';
import { createRunDigester, digestRun, RUN_TITLE_LENGTH, runTitle } from './run-digest.js';

const RUN = '0b9e2c52-6c4b-4d3e-9f57-2a0e6b1c1111';
const header: RunRecord = {
  type: 'header',
  schema_version: 1,
  run_id: RUN,
  started_at: '2026-01-02T03:04:05.000Z',
};
const start = (text: unknown): RunRecord =>
  ({
    type: 'run.start',
    run_id: RUN,
    ts: '2026-01-02T03:04:05.000Z',
    input: { type: 'text', text },
  }) as RunRecord;
const response = (ts: string, usage: unknown): RunRecord =>
  ({
    type: 'llm.response',
    run_id: RUN,
    ts,
    seq: 1,
    output: { messages: [], usage },
  }) as RunRecord;
const end = (ts: string, outcome: string): RunRecord => ({
  type: 'run.end',
  run_id: RUN,
  ts,
  outcome,
});

describe('digestRun', () => {
  it('folds title, tokens, status and duration from the records', () => {
    const digest = digestRun([
      header,
      start('Fix the\n  flaky   test\n'),
      response('2026-01-02T03:04:06.000Z', {
        model: 'm',
        input_tokens: 100,
        output_tokens: 7,
        total_tokens: 107,
      }),
      response('2026-01-02T03:04:08.000Z', null),
      response('2026-01-02T03:04:09.500Z', {
        model: 'm',
        input_tokens: 50,
        output_tokens: 3,
        total_tokens: 53,
      }),
      end('2026-01-02T03:04:10.250Z', 'completed'),
    ]);
    expect(digest).toEqual({
      title: 'Fix the flaky test',
      status: 'completed',
      endedAt: '2026-01-02T03:04:10.250Z',
      durationMs: 5250,
      inputTokens: 150,
      outputTokens: 10,
      responses: 3,
      usageResponses: 2,
      lastActivityAt: '2026-01-02T03:04:10.250Z',
    });
  });

  it('reports a run without run.end as running, and one without input text as untitled', () => {
    const digest = digestRun([header, start(undefined)]);
    expect(digest).toMatchObject({
      title: null,
      status: 'running',
      endedAt: null,
      durationMs: null,
    });
    expect(digestRun([header, start('   \n ')]).title).toBeNull();
    expect(digestRun([]).lastActivityAt).toBeNull();
  });

  it('keeps the first run.start and ignores damaged usage', () => {
    const digest = digestRun([
      header,
      start('first'),
      start('second'),
      response('2026-01-02T03:04:06.000Z', { input_tokens: -5, output_tokens: 'x' }),
    ]);
    expect(digest).toMatchObject({ title: 'first', inputTokens: 0, outputTokens: 0, responses: 1 });
  });

  it('gives the same digest fed in pieces as fed whole', () => {
    const records = [
      header,
      start('hello'),
      response('2026-01-02T03:04:06.000Z', { input_tokens: 3, output_tokens: 4 }),
      end('2026-01-02T03:04:07.000Z', 'error'),
    ];
    const digester = createRunDigester();
    digester.add(records.slice(0, 2));
    digester.add(records.slice(2));
    expect(digester.result()).toEqual(digestRun(records));
  });
});

describe('runTitle', () => {
  it('keeps a short text and cuts a long one with an ellipsis', () => {
    expect(runTitle('short')).toBe('short');
    const long = runTitle('word '.repeat(40));
    expect(long.endsWith('…')).toBe(true);
    expect(Array.from(long).length).toBeLessThanOrEqual(RUN_TITLE_LENGTH);
  });

  it('never returns more than one line, nor splits a surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.integer({ min: 1, max: 100 }),
        (text, max) => {
          const title = runTitle(text, max);
          expect(title).not.toMatch(/[\n\r]/);
          expect(Array.from(title).length).toBeLessThanOrEqual(max);
          expect(title.isWellFormed()).toBe(true);
        },
      ),
    );
  });
});
