import type { InputItem } from '@episodic/core';
import { describe, expect, it } from 'vitest';
import { TOOL_DEFINITIONS } from '../tools/workspace-tools.js';
import { createOpenAiModel, ModelEndpointError } from './openai-model.js';
import { selectModel } from './select-model.js';

function fakeFetch(
  status: number,
  body: unknown,
  seen: Array<{ url: string; init: RequestInit }>,
): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(url), init: init ?? {} });
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status });
  }) as typeof fetch;
}

const items: InputItem[] = [
  { type: 'message', role: 'user', content: 'List the files.' },
  { type: 'function_call', call_id: 'call_1', name: 'list_files', arguments: '{}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'a.md  1 bytes' },
];
const signal = new AbortController().signal;

describe('the OpenAI-compatible model', () => {
  it('sends chat messages with paired tool calls and converts the answer back to items', async () => {
    const seen: Array<{ url: string; init: RequestInit }> = [];
    const answer = {
      choices: [
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_2',
                type: 'function',
                function: { name: 'read_file', arguments: '{"path":"a.md"}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 120, completion_tokens: 9 },
    };
    const model = createOpenAiModel({
      model: 'm',
      baseUrl: 'http://127.0.0.1:9/v1/',
      apiKey: 'k',
      fetch: fakeFetch(200, answer, seen),
    });
    const response = await model.respond({
      items,
      tools: TOOL_DEFINITIONS,
      system: 'sys',
      turnId: 't',
      round: 0,
      signal,
    });
    expect(response).toEqual({
      output: [
        {
          type: 'function_call',
          call_id: 'call_2',
          name: 'read_file',
          arguments: '{"path":"a.md"}',
        },
      ],
      usage: { inputTokens: 120, outputTokens: 9 },
      stopReason: 'tool_calls',
    });
    expect(seen[0]?.url).toBe('http://127.0.0.1:9/v1/chat/completions');
    expect((seen[0]?.init.headers as Record<string, string> | undefined)?.authorization).toBe(
      'Bearer k',
    );
    const body = JSON.parse(String(seen[0]?.init.body));
    expect(body.model).toBe('m');
    expect(body.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'List the files.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'list_files', arguments: '{}' } },
        ],
      },
      { role: 'tool', content: 'a.md  1 bytes', tool_call_id: 'call_1' },
    ]);
    expect(body.tools).toHaveLength(TOOL_DEFINITIONS.length);
    expect(body.tools[0]).toEqual({ type: 'function', function: TOOL_DEFINITIONS[0] });
  });

  it('says what to check when the endpoint fails', async () => {
    const unauthorized = createOpenAiModel({
      model: 'm',
      baseUrl: 'http://x/v1',
      apiKey: 'bad',
      fetch: fakeFetch(401, '{"error":"bad key"}', []),
    });
    await expect(
      unauthorized.respond({ items, tools: [], system: 's', turnId: 't', round: 0, signal }),
    ).rejects.toThrow(/HTTP 401: \{"error":"bad key"\} \(check OPENAI_API_KEY\)/);
    const garbage = createOpenAiModel({
      model: 'm',
      baseUrl: 'http://x/v1',
      apiKey: 'k',
      fetch: fakeFetch(200, 'not json', []),
    });
    await expect(
      garbage.respond({ items, tools: [], system: 's', turnId: 't', round: 0, signal }),
    ).rejects.toThrow(ModelEndpointError);
    const empty = createOpenAiModel({
      model: 'm',
      baseUrl: 'http://x/v1',
      apiKey: 'k',
      fetch: fakeFetch(200, { choices: [] }, []),
    });
    await expect(
      empty.respond({ items, tools: [], system: 's', turnId: 't', round: 0, signal }),
    ).rejects.toThrow('without choices[0].message');
  });

  it('summarizes without tools', async () => {
    const seen: Array<{ url: string; init: RequestInit }> = [];
    const model = createOpenAiModel({
      model: 'm',
      baseUrl: 'http://x/v1',
      apiKey: 'k',
      fetch: fakeFetch(
        200,
        { choices: [{ message: { role: 'assistant', content: ' Listed a.md. ' } }] },
        seen,
      ),
    });
    expect(await model.summarize({ items, covers: { fromId: 1, toId: 3 }, signal })).toBe(
      'Listed a.md.',
    );
    expect(JSON.parse(String(seen[0]?.init.body)).tools).toBeUndefined();
  });
});

describe('selectModel', () => {
  it('picks the built-in model by default and an endpoint for openai:<name>', () => {
    expect(selectModel('built-in', {}).label).toBe('built-in');
    expect(selectModel('openai:gpt-4o-mini', { OPENAI_API_KEY: 'k' }).label).toBe(
      'openai:gpt-4o-mini',
    );
  });

  it('explains missing or bad configuration', () => {
    expect(() => selectModel('openai:m', {})).toThrow(/needs OPENAI_API_KEY/);
    expect(() => selectModel('openai:m', { OPENAI_API_KEY: '  ' })).toThrow(/needs OPENAI_API_KEY/);
    expect(() =>
      selectModel('openai:m', { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'not a url' }),
    ).toThrow(/is not a URL/);
    expect(() => selectModel('gpt-4o', {})).toThrow(/Unknown --model "gpt-4o"/);
  });
});
