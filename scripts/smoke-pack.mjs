#!/usr/bin/env node
// Pack smoke test: what a user gets from npm, proved before anything is published.
//
// 1. `pnpm pack` every published package (pnpm rewrites workspace:* and catalog: to versions).
// 2. Install the tarballs with npm into a fresh project OUTSIDE the workspace, so nothing resolves
//    through the workspace's node_modules. Their own dependencies come from the npm registry (the
//    npm cache is reused). better-sqlite3 compiles or downloads its native addon in an install
//    script: the project approves it the way a user does (`npm install-scripts approve
//    better-sqlite3` writes `"allowScripts": { "better-sqlite3": true }`), and the install runs
//    with --strict-allow-scripts, so any other dependency that starts needing an install script
//    fails here instead of surprising a user.
// 3. A tiny consumer imports every `exports` subpath of every package (and a CommonJS one,
//    compiled by TypeScript, requires them), checks the injected
//    version, type-checks against the built .d.ts with skipLibCheck: false (the workspace's
//    TypeScript), runs `episodic --version` and a ledger round trip from the installed bin, and
//    starts the installed `episodic-mcp` bin over stdio with the official MCP client and lists
//    its tools, and starts the installed `episodic ui` and loads its page, app and API.
//
// Usage: node scripts/smoke-pack.mjs [--keep]   (pnpm smoke:pack builds first)
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const PUBLISHED = [
  'core',
  'store-fs',
  'store-sqlite',
  'store-postgres',
  'home',
  'mcp',
  'interop',
  'ui',
  'cli',
  'ai-sdk',
  'langgraph',
  'claude-agent-sdk',
  'openai-agents',
  'google-adk',
];
/** The frameworks the adapter packages take as peer dependencies, installed as a user would. */
const FRAMEWORK_PEERS = [
  'ai',
  '@langchain/core',
  '@langchain/langgraph-checkpoint',
  '@anthropic-ai/claude-agent-sdk',
  '@openai/agents-core',
  '@google/adk',
];
/** The packages whose types include a framework's (checked with skipLibCheck on, in use). */
const ADAPTERS = [
  '@episodic/ai-sdk',
  '@episodic/langgraph',
  '@episodic/claude-agent-sdk',
  '@episodic/openai-agents',
  '@episodic/google-adk',
];
/** The MCP tools `episodic-mcp` must list (packages/mcp/README.md). */
const EXPECTED_TOOLS = [
  'create_episode',
  'add_episode_step',
  'complete_episode',
  'get_episode',
  'get_episode_timeline',
  'delete_episode',
  'memory_episodes_query',
  'replay_session',
  'list_runs',
  'search_patterns',
];
const started = Date.now();

class SmokeError extends Error {}

function log(message) {
  const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(5);
  process.stdout.write(`[smoke:pack ${seconds}s] ${message}\n`);
}

/** Runs a command to completion; throws with its output when it fails. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
    env: { ...process.env, ...options.env },
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.error) throw new SmokeError(`${command} ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0 && !options.allowFailure) {
    throw new SmokeError(
      `${command} ${args.join(' ')} exited with ${result.status}:\n${output.trim()}`,
    );
  }
  return { status: result.status, stdout: result.stdout ?? '', output };
}

function check(condition, message) {
  if (!condition) throw new SmokeError(message);
}

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** The `catalog:` block of pnpm-workspace.yaml: the versions the workspace builds and tests with. */
function readCatalog() {
  const text = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const block = /^catalog:\n((?:[ \t]+.*\n?)*)/m.exec(text)?.[1] ?? '';
  const catalog = {};
  for (const line of block.split('\n')) {
    const match = /^\s+["']?([^"':]+)["']?:\s*["']?([^"'\s#]+)["']?/.exec(line);
    if (match) catalog[match[1]] = match[2];
  }
  return catalog;
}

const NETWORK_ERROR =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT)\b|network request .* failed/i;

function registryAnswers(project) {
  const ping = run('npm', ['ping', '--fetch-retries=0', '--fetch-timeout=15000'], {
    cwd: project,
    allowFailure: true,
  });
  return ping.status === 0;
}

