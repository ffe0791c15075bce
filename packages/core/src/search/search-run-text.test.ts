import { describe, expect, it } from 'vitest';
import { decodeRunSearchCursor, encodeRunSearchCursor } from './run-search-query.js';
import {
  searchFieldsOfRunLine,
  searchTextOfRunLine,
  searchTextOfRunRecord,
} from './search-run-text.js';

const RUN = '0f0e0d0c-0b0a-4908-8706-000000000001';

describe('searchTextOfRunRecord', () => {
  it('takes the text fields of each record type, one per line, and nothing else', () => {
    expect(
      searchTextOfRunRecord({
        type: 'llm.response',
        run_id: RUN,
        ts: '2026-01-01T00:00:00Z',
        seq: 3,
        output: {
          messages: [
            {
              role: 'assistant',
              content: 'hello',
              tool_calls: [
                { id: 'c1', function: { name: 'grep', arguments: '{"q":"needle","n":3}' } },
                { id: 'c2', function: { name: 'raw', arguments: 'not json' } },
              ],
            },
            { role: 'assistant', content: [{ type: 'text', text: 'part' }, { type: 'image' }] },
          ],
          stop_reason: 'stop',
        },
      }),
    ).toBe('hello\ngrep\nneedle\nraw\nnot json\npart');
    expect(
      searchTextOfRunRecord({
        type: 'tool.output',
        run_id: RUN,
        ts: 'x',
        tool: 'cat',
        tool_call_id: 'c',
        result_raw: 'out',
        output_ref: { id: 'ref' },
      }),
    ).toBe('cat\nout');
    expect(
      searchTextOfRunRecord({
        type: 'agent.event',
        seq: 1,
        event: { type: 'task_step', step_number: 2, tool: 't', action: 'a', call_id: 'id' },
      }),
    ).toBe('t\na');
    expect(
      searchTextOfRunRecord({
        type: 'x.acme.note',
        run_id: RUN,
        ts: 't',
        meta: { m: 'no' },
        chain: 'c',
        note: 'yes',
      }),
    ).toBe('yes');
    expect(searchTextOfRunRecord({ type: 'header', prompts: { system: 'secret plan' } })).toBe('');
    expect(
      searchTextOfRunRecord({ type: 'llm.request', input: { messages: [{ content: 'x' }] } }),
    ).toBe('');
    expect(
      searchTextOfRunRecord({ type: 'run.error', error: { name: 'E', message: 'm', stack: 's' } }),
    ).toBe('E\nm');
    // Not a record: no text, never a throw.
    for (const value of [
      null,
      3,
      'text',
      [],
      { type: 7, text: 'x' },
      { type: 'run.start', input: 'x' },
    ]) {
      expect(searchTextOfRunRecord(value)).toBe('');
    }
  });

  it('reads a stored line: a damaged line gives no text; type and time come with the text', () => {
    expect(searchTextOfRunLine('{"type":"run.end","final":"done"}')).toBe('done');
    expect(searchTextOfRunLine('{"type":"run.end","final":')).toBe('');
    expect(
      searchFieldsOfRunLine('{"type":"run.status","ts":"2026-01-01T01:00:00+01:00","message":"m"}'),
    ).toEqual({
      text: 'm',
      type: 'run.status',
      tsMs: Date.UTC(2026, 0, 1),
    });
    expect(searchFieldsOfRunLine('\u0000\u0000')).toEqual({ text: '', type: '', tsMs: null });
  });
});

describe('run search cursors', () => {
  it('round-trip and refuse anything else', () => {
    const after = { score: 1.25, runId: RUN, position: 4 };
    expect(decodeRunSearchCursor(encodeRunSearchCursor(after))).toEqual(after);
    for (const bad of [
      'r1.',
      'r1.!!',
      `r1.${btoa('[1,"x",2]')}`,
      `r1.${btoa(`[1,"${RUN}",0]`)}`,
      's1.WzEsMl0=',
    ]) {
      expect(() => decodeRunSearchCursor(bad)).toThrow(/not a cursor/);
    }
  });
});
