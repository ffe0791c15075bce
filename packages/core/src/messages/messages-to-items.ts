import type { BaseMessage } from '../schema/base-message.js';
import { type InputItem, inputItemSchema } from '../schema/input-item.js';
import { jsonEqual } from '../util/json-equal.js';
import {
  CHAT_MESSAGE_ITEM_TYPE,
  CHAT_MESSAGE_KEY,
  type ChatMessageMarker,
  setOwn,
} from './chat-message-marker.js';
import { plainMessageOf } from './items-to-messages.js';

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);

type ContentPart = { type: string; [key: string]: unknown };

/** True when `part` has exactly the given keys. */
function hasOnlyKeys(part: object, keys: readonly string[]): boolean {
  return Object.keys(part).every((key) => keys.includes(key));
}

function toResponsesPart(part: ContentPart, role: string): ContentPart {
  if (
    part.type === 'text' &&
    typeof part.text === 'string' &&
    hasOnlyKeys(part, ['type', 'text'])
  ) {
    return { type: role === 'assistant' ? 'output_text' : 'input_text', text: part.text };
  }
  if (part.type === 'image_url') {
    const imageUrl = part.image_url as { url?: unknown; detail?: unknown } | string | undefined;
    if (typeof imageUrl === 'string') return { type: 'input_image', image_url: imageUrl };
    if (typeof imageUrl?.url === 'string' && hasOnlyKeys(imageUrl, ['url', 'detail'])) {
      const detail = imageUrl.detail === undefined ? {} : { detail: imageUrl.detail };
      return { type: 'input_image', image_url: imageUrl.url, ...detail };
    }
  }
  // Parts with more than the Responses form holds stay as they are (no copy is needed to keep them).
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

function reasoningItemOf(message: BaseMessage): InputItem {
  const raw = (message as { raw_item?: unknown }).raw_item;
  // A Responses reasoning item (what OpenAI returned) is the item itself, ready to echo back.
  if (typeof raw === 'object' && raw !== null && (raw as { type?: unknown }).type === 'reasoning') {
    const { chat_message: _marker, ...item } = raw as Record<string, unknown>;
    return item as InputItem;
  }
  const text = typeof message.content === 'string' ? message.content : null;
  return { type: 'reasoning', summary: text === null ? [] : [{ type: 'summary_text', text }] };
}

/** The items of one message, before any marker: null when it has no valid item form. */
function baseItemsOf(message: BaseMessage): InputItem[] | null {
  const items: InputItem[] = [];
  if (message.role === 'tool') {
    if (typeof message.tool_call_id !== 'string') return null;
    items.push({
      type: 'function_call_output',
      call_id: message.tool_call_id,
      output: textOf(message.content),
    });
  } else if (message.role === 'reasoning') {
    items.push(reasoningItemOf(message));
  } else if (MESSAGE_ROLES.has(message.role)) {
    const content = contentOf(message);
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    const hasText = typeof content === 'string' ? content !== '' : content.length > 0;
    if (hasText || message.role !== 'assistant' || calls.length === 0) {
      items.push({ type: 'message', role: message.role as 'user', content });
    }
    for (const call of calls) {
      items.push({
        type: 'function_call',
        call_id: call?.id,
        name: call?.function?.name,
        arguments: call?.function?.arguments,
      });
    }
  } else {
    return null;
  }
  // Only items the log accepts: anything else keeps the whole message instead.
  return items.every((item) => inputItemSchema.safeParse(item).success) ? items : null;
}

/** What `itemsToMessages` builds from `items` alone, as one new message. */
function plainMessageOfItems(items: readonly InputItem[], callNames: ReadonlyMap<string, string>) {
  const [first, ...rest] = items as [InputItem, ...InputItem[]];
  const message = plainMessageOf(first, callNames) as BaseMessage;
  // The rest are the message's calls, which itemsToMessages joins to it.
  for (const item of rest) {
    const calls = plainMessageOf(item, callNames)?.tool_calls ?? [];
    message.tool_calls = [...(message.tool_calls ?? []), ...calls];
  }
  return message;
}

/** The marker that makes `plain` into `message`, or undefined when they are already equal. */
function markerFor(message: BaseMessage, plain: BaseMessage): ChatMessageMarker | undefined {
  const original = message as Record<string, unknown>;
  const built = plain as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  let changed = false;
  for (const key of Object.keys(original)) {
    // Own properties only: a `__proto__` key must not be compared with the prototype.
    const rebuilt = Object.hasOwn(built, key) ? built[key] : undefined;
    if (original[key] === undefined || jsonEqual(original[key], rebuilt)) continue;
    setOwn(fields, key, original[key]);
    changed = true;
  }
  const absent = Object.keys(built).filter(
    (key) => !Object.hasOwn(original, key) || original[key] === undefined,
  );
  if (!changed && absent.length === 0) return undefined;
  return { ...(changed ? { fields } : {}), ...(absent.length > 0 ? { absent } : {}) };
}

/**
 * Converts seed 001's chat messages to Responses-style items without losing anything:
 * `itemsToMessages(messagesToItems(messages))` equals `messages` for any messages (reasoning
 * messages, `tool_name`, `output_ref`, `is_error`, `trimmed`, `message_ts`, `name`, `refusal`,
 * provider data on tool calls, unknown fields and roles included).
 *
 * - A user, system or developer message becomes a `message` item; an assistant message its text
 *   (when it has any) followed by one `function_call` per tool call; a `tool` message the
 *   `function_call_output` for its `tool_call_id`; a `reasoning` message a `reasoning` item (its
 *   `raw_item` itself when that is a Responses reasoning item).
 * - Whatever an item cannot hold goes into its `chat_message` marker (see `CHAT_MESSAGE_KEY`),
 *   which also marks where a message begins when the items alone would join it to the one before.
 * - A message with no item form (an unknown role, a tool message without `tool_call_id`) becomes one
 *   `{ type: 'chat_message', message }` item.
 */
export function messagesToItems(messages: readonly BaseMessage[]): InputItem[] {
  return messagesToItemGroups(messages).flat();
}

/**
 * `messagesToItems`, grouped: the items of `messages[index]` are `groups[index]` (at least one).
 * For callers that keep something per message, such as its time.
 */
export function messagesToItemGroups(messages: readonly BaseMessage[]): InputItem[][] {
  const groups: InputItem[][] = [];
  const callNames = new Map<string, string>();
  // Whether the items so far end with an assistant message that unmarked calls would join.
  let open = false;
  for (const message of messages) {
    const base = baseItemsOf(message);
    if (base === null) {
      groups.push([{ type: CHAT_MESSAGE_ITEM_TYPE, message: { ...message } }]);
      open = false;
      continue;
    }
    const first = base[0] as InputItem;
    const marker = markerFor(message, plainMessageOfItems(base, callNames));
    if (marker !== undefined || (first.type === 'function_call' && open)) {
      base[0] = { ...first, [CHAT_MESSAGE_KEY]: marker ?? {} };
    }
    for (const item of base) {
      if (item.type === 'function_call') callNames.set(String(item.call_id), String(item.name));
    }
    groups.push(base);
    open =
      message.role === 'assistant' && (first.type === 'message' || first.type === 'function_call');
  }
  return groups;
}