/** Node-API < 10 (Node 20, 22.0–22.13): better-sqlite3 13 cannot run; 12 is installed instead. */
const OLD_NODE_API = Number(process.versions.napi) < 10;

function npmInstall(project, registry) {
  const cache = run('npm', ['config', 'get', 'cache'], { cwd: project }).stdout.trim();
  log(
    `npm install (registry ${registry}, cache ${cache}; ${OLD_NODE_API ? 'better-sqlite3 12 builds its addon' : 'better-sqlite3 13, prebuilt'})`,
  );
  const result = run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--strict-allow-scripts',
      '--fetch-retries=1',
      '--fetch-timeout=60000',
      '--loglevel=warn',
    ],
    // JOBS: node-gyp compiles better-sqlite3's two sources in parallel when it builds from source.
    { cwd: project, allowFailure: true, env: { JOBS: 'max', npm_config_update_notifier: 'false' } },
  );
  if (result.status !== 0) {
    // An unreachable registry does not always show as a network error: npm may report the
    // dependency it could not fetch as an unresolvable tree (ERESOLVE, "zod@undefined").
    if (NETWORK_ERROR.test(result.output) || !registryAnswers(project)) {
      throw new SmokeError(
        `npm could not reach the registry (${registry}) and the npm cache (${cache}) does not hold every dependency of the packed tarballs.\n` +
          'The smoke test installs the tarballs the way a user does, so their dependencies (zod, better-sqlite3, the MCP SDK, ulid, …) come from the registry. ' +
          'Connect to the registry (or point npm at a mirror with `npm config set registry URL`) and run it again; later runs reuse the cache.\n\n' +
          `npm said:\n${result.output.trim()}`,
      );
    }
    throw new SmokeError(`npm install failed:\n${result.output.trim()}`);
  }
  check(
    !/not yet covered by allowScripts/.test(result.output),
    `npm reported install scripts that the documented approval does not cover:\n${result.output}`,
  );
  // 12 compiles (or downloads) its addon in an install script; 13 ships prebuilt binaries.
  const addon = join(
    project,
    'node_modules/better-sqlite3',
    OLD_NODE_API
      ? 'build/Release/better_sqlite3.node'
      : `prebuilds/${process.platform}-${process.arch}.node`,
  );
  check(existsSync(addon), `better-sqlite3's native addon is missing (${addon})`);
}

