import { completedRun, runIdFor } from '@episodic/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConnectedClient,
  CREATE_ARGUMENTS,
  connect,
  countingStores,
} from '../__fixtures__/mcp-harness.js';
import type { EpisodicMcpStores } from '../episodic-tools.js';

// Pins the scope rule of DESIGN.md §6 and QUALITY.md ("scope isolation: 0 cross-scope results"):
// a server is bound to one scope, and no tool ever returns, changes or counts another scope's data.

const open: ConnectedClient[] = [];
async function serve(stores: EpisodicMcpStores, scope?: string, policy?: object) {
  const connected = await connect({
    stores,
    ...(scope === undefined ? {} : { scope }),
    ...(policy === undefined ? {} : { policy: policy as never }),
  });
  open.push(connected);
  return connected;
}
afterEach(async () => {
  for (const connected of open.splice(0)) await connected.close();
});

async function completedTask(client: ConnectedClient, extra: Record<string, unknown> = {}) {
  const id = (await client.call('create_episode', { ...CREATE_ARGUMENTS, ...extra })).body
    .episode_id as string;
  for (const [index, tool] of ['planner', 'coder'].entries()) {
    await client.call('add_episode_step', {
      episode_id: id,
      step_number: index + 1,
      tool,
      action: index === 0 ? 'Check if the keys exist' : 'Write the middleware',
      result: { type: 'success', output: 'ok' },
    });
  }
  await client.call('complete_episode', { episode_id: id, outcome_type: 'success', verdict: 'ok' });
  return id;
}

describe('scope isolation', () => {
  it("never lets one scope read, change or delete another scope's task episodes and patterns", async () => {
    const { stores } = countingStores();
    const teamA = await serve(stores, 'team-a');
    const teamB = await serve(stores, 'team-b');
    const id = await completedTask(teamA);

    for (const [tool, args] of [
      ['get_episode', { episode_id: id }],
      ['get_episode_timeline', { episode_id: id }],
      ['add_episode_step', { episode_id: id, step_number: 9, tool: 't', action: 'a' }],
      ['complete_episode', { episode_id: id, outcome_type: 'success', verdict: 'v' }],
      ['delete_episode', { episode_id: id, confirm: true }],
    ] as const) {
      const outcome = await teamB.call(tool, args);
      // Exactly the answer for an id that does not exist: nothing says the task is elsewhere.
      expect(outcome.body, tool).toEqual({
        code: 'NOT_FOUND',
        error: `Task episode ${id} was not found. Check the episode_id (it is returned by create_episode), or create the task first.`,
      });
    }
    expect((await teamB.call('list_runs')).body.runs).toEqual([]);
    expect((await teamB.call('search_patterns')).body.patterns).toEqual([]);
    expect((await teamB.call('search_patterns', { domain: 'web-api' })).body.patterns).toEqual([]);

    const stillThere = await teamA.call('get_episode', { episode_id: id });
    expect(stillThere.body.episode.steps).toHaveLength(2);
    expect(
      (await teamA.call('list_runs')).body.runs.map((run: { run_id: string }) => run.run_id),
    ).toEqual([id]);
    expect((await teamA.call('search_patterns')).body.count).toBeGreaterThan(0);
  });

  it('keeps the same pattern learned in two scopes as two artifacts', async () => {
    const { stores } = countingStores();
    const teamA = await serve(stores, 'team-a');
    const teamAB = await serve(stores, 'team-a/b');
    const taskA = await completedTask(teamA, { metadata: { tenant: 'acme' } });
    const taskAB = await completedTask(teamAB, { metadata: { tenant: 'globex' } });
    const patternsA = (await teamA.call('search_patterns')).body.patterns;
    const patternsAB = (await teamAB.call('search_patterns')).body.patterns;
    expect(patternsA.map((pattern: { key: string }) => pattern.key)).toEqual(
      patternsAB.map((pattern: { key: string }) => pattern.key),
    );
    for (const pattern of patternsA) {
      expect(pattern.episode_ids).toEqual([taskA]);
      expect(pattern.effective_metadata).toEqual({ tenant: ['acme'] });
    }
    for (const pattern of patternsAB) expect(pattern.episode_ids).toEqual([taskAB]);
    await teamA.call('delete_episode', { episode_id: taskA, confirm: true });
    expect((await teamA.call('search_patterns')).body.patterns).toEqual([]);
    expect((await teamAB.call('search_patterns')).body.count).toBe(patternsAB.length);
  });

  it('keeps ledger reads in the bound scope', async () => {
    const { stores } = countingStores();
    for (const scope of ['team-a', 'team-b']) {
      await stores.ledger.append({
        scope,
        session_id: 'shared-session',
        agent_id: 'worker',
        type: 'ops.decision',
        summary: `decided in ${scope}`,
      });
    }
    const teamB = await serve(stores, 'team-b');
    const query = await teamB.call('memory_episodes_query', { sessionId: 'shared-session' });
    expect(query.body.events.map((event: { summary: string }) => event.summary)).toEqual([
      'decided in team-b',
    ]);
    const replay = await teamB.call('replay_session', { session_id: 'shared-session' });
    expect(replay.body.events.map((event: { summary: string }) => event.summary)).toEqual([
      'decided in team-b',
    ]);
  });

  it('puts runs recorded without a scope in the default scope only', async () => {
    const { stores } = countingStores();
    await stores.runs.append(runIdFor(1), completedRun(runIdFor(1)));
    const fallback = await serve(stores);
    const named = await serve(stores, 'team-a');
    const listed = (await fallback.call('list_runs')).body.runs;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ run_id: runIdFor(1), kind: 'run', status: 'completed' });
    expect((await named.call('list_runs')).body.runs).toEqual([]);
  });
});

