import {
  createLedger,
  createMemoryArtifactStore,
  createMemoryRunStore,
  EpisodicError,
  type Ledger,
} from '@episodic/core';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConnectedClient,
  CREATE_ARGUMENTS,
  connect,
  countingStores,
  UNKNOWN_ID,
} from './__fixtures__/mcp-harness.js';
import { createEpisodicMcpServer } from './episodic-mcp-server.js';
import type { EpisodicMcpStores } from './episodic-tools.js';
import { EPISODIC_TOOL_NAMES } from './tools/tool-catalog.js';
import { VERSION } from './version.js';

const open: ConnectedClient[] = [];
async function client(options: Parameters<typeof connect>[0]): Promise<ConnectedClient> {
  const connected = await connect(options);
  open.push(connected);
  return connected;
}
afterEach(async () => {
  for (const connected of open.splice(0)) await connected.close();
});

/** Every property of a tool's (object) input schema has a description. */
function undescribedProperties(schema: Record<string, unknown>, path = ''): string[] {
  const missing: string[] = [];
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, property] of Object.entries(properties)) {
    if (typeof property.description !== 'string' || property.description.length < 10) {
      missing.push(`${path}${name}`);
    }
  }
  return missing;
}

describe('tools/list', () => {
  it('lists the thirteen tools with the seed names, annotations and described JSON Schemas', async () => {
    const { client: mcp } = await client({ stores: countingStores().stores });
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...EPISODIC_TOOL_NAMES]);
    const readOnly = tools.filter((tool) => tool.annotations?.readOnlyHint === true);
    expect(readOnly.map((tool) => tool.name).sort()).toEqual(
      [
        'get_episode',
        'get_episode_timeline',
        'list_runs',
        'memory_episodes_query',
        'replay_session',
        'search_history',
        'search_patterns',
        'search_runs',
        'verify_history',
      ].sort(),
    );
    const destructive = tools.filter((tool) => tool.annotations?.destructiveHint === true);
    expect(destructive.map((tool) => tool.name)).toEqual(['delete_episode']);
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(60);
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect((tool.inputSchema as Record<string, unknown>).oneOf, tool.name).toBeUndefined();
      expect(undescribedProperties(tool.inputSchema), tool.name).toEqual([]);
    }
    const create = tools.find((tool) => tool.name === 'create_episode');
    expect(create?.inputSchema.required).toEqual(['task_description', 'domain', 'task_type']);
    expect(
      (create?.inputSchema.properties as Record<string, { enum?: string[] }> | undefined)?.task_type
        ?.enum,
    ).toEqual([
      'code_generation',
      'debugging',
      'refactoring',
      'testing',
      'analysis',
      'documentation',
    ]);
    const remove = tools.find((tool) => tool.name === 'delete_episode');
    expect(remove?.inputSchema.required).toEqual(['episode_id', 'confirm']);
    const query = tools.find((tool) => tool.name === 'memory_episodes_query');
    expect(Object.keys(query?.inputSchema.properties ?? {})).toEqual([
      'scope',
      'sessionId',
      'fromTs',
      'toTs',
      'types',
      'limit',
      'includePayload',
      'metadata',
      'afterId',
    ]);
  });

  it('reports the package version and tells the client how to use the tools', async () => {
    const { client: mcp } = await client({ stores: countingStores().stores });
    expect(mcp.getServerVersion()).toMatchObject({ name: 'episodic', version: VERSION });
    expect(mcp.getInstructions()).toMatch(/create_episode.*add_episode_step.*complete_episode/s);
  });
});

