import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../schema/run-record.js';
import { replayRun, replaySession } from './replay.js';

const TS = '2026-02-03T12:00:00.000Z';

function run(runId: string, events: number[], text = `input of ${runId}`): RunRecord[] {
  return [
    { type: 'header', schema_version: 1, run_id: runId, started_at: TS },
    {
      type: 'run.start',
      run_id: runId,
      ts: TS,
      input: { type: 'text', text },
      ui_context: { cwd: '/p' },
    },
    { type: 'run.status', run_id: runId, ts: TS, status: 'running' },
    ...events.map(
      (seq): RunRecord => ({
        type: 'agent.event',
        run_id: runId,
        ts: TS,
        seq,
        event: { type: 'text', n: seq },
      }),
    ),
    { type: 'llm.request', run_id: runId, ts: TS, seq: 1, input: { messages: [] } },
    { type: 'x.acme.note', run_id: runId, ts: TS },
    { type: 'run.end', run_id: runId, ts: TS, outcome: 'completed' },
  ];
}

describe('replayRun', () => {
  it('plays run.start as a hidden user message with seq -1, then agent events in seq order', () => {
    const { events, truncated } = replayRun(run('r1', [2, 0, 1]));
    expect(truncated).toBe(false);
    expect(events[0]).toEqual({
      kind: 'user_message',
      runId: 'r1',
      seq: -1,
      ts: TS,
      hidden: true,
      message: { role: 'user', content: 'input of r1' },
      uiContext: { cwd: '/p' },
    });
    expect(
      events.slice(1).map((event) => (event.kind === 'agent_event' ? event.event.n : null)),
    ).toEqual([0, 1, 2]);
    expect(events.map((event) => event.seq)).toEqual([-1, 0, 1, 2]);
  });

  it('keeps the stored order of events that share a seq', () => {
    const records = run('r1', [0, 1, 1]);
    (records[5] as unknown as { event: { n: number } }).event.n = 99;
    const { events } = replayRun(records);
    expect(
      events.slice(1).map((event) => (event.kind === 'agent_event' ? event.event.n : null)),
    ).toEqual([0, 1, 99]);
  });

  it('keeps the newest maxEvents events and says it truncated', () => {
    const { events, truncated } = replayRun(run('r1', [0, 1, 2, 3, 4]), { maxEvents: 3 });
    expect(truncated).toBe(true);
    expect(events.map((event) => event.seq)).toEqual([2, 3, 4]);
    expect(replayRun(run('r1', [0, 1]), { maxEvents: 3 }).truncated).toBe(false);
  });

  it('plays a crashed run (no run.end) and a run without run.start', () => {
    const crashed = run('r1', [0, 1]).slice(0, 5);
    expect(replayRun(crashed).events).toHaveLength(3);
    expect(
      replayRun(run('r1', [0]).filter((record) => record.type !== 'run.start')).events.map(
        (event) => event.seq,
      ),
    ).toEqual([0]);
  });

  it('rejects bad input with VALIDATION_ERROR', () => {
    expect(() => replayRun(run('r1', []), { maxEvents: 0 })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
    expect(() => replayRun('nope' as never)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
    expect(() => replayRun(run('r1', []), { maxEvent: 3 } as never)).toThrow(/maxEvent/);
  });
});

describe('replaySession', () => {
  it('replays runs oldest first with the defaults maxRuns 20 and maxEvents 1500', () => {
    const runs = Array.from({ length: 25 }, (_, index) => run(`r${index}`, [0, 1]));
    const result = replaySession(runs);
    expect(result.truncated).toBe(true);
    expect(result.runIds).toEqual(Array.from({ length: 20 }, (_, index) => `r${index + 5}`));
    expect(result.events).toHaveLength(60);
    expect(result.events[0]).toMatchObject({ kind: 'user_message', runId: 'r5' });
  });

  it('bounds the events over all runs, keeping the newest', () => {
    const result = replaySession([run('a', [0, 1, 2]), run('b', [0, 1])], { maxEvents: 4 });
    expect(result.truncated).toBe(true);
    expect(result.events.map((event) => `${event.runId}:${event.seq}`)).toEqual([
      'a:2',
      'b:-1',
      'b:0',
      'b:1',
    ]);
    expect(result.runIds).toEqual(['a', 'b']);
  });

  it('is not truncated when everything fits', () => {
    const result = replaySession([run('a', [0]), run('b', [0])], { maxRuns: 2, maxEvents: 4 });
    expect(result.truncated).toBe(false);
    expect(result.events).toHaveLength(4);
    expect(replaySession([]).events).toEqual([]);
  });

  it('rejects bad bounds', () => {
    expect(() => replaySession([], { maxRuns: -1 })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
  });
});
