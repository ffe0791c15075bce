import { afterEach, describe, expect, it } from 'vitest';
import { type ConnectedClient, connect, countingStores } from '../__fixtures__/mcp-harness.js';

const open: ConnectedClient[] = [];
afterEach(async () => {
  for (const connected of open.splice(0)) await connected.close();
});

interface TaskSpec {
  domain: string;
  language?: string;
  tags?: string[];
  tools: string[];
  metadata?: Record<string, string>;
}

async function learn(mcp: ConnectedClient, spec: TaskSpec): Promise<string> {
  const id = (
    await mcp.call('create_episode', {
      task_description: `work in ${spec.domain}`,
      domain: spec.domain,
      task_type: 'code_generation',
      ...(spec.language === undefined ? {} : { language: spec.language }),
      ...(spec.tags === undefined ? {} : { tags: spec.tags }),
      ...(spec.metadata === undefined ? {} : { metadata: spec.metadata }),
    })
  ).body.episode_id;
  for (const [index, tool] of spec.tools.entries()) {
    await mcp.call('add_episode_step', {
      episode_id: id,
      step_number: index + 1,
      tool,
      action: `use ${tool}`,
      result: { type: 'success', output: 'ok' },
    });
  }
  await mcp.call('complete_episode', { episode_id: id, outcome_type: 'success', verdict: 'ok' });
  return id;
}

describe('search_patterns', () => {
  it('finds the patterns of tasks that had the requested context, most supported first', async () => {
    const mcp = await connect({ stores: countingStores().stores, scope: 'patterns' });
    open.push(mcp);
    const rustA = await learn(mcp, {
      domain: 'web-api',
      language: 'rust',
      tags: ['auth'],
      tools: ['planner', 'coder'],
    });
    const rustB = await learn(mcp, {
      domain: 'web-api',
      language: 'rust',
      tools: ['planner', 'coder'],
    });
    const cli = await learn(mcp, { domain: 'cli', language: 'go', tools: ['shell', 'tester'] });

    const search = async (args: Record<string, unknown>) =>
      (await mcp.call('search_patterns', args)).body;
    const web = await search({ domain: 'Web-API' });
    expect(web.patterns.length).toBeGreaterThan(0);
    for (const pattern of web.patterns) {
      expect(pattern.episode_ids.every((id: string) => [rustA, rustB].includes(id))).toBe(true);
    }
    // The tool sequence planner → coder was learned from both rust tasks.
    expect(web.patterns[0]).toMatchObject({
      type: 'tool_sequence',
      pattern: { type: 'tool_sequence', tools: ['planner', 'coder'] },
      support: 2,
    });
    expect(web.patterns[0].episode_ids.sort()).toEqual([rustA, rustB].sort());

    const tagged = await search({ domain: 'web-api', tags: ['auth'], pattern_types: ['context'] });
    expect(tagged.patterns).toHaveLength(1);
    expect(tagged.patterns[0].episode_ids).toEqual([rustA]);
    expect(tagged.patterns[0].pattern.recommended_tools).toEqual(['planner', 'coder']);

    const go = await search({ language: 'go' });
    expect(
      new Set(go.patterns.flatMap((pattern: { episode_ids: string[] }) => pattern.episode_ids)),
    ).toEqual(new Set([cli]));
    expect((await search({ domain: 'embedded' })).patterns).toEqual([]);
    expect((await search({ limit: 1 })).patterns).toHaveLength(1);
    expect((await search({})).total_matches).toBeGreaterThanOrEqual(4);
  });

  it('filters by the metadata of ONE source task episode (seed 003)', async () => {
    const mcp = await connect({ stores: countingStores().stores });
    open.push(mcp);
    const acme = await learn(mcp, {
      domain: 'web-api',
      tools: ['planner', 'coder'],
      metadata: { tenant: 'acme', tier: 'gold' },
    });
    await learn(mcp, {
      domain: 'web-api',
      tools: ['planner', 'coder'],
      metadata: { tenant: 'globex', tier: 'silver' },
    });
    const filtered = (
      await mcp.call('search_patterns', {
        domain: 'web-api',
        metadata: {
          type: 'and',
          filters: [
            { property_name: 'tenant', comparison_operator: '=', property_value: 'acme' },
            { property_name: 'tier', comparison_operator: '=', property_value: 'gold' },
          ],
        },
      })
    ).body;
    expect(filtered.patterns.length).toBeGreaterThan(0);
    for (const pattern of filtered.patterns) expect(pattern.episode_ids).toContain(acme);
    const mixed = (
      await mcp.call('search_patterns', {
        metadata: {
          type: 'and',
          filters: [
            { property_name: 'tenant', comparison_operator: '=', property_value: 'acme' },
            { property_name: 'tier', comparison_operator: '=', property_value: 'silver' },
          ],
        },
      })
    ).body;
    // acme is in one task and silver in the other: no single episode satisfies both.
    expect(mixed.patterns).toEqual([]);
  });

  it('with query, keeps the patterns holding every word, best match first, with snippets', async () => {
    const mcp = await connect({ stores: countingStores().stores, scope: 'patterns' });
    open.push(mcp);
    const web = await learn(mcp, {
      domain: 'web-api',
      tools: ['read_file', 'edit_file', 'run_tests'],
    });
    const ops = await learn(mcp, { domain: 'ops', tools: ['deploy_staging', 'run_tests'] });
    const search = async (args: Record<string, unknown>) =>
      (await mcp.call('search_patterns', args)).body;

    const edits = await search({ query: 'edit file', pattern_types: ['tool_sequence'] });
    expect(edits.patterns.map((pattern: { episode_ids: string[] }) => pattern.episode_ids)).toEqual(
      [[web]],
    );
    expect(edits.patterns[0].snippet).toContain('«edit»_«file»');
    expect(edits.patterns[0].score).toBeGreaterThan(0);
    expect(edits.total_matches).toBe(1);

    const tests = await search({ query: 'RUN_TESTS', pattern_types: ['tool_sequence'] });
    expect(
      tests.patterns.flatMap((pattern: { episode_ids: string[] }) => pattern.episode_ids).sort(),
    ).toEqual([web, ops].sort());
    const scores = tests.patterns.map((pattern: { score: number }) => pattern.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);

    // The other filters still apply, and a query nothing holds finds nothing.
    expect(
      (await search({ query: 'run tests', domain: 'ops', pattern_types: ['tool_sequence'] }))
        .patterns,
    ).toHaveLength(1);
    expect((await search({ query: '"tests run"' })).patterns).toEqual([]);
    // Without query: no score, no snippet (the support order, as before).
    expect((await search({})).patterns[0]).not.toHaveProperty('score');

    const bad = await mcp.call('search_patterns', { query: '"" ;' });
    expect(bad.isError).toBe(true);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(bad.body.error).toContain('query');
  });
});