describe('the task episode lifecycle (seed 004)', () => {
  it('runs create → steps → timeline → complete → get → delete with the seed result fields', async () => {
    const mcp = await client({ stores: countingStores().stores, scope: 'web' });
    const created = await mcp.call('create_episode', CREATE_ARGUMENTS);
    expect(created.isError).toBe(false);
    expect(created.body).toMatchObject({
      success: true,
      task_description: 'Implement JWT-based authentication',
      domain: 'web-api',
      task_type: 'code_generation',
      message: 'Episode created successfully',
    });
    const id = created.body.episode_id as string;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const steps = [
      { tool: 'architect', action: 'Designing rate limiting strategy', output: 'Token bucket' },
      { tool: 'code_generator', action: 'Implementing rate limiter middleware', output: 'Created' },
      { tool: 'test_runner', action: 'Running integration tests', output: 'All 12 tests passed' },
    ];
    for (const [index, step] of steps.entries()) {
      const added = await mcp.call('add_episode_step', {
        episode_id: id,
        step_number: index + 1,
        tool: step.tool,
        action: step.action,
        parameters: { attempt: index },
        result: { type: 'success', output: step.output },
        latency_ms: 100 * (index + 1),
      });
      expect(added.body).toMatchObject({
        success: true,
        episode_id: id,
        step_number: index + 1,
        message: 'Step added successfully',
      });
    }
    const running = await mcp.call('get_episode_timeline', { episode_id: id });
    expect(running.body).toMatchObject({
      success: true,
      episode_id: id,
      end_time: null,
      duration_seconds: null,
      step_count: 3,
      outcome: null,
    });
    expect(running.body.timeline[2]).toMatchObject({
      step_number: 3,
      tool: 'test_runner',
      result_type: 'success',
      latency_ms: 300,
    });
    expect(running.body.next_offset).toBeNull();
    // One page at a time: offset and limit, next_offset to continue, null on the last page.
    const first = await mcp.call('get_episode_timeline', { episode_id: id, offset: 0, limit: 2 });
    expect(first.body.timeline.map((entry: { step_number: number }) => entry.step_number)).toEqual([
      1, 2,
    ]);
    expect(first.body).toMatchObject({ step_count: 3, next_offset: 2 });
    const last = await mcp.call('get_episode_timeline', { episode_id: id, offset: 2, limit: 2 });
    expect(last.body.timeline.map((entry: { step_number: number }) => entry.step_number)).toEqual([
      3,
    ]);
    expect(last.body.next_offset).toBeNull();
    const refused = await mcp.call('get_episode_timeline', { episode_id: id, limit: 0 });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.body)).toContain('limit');

    const completed = await mcp.call('complete_episode', {
      episode_id: id,
      outcome_type: 'success',
      verdict: 'Rate limiting successfully implemented and tested',
      artifacts: ['rate_limiter.rs'],
    });
    expect(completed.body).toMatchObject({
      success: true,
      episode_id: id,
      outcome_type: 'success',
      message:
        'Episode completed successfully. Learning cycle triggered (reward, reflection, patterns).',
    });
    expect(completed.body.reward_score).toBeGreaterThan(0);
    expect(completed.body.patterns_extracted).toBeGreaterThan(0);
    expect(completed.body.duplicate).toBe(false);
    // The same completion again: the original result, marked as a duplicate (issue 29).
    const repeated = await mcp.call('complete_episode', {
      episode_id: id,
      outcome_type: 'success',
      verdict: 'Rate limiting successfully implemented and tested',
      artifacts: ['rate_limiter.rs'],
    });
    expect(repeated.isError).not.toBe(true);
    expect(repeated.body).toEqual({
      ...completed.body,
      duplicate: true,
      message: expect.stringContaining('already completed with this same outcome'),
    });

    const episode = (await mcp.call('get_episode', { episode_id: id })).body.episode;
    expect(episode).toMatchObject({
      id,
      task_description: 'Implement JWT-based authentication',
      task_type: 'code_generation',
      context: {
        domain: 'web-api',
        language: 'rust',
        framework: 'axum',
        complexity: 'complex',
        tags: ['auth', 'security', 'api'],
      },
      outcome: { type: 'success', artifacts: ['rate_limiter.rs'] },
    });
    expect(episode.steps).toHaveLength(3);
    expect(episode.steps[0].parameters).toEqual({ attempt: 0 });
    expect(episode.reward_score).toBeGreaterThan(0);
    expect(episode.reward_score).toBeLessThanOrEqual(1);
    expect(episode.reflection.successes.length).toBeGreaterThan(0);
    expect(episode.patterns.length).toBe(completed.body.patterns_extracted);

    const ended = await mcp.call('get_episode_timeline', { episode_id: id.toUpperCase() });
    expect(ended.body.outcome).toBe('success');
    expect(typeof ended.body.duration_seconds).toBe('number');

    const deleted = await mcp.call('delete_episode', { episode_id: id, confirm: true });
    expect(deleted.body).toMatchObject({
      success: true,
      episode_id: id,
      message: 'Episode deleted permanently',
    });
    expect(deleted.body.deleted_artifacts).toContain(`reflection:${id}`);
    const gone = await mcp.call('get_episode', { episode_id: id });
    expect(gone.body.code).toBe('NOT_FOUND');
  });

  it('completes with partial_success and failure outcomes as the seed defines them', async () => {
    const mcp = await client({ stores: countingStores().stores });
    const partial = (await mcp.call('create_episode', CREATE_ARGUMENTS)).body.episode_id;
    const done = await mcp.call('complete_episode', {
      episode_id: partial,
      outcome_type: 'partial_success',
      verdict: 'Basic authentication works',
      completed: ['login', 'logout'],
      failed: ['2fa'],
    });
    expect(done.body.outcome_type).toBe('partial_success');
    const failed = (await mcp.call('create_episode', CREATE_ARGUMENTS)).body.episode_id;
    const failure = await mcp.call('complete_episode', {
      episode_id: failed,
      outcome_type: 'failure',
      reason: 'Incompatible dependency versions',
      error_details: 'axum 0.7 requires tokio 1.35+',
    });
    expect(failure.body).toMatchObject({ outcome_type: 'failure', patterns_extracted: 0 });
    const episode = (await mcp.call('get_episode', { episode_id: failed })).body.episode;
    expect(episode.outcome).toEqual({
      type: 'failure',
      reason: 'Incompatible dependency versions',
      error_details: 'axum 0.7 requires tokio 1.35+',
    });
  });
});

