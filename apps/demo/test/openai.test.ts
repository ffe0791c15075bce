import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoReport } from '../src/report.js';
import { cleanEnvironment, runDemo, temporaryHome } from './run-built-demo.js';

// The OpenAI-compatible path against a fake Chat Completions server on 127.0.0.1, started by
// the test: no network, no model service. The fake answers by simple rules, like a small model.

interface ChatMessage {
  role: string;
  content?: string | null;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

interface RecordedRequest {
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: {
    model: string;
    messages: ChatMessage[];
    tools?: unknown[];
    tool_choice?: unknown;
  };
}

const requests: RecordedRequest[] = [];
let server: Server;
let baseUrl: string;
let nextCall = 0;

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The fake model: one tool call for a new request, then an answer that quotes the tool output. */
function answer(body: RecordedRequest['body']) {
  const last = body.messages.at(-1);
  const usage = {
    prompt_tokens: Math.ceil(JSON.stringify(body.messages).length / 4),
    completion_tokens: 12,
    total_tokens: 0,
  };
  if (body.tools === undefined) {
    return {
      message: { role: 'assistant', content: 'Summary: the user explored the workspace files.' },
      finish_reason: 'stop',
      usage,
    };
  }
  if (last?.role === 'tool') {
    const text = String(last.content ?? '');
    return {
      message: {
        role: 'assistant',
        content: `Done. The tool said: ${text.slice(0, 60).replace(/\s+/g, ' ')}`,
      },
      finish_reason: 'stop',
      usage,
    };
  }
  const request = String(last?.content ?? '').toLowerCase();
  const [name, args] = request.includes('server.log')
    ? ['read_file', { path: 'logs/server.log' }]
    : request.includes('invoice')
      ? ['read_file', { path: 'invoice.csv' }]
      : ['list_files', {}];
  nextCall += 1;
  return {
    message: {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_fake_${nextCall}`,
          type: 'function',
          function: { name, arguments: JSON.stringify(args) },
        },
      ],
    },
    finish_reason: 'tool_calls',
    usage,
  };
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const text = await readBody(request);
    const body = JSON.parse(text) as RecordedRequest['body'];
    requests.push({ path: request.url ?? '', authorization: request.headers.authorization, body });
    const { message, finish_reason, usage } = answer(body);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message, finish_reason }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('--model openai:<name>', () => {
  it('runs the same agent loop against an OpenAI-compatible endpoint', async () => {
    const home = temporaryHome();
    const result = await runDemo(['--json', '--home', home, '--model', 'openai:fake-model'], {
      env: cleanEnvironment({ OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: 'test-key' }),
    });
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as DemoReport;
    expect(report.model).toBe('openai:fake-model');
    expect(report.offline).toBe(false);
    expect(report.checks.filter((check) => check.status === 'failed')).toEqual([]);
    const passed = new Set(
      report.checks.filter((check) => check.status === 'passed').map((check) => check.name),
    );
    for (const name of [
      'run-files',
      'snapshots',
      'tool-calls-paired',
      'long-output-complete-on-disk',
      'interrupt-boundary',
      'failed-turn-changed-nothing',
      'invocation-seq-continues',
      'resume-in-fresh-process',
      'fork-isolated',
      'ledger-counts-match',
      'scope-isolation',
      'task-episode-learned',
    ]) {
      expect(passed.has(name), name).toBe(true);
    }

    // Every request: the right endpoint, key, model and tools, and tool outputs paired with calls.
    expect(requests.length).toBeGreaterThan(10);
    for (const { path, authorization, body } of requests) {
      expect(path).toBe('/v1/chat/completions');
      expect(authorization).toBe('Bearer test-key');
      expect(body.model).toBe('fake-model');
      expect(body.messages[0]?.role).toBe('system');
      const called = new Set<string>();
      for (const message of body.messages) {
        for (const call of message.tool_calls ?? []) called.add(call.id);
        if (message.role === 'tool') expect(called.has(String(message.tool_call_id))).toBe(true);
      }
    }
    const withTools = requests.filter((request) => request.body.tools !== undefined);
    expect(withTools.every((request) => request.body.tools?.length === 5)).toBe(true);

    // The long log reached the model truncated, while the run file kept all of it.
    const logViews = requests.flatMap(({ body }) =>
      body.messages.filter(
        (message) =>
          message.role === 'tool' &&
          String(message.content).includes('ERROR') === false &&
          String(message.content).includes('(truncated:'),
      ),
    );
    expect(logViews.length).toBeGreaterThan(0);
    expect(report.scenarios.truncation?.fileChars).toBeGreaterThan(8_000);

    // The resumed process talked to the endpoint too, and its run continued the session.
    expect(report.turns.find((turn) => turn.label === 'T8')?.modelCalls.length).toBeGreaterThan(0);
    expect(report.turns.find((turn) => turn.label === 'T7')?.outcome).toBe('failed');
    expect(report.turns.find((turn) => turn.label === 'T4')?.outcome).toBe('interrupted');
  });

  it('exits 2 with a clear message when OPENAI_API_KEY is missing, touching nothing', async () => {
    const home = temporaryHome();
    const result = await runDemo(['--home', home, '--model', 'openai:gpt-4o-mini'], {
      env: cleanEnvironment({ OPENAI_BASE_URL: baseUrl }),
    });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--model openai:gpt-4o-mini needs OPENAI_API_KEY');
    expect(result.stderr).toContain('OPENAI_BASE_URL');
    expect(existsSync(home)).toBe(false);
  });

  it('exits 2 for a model spec it does not know or a bad base URL', async () => {
    const unknown = await runDemo(['--model', 'anthropic:claude']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('Unknown --model "anthropic:claude"');
    const empty = await runDemo(['--model', 'openai:']);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('needs a model name');
    const badUrl = await runDemo(['--model', 'openai:x'], {
      env: cleanEnvironment({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'ftp://example.invalid' }),
    });
    expect(badUrl.status).toBe(2);
    expect(badUrl.stderr).toContain('must start with http:// or https://');
  });
});
