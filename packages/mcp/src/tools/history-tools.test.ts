import { agentEvent, completedRun, runIdFor } from '@episodic/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConnectedClient,
  CREATE_ARGUMENTS,
  connect,
  countingStores,
} from '../__fixtures__/mcp-harness.js';
import type { EpisodicToolsOptions } from '../episodic-tools.js';

const open: ConnectedClient[] = [];
async function serve(options: EpisodicToolsOptions) {
  const connected = await connect(options);
  open.push(connected);
  return connected;
}
afterEach(async () => {
  for (const connected of open.splice(0)) await connected.close();
});

const SESSION = '5b0d1a8e-2c3f-4a5b-8c6d-7e8f9a0b1c2d';
const T0 = Date.parse('2026-01-21T10:00:00.000Z');

async function seedLedger(stores: EpisodicToolsOptions['stores'] & object) {
  const ledger = (stores as { ledger: import('@episodic/core').Ledger }).ledger;
  const events = [
    ['conversation.user', 'Asked for status', { intent: 'status' }, { priority: 1 }],
    ['tool.call', 'call list_files', { path: '.' }, { priority: 5 }],
    ['tool.result', 'listed 3 files', { count: 3 }, undefined],
    ['conversation.assistant', 'Answered', null, { priority: 3 }],
    ['ops.decision', 'Chose token bucket', { algorithm: 'token-bucket' }, { priority: 9 }],
  ] as const;
  for (const [index, [type, summary, payload, metadata]] of events.entries()) {
    await ledger.append({
      scope: 'proj',
      session_id: index < 4 ? 'sess-001' : 'sess-002',
      agent_id: 'lyria',
      type,
      summary,
      ts_ms: T0 + index * 1000,
      ...(payload === null ? {} : { payload }),
      refs: { recordRef: `obs:${index}` },
      ...(metadata === undefined ? {} : { metadata }),
    });
  }
}

describe('memory_episodes_query (seed 002)', () => {
  it('is summary-only by default and filters by session, types, time and metadata', async () => {
    const { stores } = countingStores();
    await seedLedger(stores);
    const mcp = await serve({ stores, scope: 'proj' });
    const all = await mcp.call('memory_episodes_query', {});
    expect(all.body).toMatchObject({ success: true, scope: 'proj', count: 5, next_after_id: null });
    expect(all.body.events[0]).toMatchObject({
      ts_ms: T0,
      ts: '2026-01-21T10:00:00.000Z',
      session_id: 'sess-001',
      agent_id: 'lyria',
      type: 'conversation.user',
      summary: 'Asked for status',
      refs: { recordRef: 'obs:0' },
      redacted: false,
      position: 1,
      metadata: { priority: 1 },
    });
    expect(all.body.events[0]).not.toHaveProperty('payload');
    const payloads = await mcp.call('memory_episodes_query', { includePayload: true, limit: 1 });
    expect(payloads.body.events[0].payload).toEqual({ intent: 'status' });

    const summaries = async (args: Record<string, unknown>) =>
      (await mcp.call('memory_episodes_query', args)).body.events.map(
        (event: { summary: string }) => event.summary,
      );
    expect(await summaries({ sessionId: 'sess-002' })).toEqual(['Chose token bucket']);
    expect(await summaries({ types: ['tool.call', 'tool.result'] })).toEqual([
      'call list_files',
      'listed 3 files',
    ]);
    expect(await summaries({ fromTs: T0 + 1000, toTs: '2026-01-21T10:00:02.000Z' })).toEqual([
      'call list_files',
      'listed 3 files',
    ]);
    expect(
      await summaries({
        metadata: {
          type: 'and',
          filters: [{ property_name: 'priority', comparison_operator: '>=', property_value: 3 }],
        },
      }),
    ).toEqual(['call list_files', 'Answered', 'Chose token bucket']);
  });

  it('pages with afterId = next_after_id, losing and repeating nothing', async () => {
    const { stores } = countingStores();
    await seedLedger(stores);
    const mcp = await serve({ stores, scope: 'proj' });
    const seen: string[] = [];
    let afterId: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await mcp.call('memory_episodes_query', {
        limit: 2,
        ...(afterId === undefined ? {} : { afterId }),
      });
      seen.push(...result.body.events.map((event: { summary: string }) => event.summary));
      if (result.body.next_after_id === null) break;
      afterId = result.body.next_after_id;
    }
    expect(seen).toEqual([
      'Asked for status',
      'call list_files',
      'listed 3 files',
      'Answered',
      'Chose token bucket',
    ]);
  });

  it('returns fewer events, with a cursor, when they would not fit the result size', async () => {
    const { stores } = countingStores();
    for (let index = 0; index < 12; index++) {
      await stores.ledger.append({
        scope: 'proj',
        session_id: 'big',
        agent_id: 'a',
        type: 'ops.decision',
        summary: `decision ${index}`,
        payload: { note: `${index} `.repeat(900) },
        ts_ms: T0 + index,
      });
    }
    const mcp = await serve({ stores, scope: 'proj', maxResultChars: 12_000 });
    const seen: string[] = [];
    let afterId: string | undefined;
    for (let page = 0; page < 20; page++) {
      const result = await mcp.call('memory_episodes_query', {
        includePayload: true,
        limit: 12,
        ...(afterId === undefined ? {} : { afterId }),
      });
      expect(result.text.length).toBeLessThanOrEqual(12_000);
      seen.push(...result.body.events.map((event: { summary: string }) => event.summary));
      if (result.body.next_after_id === null) break;
      expect(result.body.truncated).toBe(true);
      afterId = result.body.next_after_id;
    }
    expect(seen).toEqual(Array.from({ length: 12 }, (_, index) => `decision ${index}`));
  });
});