/** One bad input per line: the tool, its arguments, and a field the message must name. */
const BAD_INPUTS: ReadonlyArray<[string, Record<string, unknown>, string]> = [
  ['create_episode', {}, 'task_description'],
  ['create_episode', { ...CREATE_ARGUMENTS, task_type: 'cooking' }, 'task_type'],
  ['create_episode', { ...CREATE_ARGUMENTS, owner: 'me' }, 'owner'],
  ['create_episode', { ...CREATE_ARGUMENTS, tags: 'auth' }, 'tags'],
  ['create_episode', { ...CREATE_ARGUMENTS, complexity: 'huge' }, 'complexity'],
  [
    'create_episode',
    {
      ...CREATE_ARGUMENTS,
      metadata: Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`k${index}`, index])),
    },
    'metadata',
  ],
  ['add_episode_step', { step_number: 1, tool: 't', action: 'a' }, 'episode_id'],
  [
    'add_episode_step',
    { episode_id: UNKNOWN_ID, step_number: 0, tool: 't', action: 'a' },
    'step_number',
  ],
  [
    'add_episode_step',
    { episode_id: UNKNOWN_ID, step_number: '1', tool: 't', action: 'a' },
    'step_number',
  ],
  [
    'add_episode_step',
    { episode_id: UNKNOWN_ID, step_number: 1, tool: 't', action: 'a', result: { type: 'maybe' } },
    'result',
  ],
  [
    'add_episode_step',
    { episode_id: UNKNOWN_ID, step_number: 1, tool: 't', action: 'a', latency_ms: -1 },
    'latency_ms',
  ],
  ['complete_episode', { episode_id: UNKNOWN_ID, outcome_type: 'meh' }, 'outcome_type'],
  ['complete_episode', { episode_id: UNKNOWN_ID, outcome_type: 'success' }, 'verdict'],
  [
    'complete_episode',
    { episode_id: UNKNOWN_ID, outcome_type: 'partial_success', verdict: 'v' },
    'completed',
  ],
  ['get_episode', {}, 'episode_id'],
  ['get_episode', { episode_id: 42 }, 'episode_id'],
  ['get_episode_timeline', { episode_id: 'x' }, 'episode_id'],
  ['delete_episode', { episode_id: 'x', confirm: true }, 'episode_id'],
  ['delete_episode', { episode_id: UNKNOWN_ID, confirm: 'yes' }, 'confirm'],
  ['memory_episodes_query', { limit: 0 }, 'limit'],
  ['memory_episodes_query', { types: ['tool.exec'] }, 'types'],
  ['memory_episodes_query', { fromTs: 'yesterday' }, 'fromTs'],
  ['memory_episodes_query', { fromTs: 2_000, toTs: 1_000 }, 'fromTs'],
  ['memory_episodes_query', { includePayload: 'yes' }, 'includePayload'],
  ['memory_episodes_query', { metadata: { type: 'xor' } }, 'metadata'],
  ['memory_episodes_query', { scope: 'someone-else' }, 'scope'],
  ['replay_session', {}, 'session_id'],
  ['replay_session', { session_id: 's1', source: 'files' }, 'source'],
  ['replay_session', { session_id: 's1', source: 'runs' }, 'session_id'],
  ['replay_session', { session_id: 's1', scope: 'someone-else' }, 'scope'],
  ['list_runs', { limit: 1_000 }, 'limit'],
  ['list_runs', { session_id: 'x' }, 'session_id'],
  ['list_runs', { from: 'last week' }, 'from'],
  ['list_runs', { scope: 'someone-else' }, 'scope'],
  ['search_patterns', { task_type: 'cooking' }, 'task_type'],
  ['search_patterns', { limit: 0 }, 'limit'],
  ['search_patterns', { pattern_types: [] }, 'pattern_types'],
  ['search_patterns', { scope: 'someone-else' }, 'scope'],
  ['search_patterns', { query: '' }, 'query'],
  ['search_history', {}, 'query'],
  ['search_history', { query: 'x', limit: 51 }, 'limit'],
  ['search_history', { query: 'x', since: 'last week' }, 'since'],
  ['search_history', { query: 'x', scope: 'someone-else' }, 'scope'],
  ['search_runs', {}, 'query'],
  ['search_runs', { query: 'x', limit: 51 }, 'limit'],
  ['search_runs', { query: 'x', run_id: 'not-a-uuid' }, 'run_id'],
  ['search_runs', { query: 'x', until: 'tomorrow' }, 'until'],
  ['search_runs', { query: 'x', scope: 'someone-else' }, 'scope'],
  ['verify_history', { scope: 'someone-else' }, 'scope'],
  ['verify_history', { session_id: '' }, 'session_id'],
];

