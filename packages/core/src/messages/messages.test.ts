import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEpisodic } from '../episodic/create-episodic.js';
import type { InputItem } from '../schema/index.js';
import { episodesToMessages, itemsToMessages } from './items-to-messages.js';
import { messagesToItems } from './messages-to-items.js';

const conversation: InputItem[] = [
  { type: 'message', role: 'system', content: 'You are terse.' },
  { type: 'message', role: 'user', content: 'list files' },
  { type: 'message', role: 'assistant', content: 'Looking.' },
  { type: 'function_call', call_id: 'call_1', name: 'list_files', arguments: '{}' },
  { type: 'function_call', call_id: 'call_2', name: 'read_file', arguments: '{"path":"a"}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'a\nb' },
  { type: 'function_call_output', call_id: 'call_2', output: 'hello' },
  { type: 'message', role: 'assistant', content: 'a and b.' },
];

describe('items ⇄ messages', () => {
  it('joins consecutive calls into one assistant message and pairs each output by tool_call_id', () => {
    expect(itemsToMessages(conversation)).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'list_files', arguments: '{}' } },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"a"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', tool_name: 'list_files', content: 'a\nb' },
      { role: 'tool', tool_call_id: 'call_2', tool_name: 'read_file', content: 'hello' },
      { role: 'assistant', content: 'a and b.' },
    ]);
  });

  it('round-trips items through messages without losing a call or its pairing', () => {
    expect(messagesToItems(itemsToMessages(conversation))).toEqual(conversation);
  });

  it('converts text and image parts both ways', () => {
    const items: InputItem[] = [
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'see' },
          { type: 'input_image', image_url: 'data:x' },
        ],
      },
    ];
    const messages = itemsToMessages(items);
    expect(messages[0]?.content).toEqual([
      { type: 'text', text: 'see' },
      { type: 'image_url', image_url: { url: 'data:x' } },
    ]);
    expect(messagesToItems(messages)).toEqual(items);
  });

  it('stamps message_ts from episodes and skips non-item episodes', () => {
    const log = createEpisodic(undefined, { now: () => new Date('2026-01-01T00:00:00.000Z') });
    log.appendItems([{ type: 'message', role: 'user', content: 'hi' }]);
    log.append({ type: 'boundary', payload: { reason: 'interrupt', title: 'stop' } });
    expect(episodesToMessages(log.read())).toEqual([
      { role: 'user', content: 'hi', message_ts: '2026-01-01T00:00:00.000Z' },
    ]);
  });

  it('property: every call keeps exactly its output across a round trip', () => {
    const callId = fc.string({ minLength: 1, maxLength: 6 });
    const turn = fc
      .tuple(fc.string({ maxLength: 10 }), fc.uniqueArray(callId, { maxLength: 3 }))
      .map(([text, ids]) => [
        { type: 'message', role: 'user', content: text },
        ...ids.map((id) => ({ type: 'function_call', call_id: id, name: 'tool', arguments: '{}' })),
        ...ids.map((id) => ({ type: 'function_call_output', call_id: id, output: `out ${id}` })),
      ]);
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 5 }), (turns) => {
        const items = turns.flat() as InputItem[];
        const back = messagesToItems(itemsToMessages(items));
        const pairs = (list: InputItem[]) =>
          list
            .filter((item) => item.type === 'function_call_output')
            .map((item) => `${String(item.call_id)}=${String(item.output)}`);
        expect(pairs(back)).toEqual(pairs(items));
        expect(
          back.filter((item) => item.type === 'function_call').map((item) => item.call_id),
        ).toEqual(
          items.filter((item) => item.type === 'function_call').map((item) => item.call_id),
        );
      }),
    );
  });
});
