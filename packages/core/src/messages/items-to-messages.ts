import type { BaseMessage, ToolCall } from '../schema/base-message.js';
import type { Episode } from '../schema/episode.js';
import type { InputItem } from '../schema/input-item.js';

type ContentPart = { type: string; [key: string]: unknown };

function toChatPart(part: ContentPart): ContentPart {
  if (
    (part.type === 'input_text' || part.type === 'output_text') &&
    typeof part.text === 'string'
  ) {
    return { type: 'text', text: part.text };
  }
  if (part.type === 'input_image' && typeof part.image_url === 'string') {
    return { type: 'image_url', image_url: { url: part.image_url } };
  }
  return part;
}

function toChatContent(content: unknown): BaseMessage['content'] {
  if (typeof content === 'string' || content === null) return content;
  if (Array.isArray(content)) return (content as ContentPart[]).map(toChatPart);
  return JSON.stringify(content);
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    const parts = output as ContentPart[];
    if (parts.every((part) => typeof part.text === 'string'))
      return parts.map((part) => part.text).join('');
  }
  return JSON.stringify(output);
}

/**
 * Converts Responses-style items to seed 001's chat messages. Consecutive `function_call` items
 * become the `tool_calls` of one assistant message (joined to the assistant text right before
 * them); each `function_call_output` becomes a `tool` message with its `tool_call_id`, so every call
 * keeps its pairing. Reasoning and unknown item kinds have no chat form and are left out.
 */
export function itemsToMessages(
  items: readonly InputItem[],
  timestamps?: readonly (string | undefined)[],
): BaseMessage[] {
  const messages: BaseMessage[] = [];
  let openAssistant: BaseMessage | null = null;
  items.forEach((item, index) => {
    const ts = timestamps?.[index];
    const stamp = ts === undefined ? {} : { message_ts: ts };
    switch (item.type) {
      case 'message': {
        const message: BaseMessage = {
          role: String(item.role),
          content: toChatContent(item.content),
          ...stamp,
        };
        messages.push(message);
        openAssistant = item.role === 'assistant' ? message : null;
        return;
      }
      case 'function_call': {
        const call: ToolCall = {
          id: String(item.call_id),
          type: 'function',
          function: { name: String(item.name), arguments: String(item.arguments) },
        };
        if (openAssistant === null) {
          openAssistant = { role: 'assistant', content: null, tool_calls: [], ...stamp };
          messages.push(openAssistant);
        }
        openAssistant.tool_calls = [...(openAssistant.tool_calls ?? []), call];
        return;
      }
      case 'function_call_output':
        messages.push({
          role: 'tool',
          tool_call_id: String(item.call_id),
          content: outputText(item.output),
          ...stamp,
        });
        openAssistant = null;
        return;
      default:
        return;
    }
  });
  return messages;
}

/** Converts the `item` episodes of a log to chat messages, stamping `message_ts` from `meta.ts`. */
export function episodesToMessages(episodes: readonly Episode[]): BaseMessage[] {
  const items: InputItem[] = [];
  const timestamps: Array<string | undefined> = [];
  for (const episode of episodes) {
    if (episode.type !== 'item') continue;
    items.push(episode.payload.item);
    timestamps.push(episode.meta.ts);
  }
  return itemsToMessages(items, timestamps);
}
