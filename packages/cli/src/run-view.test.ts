import { describe, expect, it } from 'vitest';
import { describeRecord } from './run-view.js';

const base = { run_id: '00000000-0000-4000-8000-000000000001', ts: '2026-03-01T10:00:00.000Z' };

describe('describeRecord', () => {
  it('shows the summary a custom record carries (a LangGraph checkpoint, say)', () => {
    expect(
      describeRecord({
        ...base,
        type: 'x.langgraph.checkpoint',
        summary: 'checkpoint 1ef… step 3 (loop): messages +1',
      }),
    ).toBe('checkpoint 1ef… step 3 (loop): messages +1');
  });

  it('shows nothing for a custom record without a summary, or with one that is not text', () => {
    expect(describeRecord({ ...base, type: 'x.acme.metric', value: 3 })).toBe('');
    expect(describeRecord({ ...base, type: 'x.acme.metric', summary: { text: 'x' } })).toBe('');
  });
});
