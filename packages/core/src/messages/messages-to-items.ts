import type { BaseMessage } from '../schema/base-message.js';
import type { InputItem } from '../schema/input-item.js';

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);

type ContentPart = { type: string; [key: string]: unknown };

function toResponsesPart(part: ContentPart, role: string): ContentPart {
  if (part.type === 'text' && typeof part.text === 'string') {
    return { type: role === 'assistant' ? 'output_text' : 'input_text', text: part.text };
  }
  if (part.type === 'image_url') {
    const imageUrl = part.image_url as { url?: unknown } | string | undefined;
    const url = typeof imageUrl === 'string' ? imageUrl : imageUrl?.url;
    if (typeof url === 'string') return { type: 'input_image', image_url: url };
  }
  return part;
}

function contentOf(message: BaseMessage): string | ContentPart[] {
  const { content } = message;
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return (content as ContentPart[]).map((part) => toResponsesPart(part, message.role));
}

function textOf(content: BaseMessage['content']): string {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  const parts = content as ContentPart[];
  return parts.every((part) => typeof part.text === 'string')
    ? parts.map((part) => part.text).join('')
    : JSON.stringify(parts);
}

/**
 * Converts seed 001's chat messages to Responses-style items: an assistant message becomes its text
 * (when it has any) followed by one `function_call` per tool call; a `tool` message becomes the
 * `function_call_output` for its `tool_call_id`. Messages with roles that have no item form are
 * left out.
 */
export function messagesToItems(messages: readonly BaseMessage[]): InputItem[] {
  const items: InputItem[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      if (typeof message.tool_call_id === 'string') {
        items.push({
          type: 'function_call_output',
          call_id: message.tool_call_id,
          output: textOf(message.content),
        });
      }
      continue;
    }
    if (!MESSAGE_ROLES.has(message.role)) continue;
    const content = contentOf(message);
    const hasText = typeof content === 'string' ? content !== '' : content.length > 0;
    if (hasText || message.role !== 'assistant' || (message.tool_calls ?? []).length === 0) {
      items.push({ type: 'message', role: message.role as 'user', content });
    }
    for (const call of message.tool_calls ?? []) {
      items.push({
        type: 'function_call',
        call_id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      });
    }
  }
  return items;
}
