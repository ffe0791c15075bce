// Seed 001 (Codelia) messages survive the trip through Episodic's items: messages → items →
// messages is the identity, whatever the messages hold. The generator follows Codelia's BaseMessage
// types (packages/core/src/types/llm/messages.ts in kousw/codelia) and adds what other writers add:
// unknown fields, unknown roles and part types, odd call pairings.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BaseMessage } from '../schema/index.js';
import { inputItemSchema } from '../schema/input-item.js';
import { itemsToMessages } from './items-to-messages.js';
import { lastUserMessage } from './last-user-message.js';
import { messagesToItems } from './messages-to-items.js';

const text = fc.string({ maxLength: 12 });
const callId = fc.constantFrom('call_1', 'call_2', 'call_3', 'toolu_01');
const json = fc.jsonValue({ maxDepth: 2 });
const extras = fc.dictionary(
  fc.constantFrom('message_ts', 'x_custom', 'cache_control', 'id', 'chat_message', '__proto__'),
  json,
  { maxKeys: 2 },
);

const textPart = fc.record({ type: fc.constant('text'), text }, { requiredKeys: ['type', 'text'] });
const part = fc.oneof(
  textPart,
  fc.record({ type: fc.constant('text'), text, cache_control: json }),
  fc.record({
    type: fc.constant('image_url'),
    image_url: fc.record(
      {
        url: fc.constantFrom('https://example.com/a.png', 'data:image/png;base64,AAAA'),
        detail: fc.constantFrom('auto', 'low', 'high'),
        media_type: fc.constantFrom('image/png', 'image/jpeg'),
      },
      { requiredKeys: ['url'] },
    ),
  }),
  fc.record({
    type: fc.constant('document'),
    source: fc.record({ data: text, media_type: fc.constant('application/pdf') }),
  }),
  fc.record({ type: fc.constant('other'), provider: text, kind: text, payload: json }),
  fc.record({ type: fc.constantFrom('input_text', 'output_text', 'x-part'), text }),
);
const content = fc.oneof(text, fc.array(part, { maxLength: 3 }));

const toolCall = fc.record(
  {
    id: callId,
    type: fc.constant('function'),
    function: fc.record({ name: fc.constantFrom('list_files', 'read_file'), arguments: text }),
    provider_meta: json,
  },
  { requiredKeys: ['id', 'type', 'function'] },
);

const withExtras = <T extends object>(message: fc.Arbitrary<T>) =>
  fc.tuple(message, extras).map(([base, more]) => ({ ...more, ...base }) as BaseMessage);

const user = withExtras(
  fc.record(
    { role: fc.constant('user'), content, name: text },
    { requiredKeys: ['role', 'content'] },
  ),
);
const system = withExtras(
  fc.record(
    {
      role: fc.constantFrom('system', 'developer'),
      content: fc.oneof(text, fc.array(textPart, { maxLength: 2 })),
      name: text,
      cache: fc.boolean(),
    },
    { requiredKeys: ['role', 'content'] },
  ),
);
const assistant = withExtras(
  fc.record(
    {
      role: fc.constant('assistant'),
      content: fc.oneof(content, fc.constant(null)),
      name: text,
      tool_calls: fc.array(toolCall, { maxLength: 3 }),
      refusal: fc.oneof(text, fc.constant(null)),
    },
    { requiredKeys: ['role', 'content'] },
  ),
);
const tool = withExtras(
  fc.record(
    {
      role: fc.constant('tool'),
      tool_call_id: callId,
      tool_name: fc.constantFrom('list_files', 'read_file', 'other_tool'),
      content,
      is_error: fc.boolean(),
      output_ref: fc.record(
        { id: text, byte_size: fc.nat(), line_count: fc.nat() },
        { requiredKeys: ['id'] },
      ),
      trimmed: fc.boolean(),
    },
    { requiredKeys: ['role', 'tool_call_id', 'tool_name', 'content'] },
  ),
);
const reasoning = withExtras(
  fc.record(
    {
      role: fc.constant('reasoning'),
      content: fc.oneof(text, fc.constant(null)),
      raw_item: fc.oneof(
        json,
        fc.record({
          type: fc.constant('reasoning'),
          id: text,
          summary: fc.array(fc.record({ type: fc.constant('summary_text'), text }), {
            maxLength: 2,
          }),
          encrypted_content: text,
        }),
        fc.record({ type: fc.constant('thinking'), thinking: text, signature: text }),
      ),
    },
    { requiredKeys: ['role', 'content'] },
  ),
);
const unusual = fc.oneof(
  fc.record({ role: fc.constantFrom('function', 'critic', 'tool'), content }),
  fc.record({ role: fc.constant('tool'), tool_call_id: fc.constant(''), content: text }),
  fc.record({
    role: fc.constant('assistant'),
    content: fc.constant(''),
    tool_calls: fc.array(toolCall, { minLength: 1, maxLength: 2 }),
  }),
  fc.record({
    role: fc.constant('assistant'),
    content: fc.constant(null),
    tool_calls: fc.constant([]),
  }),
  fc.record({ role: fc.constant('assistant') }),
) as fc.Arbitrary<BaseMessage>;

