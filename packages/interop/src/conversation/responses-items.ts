import type { EpisodeSource } from '@episodic/core';

/** Responses item types the model produces (calls to tools it or the platform runs, reasoning). */
const MODEL_ITEM_TYPES = new Set([
  'reasoning',
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
  'file_search_call',
  'computer_call',
  'code_interpreter_call',
  'image_generation_call',
  'tool_search_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
]);

/** Responses item types that answer a call (paired with it by `call_id`). */
export const TOOL_OUTPUT_ITEM_TYPES: ReadonlySet<string> = new Set([
  'function_call_output',
  'custom_tool_call_output',
  'local_shell_call_output',
  'computer_call_output',
  'tool_search_output',
  'mcp_approval_response',
]);

/**
 * Who produced a Responses item: the user's messages, the model's messages and calls, tool
 * outputs; system and developer messages and anything else are the runtime's.
 */
export function sourceOfResponsesItem(item: Record<string, unknown>): EpisodeSource {
  if (item.type === 'message') {
    if (item.role === 'user') return 'user';
    if (item.role === 'assistant') return 'model';
    return 'runtime';
  }
  if (TOOL_OUTPUT_ITEM_TYPES.has(String(item.type))) return 'tool';
  if (MODEL_ITEM_TYPES.has(String(item.type))) return 'model';
  return 'runtime';
}
