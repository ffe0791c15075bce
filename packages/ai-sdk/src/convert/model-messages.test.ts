import { itemsToMessages } from '@episodic/core';
import { fc, test } from '@fast-check/vitest';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { canonicalMessages, modelMessageArbitrary } from './__fixtures__/arbitraries.js';
import { itemsToModelMessages, modelMessagesToItems } from './model-messages.js';

const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);

describe('modelMessagesToItems', () => {
  it('maps messages, images, files, reasoning, calls and results to Responses-style items', () => {
    const messages: ModelMessage[] = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image', image: png, mediaType: 'image/png' },
          {
            type: 'file',
            data: new URL('https://example.com/a.pdf'),
            mediaType: 'application/pdf',
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Look first.' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'describe', input: { size: 2 } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'describe',
            output: { type: 'json', value: { label: 'a cat' } },
          },
        ],
      },
      { role: 'assistant', content: 'A cat.' },
    ];
    const items = modelMessagesToItems(messages);
    expect(items).toEqual([
      { type: 'message', role: 'system', content: 'Be brief.' },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is in this picture?' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
          {
            type: 'input_file',
            file_url: 'https://example.com/a.pdf',
            ai_sdk: { mediaType: 'application/pdf' },
          },
        ],
      },
      {
        type: 'reasoning',
        summary: [],
        content: [{ type: 'reasoning_text', text: 'Look first.' }],
        ai_sdk: { message: {} },
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
      { type: 'function_call', call_id: 'call_1', name: 'describe', arguments: '{"size":2}' },
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: '{"label":"a cat"}',
        ai_sdk: { output: 'json', toolName: 'describe', message: {} },
      },
      { type: 'message', role: 'assistant', content: 'A cat.', ai_sdk: { message: {} } },
    ]);
    // Core reads them like any other items: the call keeps its output (reasoning is seed 001's
    // own `reasoning` message).
    expect(itemsToMessages(items).map((message) => message.role)).toEqual([
      'system',
      'user',
      'reasoning',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(canonicalMessages(itemsToModelMessages(items))).toEqual(canonicalMessages(messages));
  });

  it('drops the episodic history mark and keeps other provider options', () => {
    const [item] = modelMessagesToItems([
      {
        role: 'user',
        content: 'hi',
        providerOptions: {
          episodic: { episodeIds: [1] },
          anthropic: { cacheControl: { type: 'ephemeral' } },
        },
      },
    ]);
    expect(item).toEqual({
      type: 'message',
      role: 'user',
      content: 'hi',
      ai_sdk: {
        message: { providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
      },
    });
    expect(
      modelMessagesToItems([{ role: 'user', content: 'hi', providerOptions: { episodic: {} } }]),
    ).toEqual([{ type: 'message', role: 'user', content: 'hi' }]);
  });

  it('rejects what is not a message list, naming the field', () => {
    expect(() => modelMessagesToItems([{ role: 'robot', content: 'x' }] as never)).toThrow(
      /\[0\]\.role.*must be one of/,
    );
    expect(() => modelMessagesToItems('hello' as never)).toThrow(/modelMessagesToItems messages/);
  });
});

describe('itemsToModelMessages', () => {
  it('reads plain Responses items (no ai_sdk detail) like a provider would', () => {
    const messages = itemsToModelMessages([
      { type: 'message', role: 'developer', content: 'Rules.' },
      { type: 'message', role: 'user', content: 'list files' },
      { type: 'message', role: 'assistant', content: 'Looking.' },
      { type: 'function_call', call_id: 'c1', name: 'list_files', arguments: '{}' },
      { type: 'function_call', call_id: 'c2', name: 'read_file', arguments: 'not json' },
      { type: 'function_call_output', call_id: 'c1', output: 'a\nb' },
      {
        type: 'function_call_output',
        call_id: 'c2',
        output: [{ type: 'input_text', text: 'hello' }],
      },
      { type: 'web_search_call', id: 'ws_1', status: 'completed' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
    ]);
    expect(messages).toEqual([
      { role: 'system', content: 'Rules.' },
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'list_files', input: {} },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: 'not json' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'list_files',
            output: { type: 'text', value: 'a\nb' },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'read_file',
            output: { type: 'content', value: [{ type: 'text', text: 'hello' }] },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]);
  });

  it('rejects invalid items, naming the field', () => {
    expect(() =>
      itemsToModelMessages([{ type: 'function_call', call_id: '', name: 'x', arguments: '{}' }]),
    ).toThrow(/call_id/);
  });
});

describe('round trips', () => {
  test.prop([fc.array(modelMessageArbitrary, { maxLength: 6 })])(
    'ModelMessage → items → ModelMessage keeps every message, part, call, result and option',
    (messages) => {
      const items = modelMessagesToItems(messages as ModelMessage[]);
      expect(canonicalMessages(itemsToModelMessages(items))).toEqual(canonicalMessages(messages));
    },
  );

  test.prop([fc.array(modelMessageArbitrary, { maxLength: 6 })])(
    'items → ModelMessage → items gives the same items, and the items survive JSON (a snapshot)',
    (messages) => {
      const items = modelMessagesToItems(messages as ModelMessage[]);
      const stored = JSON.parse(JSON.stringify(items));
      expect(stored).toEqual(items);
      expect(modelMessagesToItems(itemsToModelMessages(stored))).toEqual(items);
    },
  );
});
