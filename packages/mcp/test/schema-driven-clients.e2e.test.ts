// Schema-driven clients decide how to send an argument from its property's JSON Schema `type`. The
// MCP Inspector's CLI (`npx @modelcontextprotocol/inspector --cli …`, a dev dependency) and the
// official SDK client each run the tools of the BUILT bin (npx tsup first) with object-valued
// arguments: `result`, `metadata` filters, `fromTs`, and an upper-case `episode_id`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/bin/episodic-mcp.js', import.meta.url));
const inspector = join(
  dirname(fileURLToPath(import.meta.resolve('@modelcontextprotocol/inspector/package.json'))),
  'clients',
  'launcher',
  'build',
  'index.js',
);

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function freshHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'episodic-inspector-'));
  directories.push(home);
  return home;
}

interface ToolListing {
  tools: Array<{
    name: string;
    inputSchema: { properties?: Record<string, Record<string, unknown>> };
  }>;
}

/** Runs `inspector --cli node <bin> …` and parses what it prints on stdout. */
function inspect(home: string, args: string[]): unknown {
  const result = spawnSync(
    process.execPath,
    [
      inspector,
      '--cli',
      '-e',
      `EPISODIC_HOME=${home}`,
      process.execPath,
      bin,
      '--scope',
      'inspector',
      ...args,
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 120_000 },
  );
  expect(
    result.status,
    `inspector ${args.join(' ')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
  ).toBe(0);
  return JSON.parse(result.stdout);
}

/** `tools/call` through the Inspector's `--tool-arg key=value` pairs; returns the tool's JSON body. */
function callTool(home: string, name: string, args: Record<string, string>) {
  const pairs = Object.entries(args).flatMap(([key, value]) => ['--tool-arg', `${key}=${value}`]);
  const result = inspect(home, ['--method', 'tools/call', '--tool-name', name, ...pairs]) as {
    content: Array<{ text: string }>;
    isError?: boolean;
  };
  const body = JSON.parse(result.content[0]?.text ?? '{}') as Record<string, unknown>;
  expect(result.isError, `${name}: ${JSON.stringify(body)}`).not.toBe(true);
  return body;
}

function expectEveryPropertyTyped(listing: ToolListing) {
  const untyped: string[] = [];
  for (const tool of listing.tools) {
    for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
      // A value of several types is a union of typed branches (an array `type` is not portable).
      const branches = property.anyOf as Array<{ type?: unknown }> | undefined;
      const typed =
        typeof property.type === 'string' ||
        branches?.every((branch) => typeof branch.type === 'string') === true;
      if (!typed) untyped.push(`${tool.name}.${name}`);
    }
  }
  expect(untyped).toEqual([]);
  const byName = new Map(
    listing.tools.map((tool) => [tool.name, tool.inputSchema.properties ?? {}]),
  );
  expect(byName.get('add_episode_step')?.result?.type).toBe('object');
  expect(byName.get('memory_episodes_query')?.metadata?.type).toBe('object');
  expect(byName.get('search_patterns')?.metadata?.type).toBe('object');
  expect(
    (
      byName.get('memory_episodes_query')?.fromTs?.anyOf as Array<{ type: string }> | undefined
    )?.map((branch) => branch.type),
  ).toEqual(['integer', 'string']);
  const pattern = new RegExp(String(byName.get('get_episode')?.episode_id?.pattern));
  expect(pattern.test('123E4567-E89B-12D3-A456-426614174000')).toBe(true);
}

describe('the MCP Inspector strict mode', () => {
  it('reports no schema portability finding for any tool input or output schema', () => {
    const home = freshHome();
    const result = spawnSync(
      process.execPath,
      [
        inspector,
        '--cli',
        '--method',
        'tools/list',
        '--strict',
        '-e',
        `EPISODIC_HOME=${home}`,
        process.execPath,
        bin,
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 120_000 },
    );
    expect(result.status, result.stderr).toBe(0);
    const listing = JSON.parse(result.stdout) as { tools: Array<{ outputSchema?: unknown }> };
    expect(listing.tools.filter((tool) => tool.outputSchema === undefined)).toEqual([]);
    // Strict mode prints each finding as "Warning: tool …" / "Error: tool …" and a count.
    expect(result.stderr).not.toMatch(/^(Warning|Error): tool/m);
    expect(result.stderr).not.toMatch(/across \d+ tool/);
  }, 300_000);
});

describe('schema-driven MCP clients send objects', () => {
  it('the MCP Inspector CLI sees a type on every parameter and runs the tools with object arguments', () => {
    const home = freshHome();
    expectEveryPropertyTyped(inspect(home, ['--method', 'tools/list']) as ToolListing);
    const created = callTool(home, 'create_episode', {
      task_description: 'Inspect the tools',
      domain: 'inspector',
      task_type: 'testing',
    });
    const id = created.episode_id as string;
    callTool(home, 'add_episode_step', {
      episode_id: id.toUpperCase(),
      step_number: '1',
      tool: 'inspector',
      action: 'ran a tool',
      result: '{"type":"success","output":"ok"}',
    });
    callTool(home, 'complete_episode', {
      episode_id: id,
      outcome_type: 'success',
      verdict: 'done',
    });
    expect(callTool(home, 'get_episode', { episode_id: id.toUpperCase() })).toMatchObject({
      success: true,
    });
    const query = callTool(home, 'memory_episodes_query', {
      fromTs: '1767225600000',
      metadata:
        '{"type":"and","filters":[{"property_name":"tags","comparison_operator":"CONTAINS","property_value":"x,y"}]}',
    });
    expect(query).toMatchObject({ success: true });
    expect(
      callTool(home, 'search_patterns', {
        metadata:
          '{"type":"or","filters":[{"property_name":"domain","comparison_operator":"IS NOT NULL"}]}',
      }),
    ).toMatchObject({ success: true });
  }, 300_000);

  it('the official SDK client sees the same schemas and runs the same calls', async () => {
    const home = freshHome();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, '--scope', 'inspector'],
      env: { PATH: process.env.PATH ?? '', EPISODIC_HOME: home },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'schema-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expectEveryPropertyTyped((await client.listTools()) as ToolListing);
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name, arguments: args });
        const body = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}');
        expect(result.isError, JSON.stringify(body)).not.toBe(true);
        return body as Record<string, unknown>;
      };
      const { episode_id: id } = await call('create_episode', {
        task_description: 'SDK',
        domain: 'inspector',
        task_type: 'testing',
      });
      await call('add_episode_step', {
        episode_id: String(id).toUpperCase(),
        step_number: 1,
        tool: 'sdk',
        action: 'ran',
        result: { type: 'success', output: 'ok' },
      });
      await call('memory_episodes_query', {
        fromTs: 1767225600000,
        metadata: {
          type: 'and',
          filters: [{ property_name: 'x', comparison_operator: 'IS NULL' }],
        },
      });
    } finally {
      await client.close();
    }
  });
});
