// Regenerates the Codelia session fixtures with Codelia's own code (seed 001's implementation).
// Its code is not part of this repository: check it out anywhere and point CODELIA_DIR at it, e.g.
//   git clone https://github.com/kousw/codelia && CODELIA_DIR=$PWD/codelia node test-support/seed-data/codelia/generate.mjs
// The snapshot is written by Codelia's `SessionStateStoreImpl` as of commit 3fe5dc9 (the seed's
// `sessions/state/<session_id>.json` layout); its messages come from Codelia's OpenAI and Anthropic
// serializers (reasoning messages, tool calls with provider_meta), its tool execution (tool messages
// with tool_name) and its tool output cache (output_ref, trimmed). `summaries.json` is what that
// store's `list()` reports (`last_user_message`). Needs `pnpm install` here (esbuild, zod).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repository = join(here, '..', '..', '..');
const codelia = process.env.CODELIA_DIR;
if (!codelia) throw new Error('set CODELIA_DIR to a checkout of https://github.com/kousw/codelia');
const require = createRequire(join(repository, 'packages', 'core', 'package.json'));
const esbuild = require(
  require.resolve('esbuild', {
    paths: [join(repository, 'node_modules', '.pnpm', 'node_modules')],
  }),
);

// The driver: a scripted conversation through Codelia's own code paths. Kept as text: it is
// compiled against the checkout, never against this repository.
const ENTRY = String.raw`
import { z } from 'zod';
import { toChatInvokeCompletion as fromOpenAi } from '../packages/core/src/llm/openai/serializer';
import { toChatInvokeCompletion as fromAnthropic } from '../packages/core/src/llm/anthropic/serializer';
import { executeToolCall } from '../packages/core/src/agent/tool-execution';
import { defineTool } from '../packages/core/src/tools/define';
import { ToolOutputCacheService } from '../packages/core/src/services/tool-output-cache/service';
import { SessionStateStoreImpl } from './session-state';

const listFiles = defineTool({
  name: 'list_files',
  description: 'List files',
  input: z.object({ path: z.string() }),
  execute: async ({ path }) => ({ type: 'text', text: Array.from({ length: 40 }, (_, i) => path + '/file-' + i + '.ts').join('\n') }),
});
const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file',
  input: z.object({ path: z.string() }),
  execute: async () => { throw new Error('ENOENT: no such file'); },
});
const tools = [listFiles, readFile];

// A tool output cache that keeps outputs in memory and trims long ones, as Codelia's does.
let refs = 0;
const cache = new ToolOutputCacheService(
  { enabled: true, maxMessageBytes: 200 },
  {
    modelRegistry: { models: {}, aliases: {} },
    store: {
      save: async (record) => ({ id: 'ref-' + ++refs + '-' + record.tool_call_id, byte_size: Buffer.byteLength(record.content), line_count: record.content.split('\n').length }),
      read: async () => '', readLine: async () => '', grep: async () => '',
    },
  },
);

async function runTool(call) {
  const { message } = await executeToolCall({ toolCall: call, tools });
  return cache.processToolMessage(message);
}

function openAiResponse(output) {
  return { id: 'resp_1', object: 'response', model: 'gpt-5-mini', output, usage: { input_tokens: 100, output_tokens: 20, total_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 8 } } };
}

export async function generate(sessionsDir) {
  const store = new SessionStateStoreImpl({ paths: { sessionsDir } });
  const messages = [];
  messages.push({ role: 'system', content: 'You are a coding assistant.' });
  messages.push({ role: 'user', content: [
    { type: 'text', text: 'What is in ' },
    { type: 'text', text: 'src? ' },
    { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low', media_type: 'image/png' } },
  ] });
  const first = fromOpenAi(openAiResponse([
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'List the directory first.' }], encrypted_content: 'gAAAAB-opaque' },
    { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Let me look.', annotations: [] }] },
    { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'list_files', arguments: '{"path":"src"}', status: 'completed' },
    { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'read_file', arguments: '{"path":"src/missing.ts"}', status: 'completed' },
  ]));
  messages.push(...first.messages);
  for (const message of first.messages) {
    for (const call of message.tool_calls ?? []) messages.push(await runTool(call));
  }
  const second = fromAnthropic({
    id: 'msg_a1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_reason: 'end_turn', stop_sequence: null,
    usage: { input_tokens: 200, output_tokens: 30 },
    content: [
      { type: 'thinking', thinking: 'There are 40 files; one read failed.', signature: 'sig-opaque' },
      { type: 'redacted_thinking', data: 'redacted-opaque' },
      { type: 'text', text: 'src holds 40 TypeScript files; src/missing.ts does not exist.' },
    ],
  });
  messages.push(...second.messages);
  messages.push({ role: 'user', content: [
    { type: 'other', provider: 'openai', kind: 'input_file', payload: { file_id: 'file-1' } },
    { type: 'text', text: 'Thanks!' },
  ] });
  messages.push({ role: 'assistant', content: 'You are welcome.', name: 'coder', refusal: null });

  await store.save({
    schema_version: 1,
    session_id: 'b2c4a1e0-7c1d-4f5e-9a3b-2d6f8e0c1a4b',
    updated_at: '2026-02-03T12:00:02.900Z',
    run_id: '8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a',
    invoke_seq: 2,
    messages,
    meta: { codelia_workspace_root: '/home/user/project', ui: { theme: 'dark' } },
  });
  // Two more snapshots for the summary rule: the last user message with only an image, and none.
  await store.save({
    schema_version: 1,
    session_id: '0d9e8f7a-6b5c-4d3e-8f1a-2b3c4d5e6f70',
    updated_at: '2026-02-04T08:00:00.000Z',
    messages: [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }, { type: 'document', source: { data: 'JVBERi0=', media_type: 'application/pdf' } }] },
    ],
  });
  await store.save({
    schema_version: 1,
    session_id: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
    updated_at: '2026-02-05T08:00:00.000Z',
    messages: [{ role: 'system', content: 'idle' }],
  });
  const summaries = await store.list();
  return summaries.sort((a, b) => a.session_id.localeCompare(b.session_id));
}
`;

