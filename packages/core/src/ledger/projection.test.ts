import { describe, expect, it } from 'vitest';
import { createEpisodic } from '../episodic/create-episodic.js';
import type { RunRecord } from '../schema/run-record.js';
import { createMemoryLedger } from '../store/memory-ledger.js';
import { projectEpisodes, projectRunRecords } from './projection.js';

const RUN = '8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a';
const SESSION = 'f6d2c6d5-4a12-4cc4-bbc9-9a0c0d2b5af1';

function sampleLog() {
  let tick = 0;
  const log = createEpisodic(undefined, {
    now: () => new Date(Date.UTC(2026, 1, 3, 12, 0, tick++)),
  });
  const turnId = 'turn-1';
  log.appendItems([{ type: 'message', role: 'system', content: 'You are a coding assistant.' }], {
    source: 'runtime',
  });
  log.appendItems([{ type: 'message', role: 'user', content: 'List the files.' }], {
    source: 'user',
    turnId,
  });
  log.appendItems(
    [{ type: 'function_call', call_id: 'call_1', name: 'list_files', arguments: '{"path":"."}' }],
    { source: 'model', turnId },
  );
  log.appendItems([{ type: 'function_call_output', call_id: 'call_1', output: 'a.md\nb.md\n' }], {
    source: 'tool',
    turnId,
  });
  log.appendItems(
    [
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Two files.' }],
      },
    ],
    { source: 'model', turnId },
  );
  log.append({
    type: 'boundary',
    meta: { turnId },
    payload: { reason: 'checkpoint', title: 'files listed', content: 'a.md, b.md' },
  });
  log.append({ type: 'boundary', payload: { reason: 'interrupt', title: 'user pressed stop' } });
  log.append({ type: 'meta', payload: { event: 'turn.usage', data: { inputTokens: 10 } } });
  log.append({
    type: 'meta',
    payload: { event: 'error.parse', data: { count: 1, errors: ['line 3: bad'] } },
  });
  return log.read({ fromId: 0 });
}

describe('projectEpisodes', () => {
  it('maps roles, calls, outputs, boundaries and errors to the six types', () => {
    const events = projectEpisodes(sampleLog(), {
      scope: 'team-a',
      sessionId: SESSION,
      agentId: 'demo',
    });
    expect(events.map((event) => [event.type, event.summary])).toEqual([
      ['conversation.user', 'List the files.'],
      ['tool.call', 'call list_files'],
      ['tool.result', 'result of list_files (10 bytes)'],
      ['conversation.assistant', 'Two files.'],
      ['ops.decision', 'checkpoint: files listed'],
      ['ops.alert', 'interrupt: user pressed stop'],
      ['ops.alert', 'error.parse'],
    ]);
    expect(events[2]?.payload).toEqual({
      call_id: 'call_1',
      name: 'list_files',
      output_bytes: 10,
      output_lines: 2,
    });
    expect(JSON.stringify(events[2])).not.toContain('a.md');
    expect(events[0]).toMatchObject({
      session_id: SESSION,
      agent_id: 'demo',
      scope: 'team-a',
      refs: { episode_id: 2, turn_id: 'turn-1' },
    });
    expect(events[0]?.ts_ms).toBe(Date.UTC(2026, 1, 3, 12, 0, 1));
  });

  it('derives the same event ids every time, different ones per scope and session', () => {
    const episodes = sampleLog();
    const first = projectEpisodes(episodes, { scope: 'team-a', sessionId: SESSION });
    const again = projectEpisodes(episodes, { scope: 'team-a', sessionId: SESSION });
    expect(again.map((event) => event.event_id)).toEqual(first.map((event) => event.event_id));
    expect(new Set(first.map((event) => event.event_id)).size).toBe(first.length);
    const other = projectEpisodes(episodes, { scope: 'team-b', sessionId: SESSION });
    expect(other.some((event) => first.some((mine) => mine.event_id === event.event_id))).toBe(
      false,
    );
  });

  it('re-projecting into a ledger is idempotent', async () => {
    const ledger = createMemoryLedger();
    const events = projectEpisodes(sampleLog(), { scope: 'team-a', sessionId: SESSION });
    const first = await ledger.appendBatch(events);
    const second = await ledger.appendBatch(
      projectEpisodes(sampleLog(), { scope: 'team-a', sessionId: SESSION }),
    );
    expect(first.every((receipt) => !receipt.duplicate)).toBe(true);
    expect(second.every((receipt) => receipt.duplicate)).toBe(true);
    expect((await ledger.replay(SESSION, { scope: 'team-a' })).events).toHaveLength(7);
  });

  it('truncates long text on code-point boundaries', () => {
    const long = '😀'.repeat(3000);
    const log = createEpisodic();
    log.appendItems([{ type: 'message', role: 'user', content: long }], { source: 'user' });
    const [event] = projectEpisodes(log.read({ fromId: 0 }), {
      scope: 'x',
      sessionId: 's',
      summaryBytes: 10,
      textBytes: 4001,
    });
    expect(event?.summary).toBe('😀😀');
    expect(event?.payload).toEqual({ role: 'user', text: '😀'.repeat(1000) });
  });
});