/** Every `import` specifier a consumer may use: `name` plus each `exports` subpath. */
function entryPoints(manifests) {
  const entries = [];
  for (const manifest of manifests) {
    for (const subpath of Object.keys(manifest.exports)) {
      // JSON data, not modules: the consumer reads the schemas separately.
      if (subpath === './package.json' || subpath === './schemas/*') continue;
      entries.push(subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`);
    }
  }
  return entries;
}

function writeConsumer(project, manifests, version) {
  const entries = entryPoints(manifests);
  // Runtime: every entry point loads and exports something; the version is injected everywhere.
  writeFileSync(
    join(project, 'imports.mjs'),
    `${entries.map((entry, index) => `import * as entry${index} from '${entry}';`).join('\n')}
import { VERSION as coreVersion, createMemoryRunStore, createRunRecorder } from '@episodic/core';
import { importClaudeCode } from '@episodic/interop';
import { VERSION as mcpVersion } from '@episodic/mcp';
import { createSqliteStore } from '@episodic/store-sqlite';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const expected = ${JSON.stringify(version)};
const entries = { ${entries.map((entry, index) => `${JSON.stringify(entry)}: entry${index}`).join(', ')} };
for (const [entry, module] of Object.entries(entries)) {
  if (Object.keys(module).length === 0) throw new Error(\`\${entry} exports nothing\`);
}
if (coreVersion !== expected) throw new Error(\`@episodic/core VERSION is \${coreVersion}, expected \${expected}\`);
if (mcpVersion !== expected) throw new Error(\`@episodic/mcp VERSION is \${mcpVersion}, expected \${expected}\`);

const store = createMemoryRunStore();
const recorder = createRunRecorder({ store });
const { header } = await recorder.start('smoke');
if (header.server?.version !== expected) {
  throw new Error(\`run header server is \${JSON.stringify(header.server)}, expected version \${expected}\`);
}

// The packages ship their JSON Schemas at \`<package>/schemas/<name>.<version>.json\`.
const require = createRequire(import.meta.url);
for (const name of ['@episodic/core/schemas/session-state.v1.json', '@episodic/cli/schemas/export-line.v3.json', '@episodic/mcp/schemas/tool.error.v1.json']) {
  const schema = JSON.parse(readFileSync(require.resolve(name), 'utf8'));
  if (typeof schema.$id !== 'string' || !schema.$id.endsWith(name.split('/').at(-1))) throw new Error(\`\${name} has no matching $id\`);
}

// An importer converts a transcript line into a session with one run.
const imported = importClaudeCode('{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}');
if (imported.conversations.length !== 1) throw new Error('importClaudeCode did not convert the line');

// The native addon loads and the ledger works in a real database file.
const sqlite = createSqliteStore({ filename: process.argv[2] });
try {
  await sqlite.ledger.append({
    scope: 'smoke',
    type: 'conversation.user',
    session_id: 'smoke-session',
    agent_id: 'smoke',
    summary: 'hello',
  });
  const { events } = await sqlite.ledger.query({ scope: 'smoke' });
  if (events.length !== 1) throw new Error(\`the SQLite ledger returned \${events.length} events, expected 1\`);
} finally {
  sqlite.close();
}
// The adapters work against their installed frameworks.
const { createSession, createMemorySessionStore } = await import('@episodic/core');
const { episodicMiddleware, sessionMessages } = await import('@episodic/ai-sdk');
const { generateText, wrapLanguageModel } = await import('ai');
const { MockLanguageModelV3 } = await import('ai/test');
const session = createSession({ store: createMemorySessionStore() });
const middleware = episodicMiddleware({ session, runs: createMemoryRunStore() });
const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
const mock = new MockLanguageModelV3({ doGenerate: { content: [{ type: 'text', text: 'hi' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] } });
const answer = await generateText({ model: wrapLanguageModel({ model: mock, middleware }), messages: await sessionMessages(session, { input: 'hello' }), onFinish: middleware.onFinish });
if (answer.text !== 'hi' || session.log.size !== 3) throw new Error(\`@episodic/ai-sdk recorded \${session.log.size} episodes, expected 3\`);
const { EpisodicSaver } = await import('@episodic/langgraph');
const { emptyCheckpoint, uuid6 } = await import('@langchain/langgraph-checkpoint');
const saver = new EpisodicSaver({ runs: createMemoryRunStore() });
const saved = await saver.put({ configurable: { thread_id: 'smoke' } }, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { a: [1] }, channel_versions: { a: 1 } }, { source: 'input', step: -1, parents: {} }, { a: 1 });
const tuple = await saver.getTuple(saved);
if (JSON.stringify(tuple?.checkpoint.channel_values) !== '{"a":[1]}') throw new Error('@episodic/langgraph did not read its checkpoint back');
const { EpisodicSessionStore } = await import('@episodic/claude-agent-sdk');
const sessionStore = new EpisodicSessionStore({ runs: createMemoryRunStore() });
const key = { projectKey: 'smoke', sessionId: 'b7e2c1d0-0000-4000-8000-000000000001' };
await sessionStore.append(key, [{ type: 'user', uuid: 'u-1', message: { role: 'user', content: 'hello' } }]);
if ((await sessionStore.load(key))?.[0]?.uuid !== 'u-1') throw new Error('@episodic/claude-agent-sdk did not read its entry back');
const { EpisodicSession } = await import('@episodic/openai-agents');
const agentsSession = new EpisodicSession({ runs: createMemoryRunStore(), sessionId: 'smoke' });
await agentsSession.addItems([{ role: 'user', content: 'hello' }, { role: 'user', content: 'oops' }]);
await agentsSession.popItem();
if ((await agentsSession.getItems()).length !== 1) throw new Error('@episodic/openai-agents did not fold its pop');
const { EpisodicSessionService } = await import('@episodic/google-adk');
const adkRuns = createMemoryRunStore();
const adkSession = await new EpisodicSessionService({ runs: adkRuns }).createSession({ appName: 'smoke', userId: 'u', state: { 'user:name': 'Ada' } });
const reread = await new EpisodicSessionService({ runs: adkRuns }).getSession({ appName: 'smoke', userId: 'u', sessionId: adkSession.id });
if (reread?.state['user:name'] !== 'Ada') throw new Error('@episodic/google-adk did not read its session back');
console.log(\`\${Object.keys(entries).length} entry points loaded; version \${expected} in core, mcp and the run header; JSON Schemas shipped; importer ok; SQLite ledger ok; ai-sdk, langgraph, claude-agent-sdk, openai-agents and google-adk adapters ok\`);
`,
  );
  // Types: the built .d.ts of every entry point, checked as a strict consumer with skipLibCheck off.
  // The adapters' types include their frameworks' (ai, LangChain), whose own .d.ts do not pass
  // skipLibCheck: false with exactOptionalPropertyTypes: they are checked in use, below.
  const strictEntries = entries.filter((entry) => !ADAPTERS.some((name) => entry.startsWith(name)));
  writeFileSync(
    join(project, 'types.ts'),
    `${strictEntries.map((entry, index) => `import * as entry${index} from '${entry}';`).join('\n')}
import { createRunRecorder, createMemoryRunStore, EpisodicError, type RunHeader } from '@episodic/core';
import { describeStoreConformance } from '@episodic/core/testing';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore, type SqliteStoreOptions } from '@episodic/store-sqlite';
import { createEpisodicMcpServer } from '@episodic/mcp';

export const entries: readonly object[] = [${strictEntries.map((_, index) => `entry${index}`).join(', ')}];
export const version: string = entry0.VERSION;
export async function header(): Promise<RunHeader> {
  const recorder = createRunRecorder({ store: createMemoryRunStore() });
  return (await recorder.start('typed')).header;
}
export const options: SqliteStoreOptions = { filename: ':memory:' };
export const factories = [createFsStore, createSqliteStore, createEpisodicMcpServer, describeStoreConformance];
export const isEpisodicError = (value: unknown): boolean => EpisodicError.isInstance(value);
`,
  );
  writeFileSync(
    join(project, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          verbatimModuleSyntax: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['types.ts'],
      },
      null,
      2,
    )}\n`,
  );
  // The adapters in use, typed against the installed frameworks as their users type them.
  writeFileSync(
    join(project, 'adapters.ts'),
    `import type { SessionStore } from '@anthropic-ai/claude-agent-sdk';
import { episodicMiddleware, sessionMessages } from '@episodic/ai-sdk';
import { EpisodicSessionStore } from '@episodic/claude-agent-sdk';
import { createMemoryRunStore, createMemorySessionStore, createSession } from '@episodic/core';
import { EpisodicSessionService } from '@episodic/google-adk';
import { EpisodicSession } from '@episodic/openai-agents';
import type { BaseSessionService } from '@google/adk';
import type { Session } from '@openai/agents-core';
import { EpisodicSaver } from '@episodic/langgraph';
import { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { generateText, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

const session = createSession({ store: createMemorySessionStore() });
const middleware = episodicMiddleware({ session, runs: createMemoryRunStore() });
export const asMiddleware: LanguageModelMiddleware = middleware;
export async function call(model: MockLanguageModelV3): Promise<string> {
  const result = await generateText({
    model: wrapLanguageModel({ model, middleware }),
    messages: await sessionMessages(session, { input: 'hello', maxTokens: 1000 }),
    onFinish: middleware.onFinish,
  });
  return result.text;
}
export const saver: BaseCheckpointSaver = new EpisodicSaver({ runs: createMemoryRunStore() });
export const sessionStore: SessionStore = new EpisodicSessionStore({ runs: createMemoryRunStore() });
export const agentsSession: Session = new EpisodicSession({ runs: createMemoryRunStore() });
export const sessionService: BaseSessionService = new EpisodicSessionService({
  runs: createMemoryRunStore(),
});
`,
  );
  writeFileSync(
    join(project, 'tsconfig.adapters.json'),
    `${JSON.stringify(
      {
        extends: './tsconfig.json',
        compilerOptions: { skipLibCheck: true },
        files: ['adapters.ts'],
      },
      null,
      2,
    )}\n`,
  );
  return entries;
}

/**
 * A CommonJS consumer, as TypeScript with `module: nodenext` compiles one: `require()` of every
 * entry point (Node >= 20.19 loads ES modules with require()), then the SQLite ledger in a file.
 */
function writeCommonJsConsumer(project, entries) {
  // @episodic/core/testing imports vitest, which a CommonJS program cannot require (top-level
  // await): it is for test files, which run under vitest's own loader.
  const required = entries.filter((entry) => entry !== '@episodic/core/testing');
  writeFileSync(
    join(project, 'requires.cts'),
    `${required.map((entry, index) => `import entry${index} = require('${entry}');`).join('\n')}
import core = require('@episodic/core');
import sqlite = require('@episodic/store-sqlite');

const entries: Record<string, object> = { ${required.map((entry, index) => `${JSON.stringify(entry)}: entry${index}`).join(', ')} };
for (const [entry, loaded] of Object.entries(entries)) {
  if (Object.keys(loaded).length === 0) throw new Error(\`\${entry} exports nothing when required\`);
}
const store = sqlite.createSqliteStore({ filename: process.argv[2] as string });
store.ledger
  .append({ scope: 'cjs', type: 'conversation.user', session_id: 's', agent_id: 'a', summary: 'hi' })
  .then(() => store.ledger.query({ scope: 'cjs' }))
  .then(({ events }) => {
    if (events.length !== 1) throw new Error(\`expected 1 event, got \${events.length}\`);
    if (!core.EpisodicError.isInstance(new core.EpisodicError({ code: 'NOT_FOUND', message: 'x' }))) {
      throw new Error('EpisodicError from require() is not recognized');
    }
    return store.close();
  })
  .then(() => console.log(\`\${Object.keys(entries).length} entry points required (CommonJS); SQLite ledger ok\`));
`,
  );
  writeFileSync(
    join(project, 'tsconfig.cjs.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          // The .d.ts files were checked strictly above (ESM); here the adapters' are required
          // too, and their frameworks' own .d.ts need type packages a user may not have
          // (@ai-sdk/provider imports json-schema's types).
          skipLibCheck: true,
          outDir: 'cjs-out',
          types: ['node'],
        },
        files: ['requires.cts'],
      },
      null,
      2,
    )}\n`,
  );
}

/** Starts the installed episodic-mcp bin over stdio with the official client and lists its tools. */
function writeMcpClient(project) {
  writeFileSync(
    join(project, 'mcp-client.mjs'),
    `import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [bin, home, expectedVersion, expectedTools] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: bin,
  args: ['--scope', 'smoke', '--home', home],
  env: { PATH: process.env.PATH ?? '' },
  stderr: 'pipe',
});
let stderr = '';
transport.stderr?.on('data', (chunk) => { stderr += chunk; });
const client = new Client({ name: 'episodic-smoke', version: '1.0.0' });
const timer = setTimeout(() => {
  console.error(\`episodic-mcp did not answer within 60 s. Its stderr:\\n\${stderr}\`);
  process.exit(1);
}, 60_000);
try {
  await client.connect(transport);
  const server = client.getServerVersion();
  if (server?.name !== 'episodic' || server?.version !== expectedVersion) {
    throw new Error(\`serverInfo is \${JSON.stringify(server)}, expected episodic \${expectedVersion}\`);
  }
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name).sort();
  const missing = expectedTools.split(',').filter((name) => !names.includes(name));
  if (missing.length > 0) throw new Error(\`episodic-mcp does not list \${missing.join(', ')} (it lists \${names.join(', ')})\`);
  const created = await client.callTool({
    name: 'create_episode',
    arguments: { task_description: 'Smoke-test the packed packages', domain: 'release', task_type: 'testing' },
  });
  if (created.isError) throw new Error(\`create_episode failed: \${JSON.stringify(created.content)}\`);
  console.log(\`serverInfo episodic \${server.version}; \${names.length} tools: \${names.join(', ')}; create_episode ok\`);
} catch (error) {
  console.error(\`\${error instanceof Error ? error.message : String(error)}\\nepisodic-mcp stderr:\\n\${stderr}\`);
  process.exitCode = 1;
} finally {
  clearTimeout(timer);
  await client.close();
}
`,
  );
}

/** Starts the installed `episodic ui`, loads its page, its browser app and one API answer. */
function writeUiClient(project) {
  writeFileSync(
    join(project, 'ui-client.mjs'),
    `import { spawn } from 'node:child_process';

const [bin, home] = process.argv.slice(2);
const child = spawn(bin, ['ui', '--home', home, '--port', '0', '--no-open', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
let stderr = '';
child.stderr.on('data', (chunk) => { stderr += chunk; });
const timer = setTimeout(() => { console.error(\`episodic ui printed no URL in 60 s:\\n\${stderr}\`); child.kill(); process.exit(1); }, 60_000);
try {
  const line = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; if (out.includes('\\n')) resolve(out.split('\\n')[0]); });
    child.on('exit', (code) => reject(new Error(\`episodic ui exited with \${code}: \${stderr}\`)));
  });
  const { url, origin } = JSON.parse(line);
  const first = await fetch(url, { redirect: 'manual' });
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0];
  if (first.status !== 303 || cookie === '') throw new Error(\`the printed URL answered \${first.status} without a cookie\`);
  const page = await fetch(\`\${origin}/runs\`, { headers: { cookie } });
  const html = await page.text();
  const script = /src="(\\/assets\\/[^"]+\\.js)"/.exec(html)?.[1];
  if (page.status !== 200 || script === undefined) throw new Error(\`the page answered \${page.status} without the browser app: \${html.slice(0, 200)}\`);
  const app = await fetch(\`\${origin}\${script}\`, { headers: { cookie } });
  if (app.status !== 200) throw new Error(\`the browser app \${script} answered \${app.status}\`);
  const overview = await (await fetch(\`\${origin}/api/overview\`, { headers: { cookie } })).json();
  const refused = await fetch(\`\${origin}/api/overview\`);
  if (refused.status !== 401) throw new Error(\`a request without the token answered \${refused.status}, expected 401\`);
  console.log(\`\${origin}: page, browser app (\${(await app.text()).length} bytes) and /api/overview (\${overview.store} store) ok; no token → 401\`);
} catch (error) {
  console.error(\`\${error instanceof Error ? error.message : String(error)}\\nepisodic ui stderr:\\n\${stderr}\`);
  process.exitCode = 1;
} finally {
  clearTimeout(timer);
  child.kill('SIGINT');
}
`,
  );
}

async function main() {
  const manifests = PUBLISHED.map((name) => readJson(join(root, 'packages', name, 'package.json')));
  const version = manifests[0].version;
  for (const [index, name] of PUBLISHED.entries()) {
    check(
      existsSync(join(root, 'packages', name, 'dist')),
      `packages/${name}/dist is missing: run "pnpm build" first (pnpm smoke:pack does).`,
    );
    check(manifests[index].version === version, 'the published packages must share one version');
  }

  const work = realpathSync(mkdtempSync(join(tmpdir(), 'episodic-smoke-')));
  check(
    relative(realpathSync(root), work).startsWith('..'),
    `the temp project ${work} must be outside the workspace`,
  );
  const tarballs = join(work, 'tarballs');
  const project = join(work, 'consumer');
  const home = join(work, 'home');
  mkdirSync(tarballs);
  mkdirSync(project);
  mkdirSync(home);
  log(`temp project ${project}`);
  let failed = true;
  try {
    // 1. Pack.
    const files = {};
    for (const [index, name] of PUBLISHED.entries()) {
      const manifest = manifests[index];
      run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: join(root, 'packages', name) });
      const file = `${manifest.name.replace('@', '').replace('/', '-')}-${version}.tgz`;
      check(existsSync(join(tarballs, file)), `pnpm pack did not write ${file}`);
      const packed = JSON.parse(
        run('tar', ['-xzOf', join(tarballs, file), 'package/package.json']).stdout,
      );
      // Every file exports and bin point at is in the tarball (a dist half-written by a concurrent
      // build would otherwise install and fail only at the consumer).
      const contents = new Set(
        run('tar', ['-tzf', join(tarballs, file)])
          .stdout.split('\n')
          .filter(Boolean),
      );
      const targets = [
        ...Object.values(packed.exports).flatMap((target) =>
          typeof target === 'string' ? [target] : Object.values(target),
        ),
        ...Object.values(packed.bin ?? {}),
      ];
      for (const target of targets) {
        const path = `package/${target.replace(/^\.\//, '')}`;
        // A pattern export (`./schemas/*`) must match at least one packed file.
        const found = path.includes('*')
          ? [...contents].some((entry) => entry.startsWith(path.slice(0, path.indexOf('*'))))
          : contents.has(path);
        check(found, `${file} has no ${target}: run "pnpm build" and try again`);
      }
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
        for (const [dependency, range] of Object.entries(packed[field] ?? {})) {
          check(
            !/^(workspace|catalog|link|file):/.test(range),
            `${file}: ${field}.${dependency} is "${range}"; pnpm pack should have replaced it`,
          );
        }
      }
      files[manifest.name] = `file:../tarballs/${file}`;
    }
    log(`packed ${PUBLISHED.length} tarballs (version ${version})`);

    // 2. Install with npm, as a user would.
    const catalog = readCatalog();
    for (const dependency of [
      'zod',
      '@modelcontextprotocol/client',
      '@types/node',
      'vitest',
      ...FRAMEWORK_PEERS,
    ]) {
      check(catalog[dependency], `pnpm-workspace.yaml's catalog has no ${dependency}`);
    }
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify(
        {
          name: 'episodic-smoke-consumer',
          version: '0.0.0',
          private: true,
          type: 'module',
          dependencies: {
            ...files,
            zod: catalog.zod,
            '@modelcontextprotocol/client': catalog['@modelcontextprotocol/client'],
            // The packages accept better-sqlite3 12 or 13 and npm picks 13, which needs Node-API
            // 10 (Node >= 22.14): on an older Node, pin 12 as the store-sqlite README says.
            ...(OLD_NODE_API ? { 'better-sqlite3': '^12.11.1' } : {}),
            ...Object.fromEntries(FRAMEWORK_PEERS.map((name) => [name, catalog[name]])),
          },
          // A store author's test runner: @episodic/core/testing registers vitest suites.
          devDependencies: { '@types/node': catalog['@types/node'], vitest: catalog.vitest },
          // The tarballs depend on each other at this exact version, which is not on the
          // registry yet: every copy comes from the packed files.
          overrides: Object.fromEntries(
            Object.entries(files).filter(([name]) => name !== '@episodic/cli'),
          ),
          // What `npm install-scripts approve better-sqlite3` records (npm >= 11.10).
          // ...and `npm install-scripts deny @google/genai protobufjs` (packages/google-adk's README):
          // scripts of @google/adk's dependencies that it does not need.
          allowScripts: { 'better-sqlite3': true, '@google/genai': false, protobufjs: false },
        },
        null,
        2,
      )}\n`,
    );
    const registry = run('npm', ['config', 'get', 'registry'], { cwd: project }).stdout.trim();
    npmInstall(project, registry);
    log('installed');

    // 3. The consumer.
    const entries = writeConsumer(project, manifests, version);
    const imported = run(process.execPath, ['imports.mjs', join(work, 'smoke.db')], {
      cwd: project,
    });
    log(`imports: ${imported.stdout.trim()}`);

    const typescript = join(
      createRequire(join(root, 'package.json')).resolve('typescript/package.json'),
      '..',
    );
    const tsVersion = readJson(join(typescript, 'package.json')).version;
    run(process.execPath, [join(typescript, 'bin', 'tsc'), '-p', 'tsconfig.json'], {
      cwd: project,
    });
    run(process.execPath, [join(typescript, 'bin', 'tsc'), '-p', 'tsconfig.adapters.json'], {
      cwd: project,
    });
    log(
      `types: ${entries.length - ADAPTERS.length} entry points type-check (TypeScript ${tsVersion}, skipLibCheck: false); the ${ADAPTERS.length} adapters type-check in use against their frameworks`,
    );

    // 3b. A CommonJS consumer: compiled by TypeScript (nodenext), then run with require().
    writeCommonJsConsumer(project, entries);
    run(process.execPath, [join(typescript, 'bin', 'tsc'), '-p', 'tsconfig.cjs.json'], {
      cwd: project,
    });
    const required = run(
      process.execPath,
      [join('cjs-out', 'requires.cjs'), join(work, 'smoke-cjs.db')],
      { cwd: project },
    );
    log(`require: ${required.stdout.trim()} (Node ${process.versions.node})`);

    const episodic = join(project, 'node_modules', '.bin', 'episodic');
    const printed = run(episodic, ['--version'], { cwd: project }).stdout.trim();
    check(printed === version, `episodic --version printed "${printed}", expected ${version}`);
    const cliEnv = { env: { EPISODIC_HOME: home, NO_COLOR: '1' }, cwd: project };
    run(
      episodic,
      [
        ...['episodes', 'append', '--scope', 'smoke', '--session-id', 'sess-001'],
        ...['--agent-id', 'smoke', '--type', 'conversation.user', '--summary', 'hello', '--json'],
      ],
      cliEnv,
    );
    const queried = JSON.parse(
      run(episodic, ['episodes', 'query', '--scope', 'smoke', '--json'], cliEnv).stdout,
    );
    check(queried.ok === true, `episodic episodes query failed: ${JSON.stringify(queried)}`);
    check(
      JSON.stringify(queried).includes('hello'),
      `episodic episodes query did not return the appended event: ${JSON.stringify(queried)}`,
    );
    // A transcript import and an OpenTelemetry export (the installed OpenTelemetry SDK loads).
    const transcripts = JSON.parse(
      run(
        episodic,
        ['import', 'claude-code', join(root, 'fixtures', 'transcripts', 'claude-code'), '--json'],
        cliEnv,
      ).stdout,
    );
    check(
      transcripts.totals?.conversations === 2,
      `episodic import claude-code failed: ${JSON.stringify(transcripts)}`,
    );
    const traces = join(work, 'traces.json');
    const exported = JSON.parse(
      run(episodic, ['export', '--all', '--otel', traces, '--json'], cliEnv).stdout,
    );
    check(
      exported.spans?.total > 0 && readJson(traces).resourceSpans.length === 1,
      `episodic export --otel failed: ${JSON.stringify(exported)}`,
    );
    log(
      `cli: episodic --version → ${printed}; episodes append + query round trip ok; import claude-code ok; export --otel ${exported.spans.total} spans`,
    );

    writeMcpClient(project);
    const listed = run(
      process.execPath,
      [
        'mcp-client.mjs',
        join(project, 'node_modules', '.bin', 'episodic-mcp'),
        home,
        version,
        EXPECTED_TOOLS.join(','),
      ],
      { cwd: project },
    );
    log(`mcp: ${listed.stdout.trim()}`);

    writeUiClient(project);
    const served = run(process.execPath, ['ui-client.mjs', episodic, home], { cwd: project });
    log(`ui: ${served.stdout.trim()}`);
    failed = false;
  } finally {
    if (keep || failed) log(`left the temp project in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  log('ok');
}

main().catch((error) => {
  process.stderr.write(
    `\nsmoke:pack failed: ${error instanceof SmokeError ? error.message : error?.stack}\n`,
  );
  process.exitCode = 1;
});
