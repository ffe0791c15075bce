#!/usr/bin/env node
// Measures the MCP row of QUALITY.md: spawn → initialize and steady tools/call p50/p99 of the
// bundled episodic-mcp bin against a bundled official-SDK echo server measured in the same run.
// Usage: node bench/mcp-bench.mjs [--starts 20] [--calls 2000]   (after `npx tsup`)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { build } from 'tsup';

const here = fileURLToPath(new URL('.', import.meta.url));
const { values } = parseArgs({
  options: {
    starts: { type: 'string', default: '20' },
    calls: { type: 'string', default: '2000' },
  },
});
const starts = Number(values.starts);
const calls = Number(values.calls);
const work = mkdtempSync(join(tmpdir(), 'episodic-mcp-bench-'));
await build({
  entry: { 'echo-probe': join(here, 'echo-probe.ts') },
  outDir: work,
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  splitting: true,
  noExternal: [/^@modelcontextprotocol\//, 'zod'],
  silent: true,
  config: false,
});
const probe = join(work, 'echo-probe.js');
const bin = join(here, '..', 'dist', 'bin', 'episodic-mcp.js');
const env = { ...process.env, EPISODIC_HOME: join(work, 'home'), EPISODIC_SCOPE: 'bench' };
delete env.NODE_EXTRA_CA_CERTS;

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
async function connect(script) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const started = process.hrtime.bigint();
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [script], env, stderr: 'ignore' }),
  );
  return { client, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}
async function startup(script, firstCall) {
  const times = [];
  const firstCalls = [];
  for (let index = 0; index < starts; index++) {
    const started = process.hrtime.bigint();
    const { client, ms } = await connect(script);
    times.push(ms);
    await client.callTool(firstCall);
    firstCalls.push(Number(process.hrtime.bigint() - started) / 1e6);
    await client.close();
  }
  return { times: times.sort((a, b) => a - b), firstCalls: firstCalls.sort((a, b) => a - b) };
}
async function steady(script, name, args, expectError = false) {
  const { client } = await connect(script);
  try {
    for (let index = 0; index < 200; index++)
      await client.callTool({ name, arguments: args(index) });
    const times = [];
    for (let index = 0; index < calls; index++) {
      const started = process.hrtime.bigint();
      const result = await client.callTool({ name, arguments: args(index) });
      times.push(Number(process.hrtime.bigint() - started) / 1e3);
      if ((result.isError === true) !== expectError) {
        throw new Error(`${name}: unexpected result ${JSON.stringify(result.content)}`);
      }
    }
    return times.sort((a, b) => a - b);
  } finally {
    await client.close();
  }
}

// Interleave probe and product so machine noise hits both.
const echoCall = { name: 'echo', arguments: { text: 'hi' } };
const listCall = { name: 'list_runs', arguments: { limit: 1 } };
const rounds = [];
for (let round = 0; round < 2; round++) {
  rounds.push([await startup(probe, echoCall), await startup(bin, listCall)]);
}
const merge = (pick) => rounds.flatMap(pick).sort((a, b) => a - b);
const probeAll = merge(([probeRound]) => probeRound.times);
const binAll = merge(([, binRound]) => binRound.times);
const probeFirst = merge(([probeRound]) => probeRound.firstCalls);
const binFirst = merge(([, binRound]) => binRound.firstCalls);

const { client: setup } = await connect(bin);
const created = await setup.callTool({
  name: 'create_episode',
  arguments: { task_description: 'bench', domain: 'bench', task_type: 'testing' },
});
const episodeId = JSON.parse(created.content[0].text).episode_id;
await setup.callTool({
  name: 'add_episode_step',
  arguments: { episode_id: episodeId, step_number: 1, tool: 't', action: 'a' },
});
await setup.close();

const echo = await steady(probe, 'echo', (index) => ({ text: `hello ${index}` }));
const timeline = await steady(bin, 'get_episode_timeline', () => ({ episode_id: episodeId }));
const query = await steady(bin, 'memory_episodes_query', () => ({ limit: 10 }));
const invalid = await steady(bin, 'get_episode', () => ({ episode_id: 'not-a-uuid' }), true);

const print = (line) => process.stdout.write(`${line}\n`);
const row = (label, sorted, base) =>
  `${label.padEnd(40)} p50 ${quantile(sorted, 0.5).toFixed(1).padStart(8)}  p99 ${quantile(sorted, 0.99).toFixed(1).padStart(8)}${base ? `  ratio p50 ${(quantile(sorted, 0.5) / quantile(base, 0.5)).toFixed(2)}` : ''}`;
print(`spawn → initialize (ms), ${binAll.length} starts each`);
print(row('SDK echo probe (bundled)', probeAll));
print(row('episodic-mcp (bundled)', binAll, probeAll));
print(`spawn → first tools/call result (ms): echo vs list_runs (opens the database)`);
print(row('SDK echo probe (bundled)', probeFirst));
print(row('episodic-mcp (bundled)', binFirst, probeFirst));
print(`steady tools/call (µs), ${calls} calls each, SQLite WAL/NORMAL`);
print(row('SDK echo probe: echo', echo));
print(row('episodic-mcp: get_episode_timeline', timeline, echo));
print(row('episodic-mcp: memory_episodes_query', query, echo));
print(row('episodic-mcp: get_episode (invalid id)', invalid, echo));
rmSync(work, { recursive: true, force: true });