describe('access policies', () => {
  it('restricts a connection to task episodes, events and patterns its policy allows', async () => {
    const { stores } = countingStores();
    const policy = { required: { tenant: 'acme' } };
    const open = await serve(stores, 'team');
    const acmeOnly = await serve(stores, 'team', policy);

    const refused = await acmeOnly.call('create_episode', CREATE_ARGUMENTS);
    expect(refused.body.code).toBe('VALIDATION_ERROR');
    expect(refused.body.error).toContain('tenant = "acme"');
    const mine = await completedTask(acmeOnly, { metadata: { tenant: 'acme' } });
    const theirs = await completedTask(open, { metadata: { tenant: 'globex' } });
    const untagged = await completedTask(open);

    for (const id of [theirs, untagged]) {
      expect((await acmeOnly.call('get_episode', { episode_id: id })).body.code).toBe('NOT_FOUND');
      expect(
        (await acmeOnly.call('delete_episode', { episode_id: id, confirm: true })).body.code,
      ).toBe('NOT_FOUND');
    }
    expect((await acmeOnly.call('get_episode', { episode_id: mine })).isError).toBe(false);
    expect(
      (await acmeOnly.call('list_runs')).body.runs.map((run: { run_id: string }) => run.run_id),
    ).toEqual([mine]);
    expect((await open.call('list_runs')).body.runs).toHaveLength(3);
    for (const pattern of (await acmeOnly.call('search_patterns')).body.patterns) {
      expect(pattern.episode_ids).toEqual([mine]);
    }

    for (const tenant of ['acme', 'globex', undefined]) {
      await stores.ledger.append({
        scope: 'team',
        session_id: 's',
        agent_id: 'a',
        type: 'ops.decision',
        summary: `for ${tenant}`,
        ...(tenant === undefined ? {} : { metadata: { tenant } }),
      });
    }
    const events = (await acmeOnly.call('memory_episodes_query', {})).body.events;
    expect(events.map((event: { summary: string }) => event.summary)).toEqual(['for acme']);
    expect((await open.call('memory_episodes_query', {})).body.events).toHaveLength(3);
  });
});
