import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { expectValidConversation, readFixture, recordsOf } from '../__fixtures__/read-fixture.js';
import { importOpenAI } from '../import-transcript.js';

function itemsOf(
  conversation: { episodes: ReadonlyArray<{ type: string; payload: unknown }> } | undefined,
) {
  return (conversation?.episodes ?? []).flatMap((episode) =>
    episode.type === 'item' ? [(episode.payload as { item: Record<string, unknown> }).item] : [],
  );
}

describe('importOpenAI', () => {
  it('reads a Responses request: instructions, items and the request settings', () => {
    const result = importOpenAI(readFixture('openai/responses-request.json'), {
      time: '2025-03-10T12:00:00Z',
    });
    expect(result.problems).toEqual([]);
    const [conversation] = result.conversations;
    expectValidConversation(conversation as NonNullable<typeof conversation>);
    expect(itemsOf(conversation).map((item) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'message',
      'message',
      'reasoning',
      'message',
    ]);
    expect(conversation?.state.context).toMatchObject({
      import: {
        format: 'openai',
        container: { tools: [expect.objectContaining({ name: 'get_order' })] },
      },
    });
    expect(conversation?.runs).toHaveLength(2);
    const header = recordsOf(conversation?.runs[0]?.records ?? [], 'header')[0];
    expect(header).toMatchObject({
      started_at: '2025-03-10T12:00:00.000Z',
      model: { provider: 'openai', name: 'gpt-4.1' },
      prompts: { system: 'You are a helpful assistant for the Acme order service.' },
    });
  });

  it('reads Chat Completions messages through core’s converter, keeping unmapped fields', () => {
    const result = importOpenAI(readFixture('openai/chat-messages.json'));
    const [conversation] = result.conversations;
    expectValidConversation(conversation as NonNullable<typeof conversation>);
    const items = itemsOf(conversation);
    expect(items.map((item) => item.type)).toEqual([
      'message',
      'message',
      'function_call',
      'function_call_output',
      'message',
      'message',
    ]);
    expect(items[2]).toEqual({
      type: 'function_call',
      call_id: 'call_cancel_1043',
      name: 'cancel_order',
      arguments: '{"order_id":"1043"}',
      // What the item cannot hold of its message (here `refusal`) is kept for the way back.
      chat_message: { fields: { refusal: null } },
    });
    expect(items[5]).toMatchObject({
      role: 'user',
      content: [
        { type: 'input_text', text: 'OK. Here is a photo of the label:' },
        { type: 'input_image', image_url: 'https://images.example/label-1043.png' },
      ],
    });
    const assistant = conversation?.episodes.find(
      (episode) => episode.type === 'item' && episode.payload.item.type === 'function_call',
    );
    expect(assistant?.meta.raw).toEqual({ refusal: null });
    // Each assistant message is its own model call; the last turn is still waiting for an answer.
    expect(recordsOf(conversation?.runs[0]?.records ?? [], 'llm.response')).toHaveLength(2);
    expect(recordsOf(conversation?.runs[1]?.records ?? [], 'run.end')).toHaveLength(0);
  });

  it('reads JSONL with one conversation per line (fine-tuning and batch files), reporting torn lines', () => {
    const result = importOpenAI(readFixture('openai/chat-conversations.jsonl'), {
      label: 'train.jsonl',
    });
    expect(result.problems).toEqual([expect.objectContaining({ source: 'train.jsonl', line: 3 })]);
    expect(result.conversations.map((conversation) => conversation.sourceKey)).toEqual([
      expect.stringMatching(/^sha:/),
      expect.stringMatching(/^sha:/),
      'batch:req-17',
    ]);
    for (const conversation of result.conversations) expectValidConversation(conversation);
    expect(result.conversations[2]?.state.context).toMatchObject({
      import: { container: { method: 'POST', url: '/v1/chat/completions' } },
    });
    const weighted = result.conversations[1]?.episodes.at(-1);
    expect(weighted?.meta.raw).toEqual({ weight: 1 });
  });

  it('reads JSONL Responses items as one conversation, grouping adjacent output items into one call', () => {
    const [conversation] = importOpenAI(readFixture('openai/responses-items.jsonl')).conversations;
    expectValidConversation(conversation as NonNullable<typeof conversation>);
    expect(itemsOf(conversation).find((item) => item.type === 'web_search_call')).toMatchObject({
      id: 'ws_1',
    });
    expect(
      recordsOf(conversation?.runs[0]?.records ?? [], 'llm.response').map((record) => record.seq),
    ).toEqual([1, 2]);
  });

  it('reads a response object: its output is one model call with usage and a time', () => {
    const [conversation] = importOpenAI(readFixture('openai/response.json')).conversations;
    expect(conversation?.sourceKey).toBe('resp_68c1f0a2b3');
    expect(conversation?.episodes[0]?.meta.ts).toBe('2025-03-08T23:29:02.000Z');
    expect(conversation?.state.context).toMatchObject({
      import: { container: { object: 'response', usage: { total_tokens: 347 } } },
    });
  });

  it('derives the session id from the content: the same file gives the same session', () => {
    const text = readFixture('openai/chat-messages.json');
    expect(importOpenAI(text).conversations[0]?.sessionId).toBe(
      importOpenAI(`\uFEFF${text}\n`).conversations[0]?.sessionId,
    );
    expect(importOpenAI(text.replace('1043', '1044')).conversations[0]?.sessionId).not.toBe(
      importOpenAI(text).conversations[0]?.sessionId,
    );
  });

  it('keeps elements that are neither items nor messages as import.raw', () => {
    const [conversation] = importOpenAI(
      JSON.stringify([{ role: 'user', content: 'hi' }, { foo: 1 }]),
    ).conversations;
    expect(conversation?.episodes[1]?.payload).toEqual({
      event: 'import.raw',
      data: { reason: 'not an item or message (element 2)', entry: { foo: 1 } },
    });
  });

  test.prop([
    fc.array(
      fc.oneof(
        fc.json(),
        fc.string().filter((line) => !/[\r\n]/.test(line)),
      ),
      { maxLength: 20 },
    ),
  ])('never throws on arbitrary JSON or text and yields valid data', (lines) => {
    for (const text of [
      lines.join('\n'),
      `[${lines.filter((line) => line.trim() !== '').join(',')}]`,
    ]) {
      const imported = importOpenAI(text);
      for (const conversation of imported.conversations) expectValidConversation(conversation);
    }
  });
});
