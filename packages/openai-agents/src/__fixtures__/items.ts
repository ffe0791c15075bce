import type { AgentInputItem } from '@openai/agents-core';

/**
 * One item of every AgentInputItem kind the SDK stores in a session (written from the shapes in
 * @openai/agents-core's protocol types), with provider data, bytes and fields the SDK does not
 * know, as a session must keep them.
 */
export const EVERY_KIND: AgentInputItem[] = [
  { role: 'user', content: 'plain user text' },
  {
    type: 'message',
    role: 'user',
    id: 'msg_user_1',
    content: [
      { type: 'input_text', text: 'look at this' },
      { type: 'input_image', image: 'https://example.com/cat.png', detail: 'low' },
      { type: 'input_file', file: { id: 'file_1' }, filename: 'notes.txt' },
    ],
    providerData: { cache_control: { type: 'ephemeral' } },
  },
  { type: 'message', role: 'system', content: 'You are terse.' },
  {
    type: 'message',
    role: 'assistant',
    id: 'msg_asst_1',
    status: 'completed',
    content: [
      { type: 'output_text', text: 'Here you go.', providerData: { annotations: [] } },
      { type: 'refusal', refusal: 'Not that part.' },
    ],
  },
  {
    type: 'function_call',
    id: 'fc_1',
    callId: 'call_1',
    name: 'get_weather',
    arguments: '{"city":"Oslo"}',
    status: 'completed',
  },
  {
    type: 'function_call_result',
    callId: 'call_1',
    name: 'get_weather',
    status: 'completed',
    output: { type: 'text', text: '-3°C, snow' },
  },
  {
    type: 'function_call_result',
    callId: 'call_2',
    name: 'screenshot',
    status: 'completed',
    output: {
      type: 'image',
      image: { data: new Uint8Array([0, 1, 2, 250, 255]), mediaType: 'image/png' },
    },
  },
  {
    type: 'reasoning',
    id: 'rs_1',
    content: [{ type: 'input_text', text: 'The user wants the weather.' }],
    rawContent: [{ type: 'reasoning_text', text: 'raw chain' }],
    providerData: { encrypted_content: 'gAAAA…', summary: [] },
  },
  {
    type: 'hosted_tool_call',
    id: 'ws_1',
    name: 'web_search_call',
    status: 'completed',
    arguments: '{"query":"Oslo weather"}',
    providerData: { action: { type: 'search', query: 'Oslo weather' } },
  },
  {
    type: 'computer_call',
    id: 'cu_1',
    callId: 'call_3',
    status: 'completed',
    action: { type: 'click', x: 10, y: 20, button: 'left' },
  },
  {
    type: 'computer_call_result',
    callId: 'call_3',
    output: { type: 'computer_screenshot', data: 'data:image/png;base64,AAAA' },
  },
  {
    type: 'shell_call',
    callId: 'call_4',
    status: 'completed',
    action: { commands: ['ls -la'], timeoutMs: 1000 },
  },
  {
    type: 'apply_patch_call',
    callId: 'call_5',
    status: 'completed',
    operation: { type: 'update_file', path: 'a.txt', diff: '@@ -1 +1 @@\n-a\n+b\n' },
  },
  { type: 'compaction', encrypted_content: 'opaque-compaction-blob', id: 'cmp_1' },
  {
    type: 'unknown',
    id: 'x_1',
    providerData: { type: 'image_generation_call', result: 'base64…', future: [1, null, true] },
  },
  {
    type: 'message',
    role: 'user',
    content: 'fields the SDK does not know are kept',
    x_custom: { nested: ['deep', { deeper: 2.5 }], empty: {} },
  } as AgentInputItem,
];
