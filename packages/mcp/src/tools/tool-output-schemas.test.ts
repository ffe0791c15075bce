import { createRunRecorder } from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConnectedClient,
  CREATE_ARGUMENTS,
  connect,
  countingStores,
  UNKNOWN_ID,
} from '../__fixtures__/mcp-harness.js';
import { EPISODIC_TOOL_NAMES } from './tool-catalog.js';
import { EPISODIC_TOOL_OUTPUT_SCHEMAS, toolErrorBodySchema } from './tool-output-schemas.js';

// Every tool's real answer, from an in-process server, matches its published output schema (and
// every error its error schema), so the schemas cannot drift from what clients receive.

const open: ConnectedClient[] = [];
afterEach(async () => {
  for (const connected of open.splice(0)) await connected.close();
});

describe('tool output schemas', () => {
  it('describe the answer of every tool, including errors', async () => {
    const { stores } = countingStores();
    const mcp = await connect({ stores, scope: 'schemas' });
    open.push(mcp);
    const seen = new Set<string>();
    const check = async (name: (typeof EPISODIC_TOOL_NAMES)[number], args: unknown) => {
      const outcome = await mcp.call(name, args);
      expect(outcome.isError, outcome.text).toBe(false);
      const parsed = EPISODIC_TOOL_OUTPUT_SCHEMAS[name].safeParse(outcome.body);
      expect(parsed.success, `${name}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      seen.add(name);
      return outcome.body;
    };
    const created = await check('create_episode', {
      ...CREATE_ARGUMENTS,
      metadata: { team: 'core' },
    });
    const id = created.episode_id as string;
    await check('add_episode_step', {
      episode_id: id,
      step_number: 1,
      tool: 'code_generator',
      action: 'Check if the token is valid',
      result: { type: 'error', message: 'Expired token' },
      latency_ms: 12,
    });
    await check('add_episode_step', {
      episode_id: id,
      step_number: 2,
      tool: 'test_runner',
      action: 'Run the tests',
      result: { type: 'success', output: 'ok' },
    });
    await check('complete_episode', {
      episode_id: id,
      outcome_type: 'success',
      verdict: 'Done',
      artifacts: ['auth.rs'],
    });
    await check('get_episode', { episode_id: id });
    await check('get_episode_timeline', { episode_id: id });
    await check('search_patterns', { domain: 'web-api' });
    await stores.ledger.append({
      scope: 'schemas',
      session_id: 'sess-1',
      agent_id: 'planner',
      type: 'conversation.user',
      summary: 'asked',
      payload: { text: 'hi' },
      metadata: { team: 'core' },
    });
    await check('memory_episodes_query', { includePayload: true });
    await check('replay_session', { session_id: 'sess-1' });
    const recorder = createRunRecorder({ store: stores.runs });
    await recorder.start('hello');
    await recorder.agentEvent({ type: 'final', content: 'hi' });
    await recorder.complete();
    await check('replay_session', { session_id: recorder.sessionId, source: 'runs' });
    await check('list_runs', {});
    await check('delete_episode', { episode_id: id, confirm: true });
    expect([...seen].sort()).toEqual([...EPISODIC_TOOL_NAMES].sort());

    for (const [name, args] of [
      ['get_episode', { episode_id: UNKNOWN_ID }],
      ['add_episode_step', { episode_id: 'nope' }],
      ['delete_episode', { episode_id: UNKNOWN_ID }],
    ] as const) {
      const outcome = await mcp.call(name, args);
      expect(outcome.isError).toBe(true);
      expect(toolErrorBodySchema.safeParse(outcome.body).success, outcome.text).toBe(true);
    }
  });

  it('reject an answer that lacks a field clients rely on', () => {
    expect(
      EPISODIC_TOOL_OUTPUT_SCHEMAS.list_runs.safeParse({ success: true, scope: 's', count: 0 })
        .success,
    ).toBe(false);
    expect(
      EPISODIC_TOOL_OUTPUT_SCHEMAS.list_runs.safeParse({
        success: true,
        truncated: true,
        note: 'too large',
      }).success,
    ).toBe(true);
    expect(toolErrorBodySchema.safeParse({ error: 'x', code: 'TEAPOT' }).success).toBe(false);
  });
});
