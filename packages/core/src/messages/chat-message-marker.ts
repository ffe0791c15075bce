import type { InputItem } from '../schema/input-item.js';

/**
 * The key an item converted from a chat message carries when the item alone does not say
 * everything about that message (seed 001 fields such as `tool_name`, `output_ref`, `is_error`,
 * `message_ts`, a reasoning message's `raw_item`, unknown fields, or where the message began). An
 * item carrying it always begins a new message when converted back. Providers never need it:
 * an adapter that sends items to a model should leave it out.
 */
export const CHAT_MESSAGE_KEY = 'chat_message';

/**
 * The item type of a chat message that has no item form (an unknown role, or a tool message
 * without a `tool_call_id`): `{ type: 'chat_message', message }` keeps the whole message. It is
 * stored and converted back unchanged; it has no meaning for a model.
 */
export const CHAT_MESSAGE_ITEM_TYPE = 'chat_message';

/** What a `chat_message` marker holds. */
export interface ChatMessageMarker {
  /** The message's values for fields the item does not reproduce. */
  readonly fields?: Readonly<Record<string, unknown>>;
  /** Fields the item would produce that the message did not have. */
  readonly absent?: readonly string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The marker of an item, or undefined when it has none (or one of another shape). */
export function markerOf(item: InputItem): ChatMessageMarker | undefined {
  const marker = (item as Record<string, unknown>)[CHAT_MESSAGE_KEY];
  if (!isRecord(marker)) return undefined;
  const { fields, absent } = marker;
  if (fields !== undefined && !isRecord(fields)) return undefined;
  if (
    absent !== undefined &&
    !(Array.isArray(absent) && absent.every((key) => typeof key === 'string'))
  )
    return undefined;
  return marker as ChatMessageMarker;
}

/** Sets `key` as an own property, even `__proto__` (which plain assignment would not). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