/** A seed 001 conversation: any order, so unpaired calls and orphan outputs occur too. */
const seed001Messages = fc.array(fc.oneof(user, system, assistant, tool, reasoning, unusual), {
  maxLength: 12,
});

describe('seed 001 messages → items → messages', () => {
  it('property: is the identity (every field, every message, in order)', () => {
    fc.assert(
      fc.property(seed001Messages, (messages) => {
        const items = messagesToItems(messages);
        expect(itemsToMessages(items)).toEqual(messages);
      }),
      { numRuns: 500 },
    );
  });

  it('property: yields only items the log accepts', () => {
    fc.assert(
      fc.property(seed001Messages, (messages) => {
        for (const item of messagesToItems(messages)) {
          expect(inputItemSchema.safeParse(item).success).toBe(true);
        }
      }),
    );
  });

  it('keeps a reasoning message, tool_name and output_ref, and leaves clean items clean', () => {
    const messages: BaseMessage[] = [
      { role: 'user', content: 'list files' },
      {
        role: 'reasoning',
        content: 'Look first.',
        raw_item: {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 'Look first.' }],
        },
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'list_files', arguments: '{}' } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_1',
        tool_name: 'list_files',
        content: 'a\nb',
        output_ref: { id: 'ref-1', byte_size: 3 },
      },
    ];
    const items = messagesToItems(messages);
    expect(items).toEqual([
      { type: 'message', role: 'user', content: 'list files' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look first.' }] },
      { type: 'function_call', call_id: 'call_1', name: 'list_files', arguments: '{}' },
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: 'a\nb',
        chat_message: { fields: { output_ref: { id: 'ref-1', byte_size: 3 } } },
      },
    ]);
    expect(itemsToMessages(items)).toEqual(messages);
  });
});

describe('lastUserMessage (seed 001 session summaries)', () => {
  it('joins text parts and shows images, documents and provider parts as Codelia does', () => {
    expect(
      lastUserMessage([
        { role: 'user', content: 'first' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in ' },
            { type: 'image_url', image_url: { url: 'x' } },
            { type: 'other', provider: 'openai', kind: 'input_file', payload: {} },
            { type: 'document', source: {} },
            { type: 'x-part' },
            { type: 'text', text: 'src?' },
          ],
        },
        { role: 'assistant', content: 'answer' },
      ]),
    ).toBe('What is in [image][other:openai/input_file][document][content]src?');
    expect(lastUserMessage([{ role: 'user', content: [{ type: 'text', text: '' }] }])).toBe(
      '[{"type":"text","text":""}]',
    );
    expect(lastUserMessage([{ role: 'user', content: null }, { role: 'user' }])).toBe('');
    expect(lastUserMessage([{ role: 'assistant', content: 'x' }])).toBeUndefined();
  });
});