const work = mkdtempSync(join(codelia, '.episodic-fixture-'));
try {
  // The seed's snapshot store (one JSON file per session), from Codelia's history.
  for (const file of ['session-state.ts', 'paths.ts']) {
    writeFileSync(
      join(work, file),
      execFileSync('git', ['-C', codelia, 'show', `3fe5dc9:packages/storage/src/${file}`], {
        encoding: 'utf8',
      }),
    );
  }
  // What the store imports from @codelia/core at run time: only stringifyContent.
  writeFileSync(
    join(work, 'codelia-core.ts'),
    `export { stringifyContent } from '../packages/core/src/content/stringify';\n`,
  );
  writeFileSync(join(work, 'entry.ts'), ENTRY);
  const bundle = join(work, 'bundle.mjs');
  await esbuild.build({
    entryPoints: [join(work, 'entry.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    alias: { '@codelia/core': join(work, 'codelia-core.ts') },
    nodePaths: [join(repository, 'node_modules', '.pnpm', 'node_modules')],
    logLevel: 'warning',
  });
  const output = join(work, 'out');
  mkdirSync(output);
  const { generate } = await import(pathToFileURL(bundle).href);
  const summaries = await generate(output);
  const stateDirectory = join(output, 'state');
  const target = join(here, 'sessions', 'state');
  mkdirSync(target, { recursive: true });
  for (const summary of summaries) {
    const name = `${summary.session_id}.json`;
    writeFileSync(join(target, name), readFileSync(join(stateDirectory, name)));
  }
  writeFileSync(join(here, 'summaries.json'), `${JSON.stringify(summaries, null, 2)}\n`);
  process.stdout.write(`wrote ${summaries.length} snapshots to ${target}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
