import { createRunRecorder } from '@episodic/core';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConnectedClient,
  CREATE_ARGUMENTS,
  connect,
  countingStores,
  UNKNOWN_ID,
} from '../__fixtures__/mcp-harness.js';
import { portabilityFindings } from '../__fixtures__/schema-portability.js';
import { createEpisodicMcpServer } from '../episodic-mcp-server.js';
import { EPISODIC_TOOL_NAMES } from './tool-catalog.js';
import { EPISODIC_TOOL_OUTPUT_SCHEMAS, toolErrorBodySchema } from './tool-output-schemas.js';

// Every tool's real answer, from an in-process server, matches its published output schema (and
// every error its error schema), so the schemas cannot drift from what clients receive. The answer
// travels twice: as JSON text (for clients that predate structuredContent) and as structuredContent,
// which the official client checks against the tool's advertised outputSchema (the harness lists
// the tools first, so every call below is checked; it also fails a call whose structuredContent is
// not the text's JSON).

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
    await check('search_history', { query: 'asked' });
    await check('verify_history', {});
    await check('replay_session', { session_id: 'sess-1' });
    const recorder = createRunRecorder({ store: stores.runs });
    await recorder.start('hello');
    await recorder.agentEvent({ type: 'final', content: 'hi' });
    await recorder.complete();
    await check('replay_session', { session_id: recorder.sessionId, source: 'runs' });
    await check('list_runs', {});
    await check('search_runs', { query: 'hello' });
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

  it("are advertised as each tool's outputSchema, portable, and enforced by the client", async () => {
    const { stores } = countingStores();
    const mcp = await connect({ stores, scope: 'schemas' });
    open.push(mcp);
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...EPISODIC_TOOL_NAMES]);
    const findings: string[] = [];
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      for (const [kind, schema] of [
        ['inputSchema', tool.inputSchema],
        ['outputSchema', tool.outputSchema],
      ] as const) {
        for (const finding of portabilityFindings(schema))
          findings.push(`${tool.name} ${kind} ${finding}`);
      }
    }
    expect(findings).toEqual([]);

    // The client really checks: the same answer against a schema it does not satisfy is refused.
    const listRuns = tools.find((tool) => tool.name === 'list_runs');
    expect(listRuns).toBeDefined();
    const stricter = {
      ...listRuns,
      outputSchema: { type: 'object', required: ['not_a_field'] },
    } as NonNullable<typeof listRuns>;
    await expect(
      mcp.client.callTool({ name: 'list_runs', arguments: {} }, { toolDefinition: stricter }),
    ).rejects.toThrow(/output schema/);
    const answered = await mcp.call('list_runs', {});
    expect(answered.structured).toEqual({ success: true, scope: 'schemas', count: 0, runs: [] });
  });

  it('keep the same text for a client that predates structuredContent', async () => {
    const { stores } = countingStores();
    const modern = await connect({ stores, scope: 'old' });
    open.push(modern);
    const created = await modern.call('create_episode', CREATE_ARGUMENTS);
    const id = created.body.episode_id as string;
    const expected = await modern.call('get_episode', { episode_id: id });

    // A 2024-11-05 client: raw JSON-RPC, reads content[0].text only.
    const server = createEpisodicMcpServer({ stores, scope: 'old' });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    const received: JSONRPCMessage[] = [];
    clientSide.onmessage = (message) => {
      received.push(message);
    };
    await server.connect(serverSide);
    await clientSide.start();
    await clientSide.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2024-11-05',
        capabilities: {},
        clientInfo: { name: 'old', version: '1' },
      },
    });
    await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await clientSide.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_episode', arguments: { episode_id: id } },
    });
    await expect.poll(() => received.length).toBe(2);
    const answer = received.find(
      (message) => (message as { id?: unknown }).id === 2,
    ) as unknown as {
      result: { content: Array<{ type: string; text: string }>; isError?: boolean };
    };
    expect(answer.result.isError).not.toBe(true);
    expect(answer.result.content).toEqual([{ type: 'text', text: expected.text }]);
    expect(JSON.parse(answer.result.content[0]?.text ?? '')).toEqual(expected.structured);
    await server.close();
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
