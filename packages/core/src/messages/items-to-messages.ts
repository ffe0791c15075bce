import type { BaseMessage, ToolCall } from '../schema/base-message.js';
import type { Episode } from '../schema/episode.js';
import type { InputItem } from '../schema/input-item.js';
import {
  CHAT_MESSAGE_ITEM_TYPE,
  type ChatMessageMarker,
  markerOf,
  setOwn,
} from './chat-message-marker.js';

type ContentPart = { type: string; [key: string]: unknown };

function toChatPart(part: ContentPart): ContentPart {
  if (
    (part.type === 'input_text' || part.type === 'output_text') &&
    typeof part.text === 'string'
  ) {
    return { type: 'text', text: part.text };
  }
  if (part.type === 'input_image' && typeof part.image_url === 'string') {
    const detail = part.detail === undefined ? {} : { detail: part.detail };
    return { type: 'image_url', image_url: { url: part.image_url, ...detail } };
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

/** A reasoning item's summary texts joined by newlines, or null when it has none. */
function reasoningText(item: InputItem): string | null {
  const summary = (item as { summary?: unknown }).summary;
  if (!Array.isArray(summary)) return null;
  const texts = summary
    .filter((part): part is { text: string } => typeof part?.text === 'string')
    .map((part) => part.text);
  return texts.length === 0 ? null : texts.join('\n');
}

function callOf(item: InputItem): ToolCall {
  return {
    id: String(item.call_id),
    type: 'function',
    function: { name: String(item.name), arguments: String(item.arguments) },
  };
}

function withoutMarker(item: InputItem): Record<string, unknown> {
  const { chat_message: _marker, ...rest } = item as Record<string, unknown>;
  return rest;
}

/**
 * The message one item stands for on its own, before its marker is applied; null for item kinds
 * that have no chat form (they are left out). `callNames` gives a tool message its `tool_name`.
 */
export function plainMessageOf(
  item: InputItem,
  callNames: ReadonlyMap<string, string>,
): BaseMessage | null {
  switch (item.type) {
    case 'message':
      return { role: String(item.role), content: toChatContent(item.content) };
    case 'function_call':
      return { role: 'assistant', content: null, tool_calls: [callOf(item)] };
    case 'function_call_output': {
      const callId = String(item.call_id);
      const name = callNames.get(callId);
      return {
        role: 'tool',
        tool_call_id: callId,
        ...(name === undefined ? {} : { tool_name: name }),
        content: outputText(item.output),
      };
    }
    case 'reasoning':
      // Seed 001 keeps the provider's item as raw_item, so a provider that needs it echoed has it.
      return { role: 'reasoning', content: reasoningText(item), raw_item: withoutMarker(item) };
    case CHAT_MESSAGE_ITEM_TYPE: {
      const message = (item as { message?: unknown }).message;
      return typeof message === 'object' &&
        message !== null &&
        typeof (message as { role?: unknown }).role === 'string'
        ? ({ ...message } as BaseMessage)
        : null;
    }
    default:
      return null;
  }
}

/** Applies a marker: the message's own values win, and fields it did not have are removed. */
export function applyMarker(message: BaseMessage, marker: ChatMessageMarker): void {
  const target = message as Record<string, unknown>;
  for (const key of marker.absent ?? []) delete target[key];
  for (const [key, value] of Object.entries(marker.fields ?? {})) setOwn(target, key, value);
}

/**
 * Converts Responses-style items to seed 001's chat messages, the inverse of `messagesToItems`:
 * for any messages, `itemsToMessages(messagesToItems(messages))` equals them, every field kept.
 *
 * - A `message` item becomes a message of its role. Consecutive `function_call` items become the
 *   `tool_calls` of one assistant message (joined to the assistant text right before them); an item
 *   carrying a `chat_message` marker always begins a new message, and its marker restores the fields
 *   the item does not hold.
 * - A `function_call_output` becomes a `tool` message with its `tool_call_id` and the `tool_name`
 *   of its call, so every call keeps its pairing.
 * - A `reasoning` item becomes a `reasoning` message (its summary text, the item as `raw_item`).
 * - A `chat_message` item is its message. Other item kinds have no chat form and are left out.
 *
 * `timestamps[index]`, when given, becomes the message's `message_ts` (a marker's own value wins).
 */
export function itemsToMessages(
  items: readonly InputItem[],
  timestamps?: readonly (string | undefined)[],
): BaseMessage[] {
  return convertItems(items, timestamps);
}

/**
 * `itemsToMessages`, also giving in `origins`, for each message, the index of the item that began
 * it (what `stableMessageCount` reads).
 */
export function convertItems(
  items: readonly InputItem[],
  timestamps?: readonly (string | undefined)[],
  origins?: number[],
): BaseMessage[] {
  const messages: BaseMessage[] = [];
  const callNames = new Map<string, string>();
  let open: BaseMessage | null = null;
  // The calls of a marked message that restores its own tool_calls: the next unmarked call items
  // are those calls, already in place.
  let reserved = 0;
  items.forEach((item, index) => {
    const marker = markerOf(item);
    if (item.type === 'function_call') {
      callNames.set(String(item.call_id), String(item.name));
      if (marker === undefined) {
        if (reserved > 0) {
          reserved--;
          return;
        }
        if (open !== null) {
          open.tool_calls = [...(open.tool_calls ?? []), callOf(item)];
          return;
        }
      }
    }
    reserved = 0;
    const message = plainMessageOf(item, callNames);
    if (message === null) return;
    const ts = timestamps?.[index];
    if (ts !== undefined) message.message_ts = ts;
    if (marker !== undefined) {
      applyMarker(message, marker);
      const calls = marker.fields?.tool_calls;
      if (Array.isArray(calls))
        reserved = Math.max(0, calls.length - (item.type === 'function_call' ? 1 : 0));
    }
    messages.push(message);
    origins?.push(index);
    open =
      message.role === 'assistant' && (item.type === 'message' || item.type === 'function_call')
        ? message
        : null;
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