describe('error results', () => {
  it('answers every bad input of every tool with our JSON error, before any storage call', async () => {
    const counting = countingStores();
    const mcp = await client({ stores: counting.stores, scope: 'team' });
    const tools = new Set(BAD_INPUTS.map(([tool]) => tool));
    expect([...tools].sort()).toEqual([...EPISODIC_TOOL_NAMES].sort());
    for (const [tool, args, field] of BAD_INPUTS) {
      const outcome = await mcp.call(tool, args);
      const label = `${tool} ${JSON.stringify(args).slice(0, 80)}`;
      expect(outcome.isError, label).toBe(true);
      expect(Object.keys(outcome.body).sort(), label).toEqual(['code', 'error']);
      expect(outcome.body.code, label).toBe('VALIDATION_ERROR');
      expect(outcome.body.error, label).toContain(field);
      expect(outcome.body.error, label).toMatch(/call again|omit scope/);
      expect(outcome.text, label).not.toMatch(/Input validation error|\n\s+at |\.[jt]s:\d/);
    }
    expect(counting.total()).toBe(0);
  });

  it('answers unknown episodes with NOT_FOUND for every episode tool', async () => {
    const mcp = await client({ stores: countingStores().stores });
    const calls: Array<[string, Record<string, unknown>]> = [
      ['get_episode', { episode_id: UNKNOWN_ID }],
      ['get_episode_timeline', { episode_id: UNKNOWN_ID }],
      ['add_episode_step', { episode_id: UNKNOWN_ID, step_number: 1, tool: 't', action: 'a' }],
      ['complete_episode', { episode_id: UNKNOWN_ID, outcome_type: 'success', verdict: 'v' }],
      ['delete_episode', { episode_id: UNKNOWN_ID, confirm: true }],
    ];
    for (const [tool, args] of calls) {
      const outcome = await mcp.call(tool, args);
      expect(outcome.body, tool).toEqual({
        code: 'NOT_FOUND',
        error: expect.stringMatching(/was not found\. Check the episode_id/),
      });
    }
  });

  it('answers CONFLICT for a step after completion, a second completion and a stale step number', async () => {
    const mcp = await client({ stores: countingStores().stores });
    const id = (await mcp.call('create_episode', CREATE_ARGUMENTS)).body.episode_id;
    await mcp.call('add_episode_step', { episode_id: id, step_number: 2, tool: 't', action: 'a' });
    const stale = await mcp.call('add_episode_step', {
      episode_id: id,
      step_number: 2,
      tool: 't',
      action: 'again',
    });
    expect(stale.body.code).toBe('CONFLICT');
    expect(stale.body.error).toMatch(/Use step_number 3 or higher/);
    await mcp.call('complete_episode', { episode_id: id, outcome_type: 'success', verdict: 'v' });
    const late = await mcp.call('add_episode_step', {
      episode_id: id,
      step_number: 3,
      tool: 't',
      action: 'a',
    });
    expect(late.body.code).toBe('CONFLICT');
    const twice = await mcp.call('complete_episode', {
      episode_id: id,
      outcome_type: 'failure',
      reason: 'r',
    });
    expect(twice.body.code).toBe('CONFLICT');
    expect(twice.body.error).toMatch(/already completed/);
  });

  it('answers CONFIRMATION_REQUIRED without confirm: true and deletes nothing', async () => {
    const mcp = await client({ stores: countingStores().stores });
    const id = (await mcp.call('create_episode', CREATE_ARGUMENTS)).body.episode_id;
    for (const args of [{ episode_id: id }, { episode_id: id, confirm: false }]) {
      const outcome = await mcp.call('delete_episode', args);
      expect(outcome.body.code).toBe('CONFIRMATION_REQUIRED');
      expect(outcome.body.error).toMatch(/"confirm": true/);
    }
    expect((await mcp.call('get_episode', { episode_id: id })).isError).toBe(false);
  });

  it('accepts the bound scope however it is spelled', async () => {
    const mcp = await client({ stores: countingStores().stores, scope: 'Demo Project' });
    for (const tool of ['memory_episodes_query', 'list_runs', 'search_patterns']) {
      const outcome = await mcp.call(tool, { scope: ' demo-PROJECT ' });
      expect(outcome.isError, tool).toBe(false);
      expect(outcome.body.scope).toBe('demo-project');
    }
  });

  it('turns storage failures into STORAGE_ERROR without paths, and logs the details', async () => {
    const counting = countingStores();
    const failing = new Proxy(counting.adapters.runs, {
      get(target, property, receiver) {
        if (property === 'append' || property === 'appendAt') {
          return () => {
            throw Object.assign(new Error('EIO: i/o error, write /var/lib/episodic/secret.db'), {
              code: 'EIO',
            });
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const { createRunStore } = await import('@episodic/core');
    const mcp = await client({
      stores: { ...counting.stores, runs: createRunStore(failing) },
    });
    const outcome = await mcp.call('create_episode', CREATE_ARGUMENTS);
    expect(outcome.body.code).toBe('STORAGE_ERROR');
    expect(outcome.body.error).toMatch(/Retry the call/);
    expect(outcome.text).not.toMatch(/\/var\/lib|secret|EIO/);
    expect(mcp.logs.map((entry) => (entry.error as Error).message).join('\n')).toContain(
      '/var/lib/episodic/secret.db',
    );
  });

  it('maps every domain error code, and anything unexpected to INTERNAL_ERROR, without stacks', async () => {
    const throwing = (error: unknown): Ledger =>
      ({
        ...createLedger({
          specificationVersion: 'v1',
          name: 'x',
          capabilities: {} as never,
        } as never),
        query: async () => {
          throw error;
        },
      }) as unknown as Ledger;
    const cases: Array<[unknown, string]> = [
      [
        new EpisodicError({ code: 'SCOPE_REQUIRED', message: 'The query needs a scope.' }),
        'SCOPE_REQUIRED',
      ],
      [new EpisodicError({ code: 'CONFLICT', message: 'Another write landed first.' }), 'CONFLICT'],
      [
        new EpisodicError({ code: 'CORRUPT_DATA', message: 'bad row in /data/x.db' }),
        'STORAGE_ERROR',
      ],
      [new EpisodicError({ code: 'UNSUPPORTED', message: 'old sqlite' }), 'INTERNAL_ERROR'],
      [
        new TypeError("Cannot read properties of undefined (reading 'x') at /src/a.ts:10:3"),
        'INTERNAL_ERROR',
      ],
      ['a string', 'INTERNAL_ERROR'],
    ];
    for (const [error, code] of cases) {
      const mcp = await client({
        stores: {
          ledger: throwing(error),
          runs: createMemoryRunStore(),
          artifacts: createMemoryArtifactStore(),
        },
      });
      const outcome = await mcp.call('memory_episodes_query', {});
      expect(outcome.body.code, String(error)).toBe(code);
      expect(outcome.text).not.toMatch(/\/data\/|\/src\/|\.ts:\d|TypeError/);
    }
  });

  it('retries opening lazily given stores after a failure', async () => {
    let attempts = 0;
    const { stores } = countingStores();
    const mcp = await client({
      stores: async (): Promise<EpisodicMcpStores> => {
        attempts += 1;
        if (attempts === 1) throw new Error('database is locked: /home/me/.episodic/episodic.db');
        return stores;
      },
    });
    const first = await mcp.call('list_runs');
    expect(first.body.code).toBe('INTERNAL_ERROR');
    expect(first.text).not.toContain('/home/me');
    expect((await mcp.call('list_runs')).isError).toBe(false);
    expect(attempts).toBe(2);
  });

  it('keeps unknown tools and malformed requests JSON-RPC errors', async () => {
    const { client: mcp } = await client({ stores: countingStores().stores });
    await expect(mcp.callTool({ name: 'drop_database', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });

    const server = createEpisodicMcpServer({ stores: countingStores().stores });
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
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await clientSide.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_episode', arguments: 'not an object' },
    } as unknown as JSONRPCMessage);
    await clientSide.send({ jsonrpc: '2.0', id: 3, method: 'tools/explode', params: {} });
    await expect.poll(() => received.length).toBe(3);
    const byId = new Map(received.map((message) => [(message as { id?: unknown }).id, message]));
    expect(byId.get(2)).toMatchObject({ error: { code: -32602 } });
    expect(byId.get(3)).toMatchObject({ error: { code: -32601 } });
    await server.close();
  });
});

describe('client construction', () => {
  it('refuses bad options before serving', () => {
    expect(() => createEpisodicMcpServer({ stores: {} as never })).toThrow(
      /ledger, runs, artifacts/,
    );
    expect(() =>
      createEpisodicMcpServer({ stores: countingStores().stores, scope: 'global' }),
    ).toThrow(/reserved/);
    expect(() =>
      createEpisodicMcpServer({ stores: countingStores().stores, scope: 'x'.repeat(200) }),
    ).toThrow(/at most 128/);
    expect(() =>
      createEpisodicMcpServer({
        stores: countingStores().stores,
        policy: { required: {} } as never,
      }),
    ).toThrow(/policy/);
  });

  it('serves two clients from one tool set', async () => {
    const { createEpisodicTools } = await import('./episodic-tools.js');
    const tools = createEpisodicTools({ stores: countingStores().stores, scope: 'shared' });
    const first = await client({ tools });
    const second = await client({ tools });
    const id = (await first.call('create_episode', CREATE_ARGUMENTS)).body.episode_id;
    expect((await second.call('get_episode', { episode_id: id })).body.episode.id).toBe(id);
    expect(new Client({ name: 'x', version: '1' })).toBeDefined();
  });
});