describe('projectRunRecords', () => {
  const records = [
    {
      type: 'header',
      schema_version: 1,
      run_id: RUN,
      session_id: SESSION,
      started_at: '2026-02-03T12:00:00.123Z',
    },
    {
      type: 'run.start',
      run_id: RUN,
      ts: '2026-02-03T12:00:00.456Z',
      input: { type: 'text', text: 'list files' },
    },
    {
      type: 'llm.request',
      run_id: RUN,
      ts: '2026-02-03T12:00:01.000Z',
      seq: 1,
      input: { messages: [] },
    },
    {
      type: 'llm.response',
      run_id: RUN,
      ts: '2026-02-03T12:00:02.100Z',
      seq: 1,
      output: {
        messages: [
          {
            role: 'assistant',
            content: 'Listing.',
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'exec_command', arguments: '{"cmd":"ls"}' },
              },
            ],
          },
        ],
      },
    },
    {
      type: 'agent.event',
      run_id: RUN,
      ts: '2026-02-03T12:00:02.150Z',
      seq: 0,
      event: { type: 'tool_call' },
    },
    {
      type: 'tool.output',
      run_id: RUN,
      ts: '2026-02-03T12:00:02.600Z',
      tool: 'exec_command',
      tool_call_id: 'call_1',
      result_raw: 'AGENTS.md\nRULES.md\npackages\n',
      output_ref: { id: 'call_1' },
    },
    {
      type: 'run.status',
      run_id: RUN,
      ts: '2026-02-03T12:00:02.650Z',
      status: 'cancelled',
      message: 'user stop',
    },
    {
      type: 'run.error',
      run_id: RUN,
      ts: '2026-02-03T12:00:02.700Z',
      error: { name: 'Error', message: 'boom', stack: 'Error: boom\n    at x (/a.js:1:2)' },
    },
    {
      type: 'run.end',
      run_id: RUN,
      ts: '2026-02-03T12:00:02.800Z',
      outcome: 'completed',
      final: 'Here are the files.',
    },
    { type: 'x.acme.note', run_id: RUN, ts: '2026-02-03T12:00:02.900Z' },
    { type: 'run.end', run_id: RUN, outcome: 'completed' },
  ] as unknown as RunRecord[];

  it('works from each record type, skips snapshots, UI events, custom and invalid records', () => {
    const events = projectRunRecords(records, { scope: 'team-a' });
    expect(events.map((event) => [event.type, event.summary])).toEqual([
      ['conversation.user', 'list files'],
      ['conversation.assistant', 'Listing.'],
      ['tool.call', 'call exec_command'],
      ['tool.result', 'result of exec_command (28 bytes)'],
      ['ops.alert', 'run cancelled: user stop'],
      ['ops.alert', 'run error: Error: boom'],
      ['ops.decision', 'run completed'],
    ]);
    for (const event of events) expect(event.session_id).toBe(SESSION);
    expect(JSON.stringify(events)).not.toContain('at x (/a.js');
    expect(events[3]?.refs).toEqual({
      run_id: RUN,
      record_type: 'tool.output',
      call_id: 'call_1',
      output_ref: 'call_1',
    });
    expect(events[0]?.ts_ms).toBe(Date.parse('2026-02-03T12:00:00.456Z'));
  });

  it('is deterministic and idempotent when appended again', async () => {
    const ledger = createMemoryLedger();
    const first = projectRunRecords(records, { scope: 'team-a' });
    expect(projectRunRecords(records, { scope: 'team-a' }).map((event) => event.event_id)).toEqual(
      first.map((event) => event.event_id),
    );
    await ledger.appendBatch(first);
    const again = await ledger.appendBatch(projectRunRecords(records, { scope: 'team-a' }));
    expect(again.every((receipt) => receipt.duplicate)).toBe(true);
  });
});