describe('replay_session', () => {
  it('replays a session from the ledger in order, page by page', async () => {
    const { stores } = countingStores();
    await seedLedger(stores);
    const mcp = await serve({ stores, scope: 'proj' });
    const first = await mcp.call('replay_session', { session_id: 'sess-001', limit: 3 });
    expect(first.body).toMatchObject({
      success: true,
      session_id: 'sess-001',
      source: 'ledger',
      count: 3,
    });
    expect(first.body.events.map((event: { position: number }) => event.position)).toEqual([
      1, 2, 3,
    ]);
    const rest = await mcp.call('replay_session', {
      session_id: 'sess-001',
      after_id: first.body.next_after_id,
      include_payload: true,
    });
    expect(rest.body.events).toHaveLength(1);
    expect(rest.body.events[0]).toMatchObject({ summary: 'Answered', position: 4 });
    expect(rest.body.next_after_id).toBeNull();
  });

  it("replays a session's runs as UI events: inputs as hidden user messages, then agent events", async () => {
    const { stores } = countingStores();
    await stores.runs.append(runIdFor(1), completedRun(runIdFor(1), 2, SESSION));
    await stores.runs.append(runIdFor(2), [
      ...completedRun(runIdFor(2), 0, SESSION).slice(0, 3),
      agentEvent(runIdFor(2), 1),
      agentEvent(runIdFor(2), 0),
    ]);
    await stores.runs.append(
      runIdFor(3),
      completedRun(runIdFor(3), 1, '9c8b7a6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d'),
    );
    const mcp = await serve({ stores });
    const replay = await mcp.call('replay_session', { session_id: SESSION, source: 'runs' });
    expect(replay.body).toMatchObject({ success: true, source: 'runs', truncated: false });
    expect(replay.body.run_ids.sort()).toEqual([runIdFor(1), runIdFor(2)].sort());
    const ofRun2 = replay.body.events.filter(
      (event: { run_id: string }) => event.run_id === runIdFor(2),
    );
    expect(ofRun2.map((event: { kind: string; seq: number }) => [event.kind, event.seq])).toEqual([
      ['user_message', -1],
      ['agent_event', 0],
      ['agent_event', 1],
    ]);
    expect(ofRun2[0]).toMatchObject({
      hidden: true,
      message: { role: 'user', content: 'list files' },
    });
    const bounded = await mcp.call('replay_session', {
      session_id: SESSION,
      source: 'runs',
      max_events: 2,
    });
    expect(bounded.body).toMatchObject({ count: 2, truncated: true });
  });
});

describe('list_runs', () => {
  it("lists the scope's runs newest first, filtered by session, time and kind", async () => {
    const { stores } = countingStores();
    let clock = Date.parse('2026-03-01T00:00:00.000Z');
    const now = () => {
      clock += 60_000;
      return new Date(clock);
    };
    const mcp = await serve({ stores, now });
    const first = (await mcp.call('create_episode', { ...CREATE_ARGUMENTS, session_id: SESSION }))
      .body.episode_id;
    const second = (await mcp.call('create_episode', CREATE_ARGUMENTS)).body.episode_id;
    await stores.runs.append(runIdFor(7), completedRun(runIdFor(7), 1, SESSION));
    const all = (await mcp.call('list_runs')).body;
    expect(all.runs.map((run: { run_id: string }) => run.run_id)).toEqual([
      second,
      first,
      runIdFor(7),
    ]);
    expect(all.runs[0]).toMatchObject({
      kind: 'task',
      task_type: 'code_generation',
      task_description: 'Implement JWT-based authentication',
      status: 'running',
      ended: false,
    });
    expect(all.runs[2]).toMatchObject({ kind: 'run', input: 'list files', outcome: 'completed' });
    const ids = async (args: Record<string, unknown>) =>
      (await mcp.call('list_runs', args)).body.runs.map((run: { run_id: string }) => run.run_id);
    expect(await ids({ session_id: SESSION.toUpperCase() })).toEqual([first, runIdFor(7)]);
    expect(await ids({ tasks_only: true })).toEqual([second, first]);
    expect(await ids({ tasks_only: true, limit: 1 })).toEqual([second]);
    expect(await ids({ from: '2026-03-01T00:01:30Z' })).toEqual([second]);
  });
});
