import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';

/**
 * A value serialized by the saver's `serde`, as a run record holds it. JSON text is kept as JSON
 * (`json`), so the run file stays readable, but only when re-serializing it gives back exactly the
 * text the serde wrote; any other text is kept as `text`, and bytes as `base64`.
 */
export type StoredValue =
  | { readonly type: string; readonly json: unknown }
  | { readonly type: string; readonly text: string }
  | { readonly type: string; readonly base64: string };

/** A serialized value: the serde's type and its text (bytes are kept aside as base64). */
export interface SerializedValue {
  readonly type: string;
  /** The JSON (or other) text, or null for binary data. */
  readonly text: string | null;
  readonly base64?: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  }
  return btoa(binary);
}

function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** Serializes a value with the serde; UTF-8 output is kept as text. */
export async function serialize(
  serde: SerializerProtocol,
  value: unknown,
): Promise<SerializedValue> {
  const [type, data] = await serde.dumpsTyped(value);
  if (typeof data === 'string') return { type, text: data };
  if (type !== 'bytes') {
    try {
      return { type, text: decoder.decode(data) };
    } catch {
      // Not UTF-8: kept as bytes.
    }
  }
  return { type, text: null, base64: bytesToBase64(data) };
}

/**
 * Parses JSON text when `JSON.stringify` gives it back unchanged (so nothing is rounded or
 * rewritten), else returns undefined. `trusted` skips the comparison for text `JSON.stringify`
 * wrote itself (LangGraph's JsonPlusSerializer), which always gives itself back.
 */
export function canonicalJson(text: string, trusted = false): { value: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return trusted || JSON.stringify(value) === text ? { value } : undefined;
  } catch {
    return undefined;
  }
}

/** A serialized value as a record stores it (`trusted`: see `canonicalJson`). */
export function toStoredValue(serialized: SerializedValue, trusted = false): StoredValue {
  if (serialized.text === null) return { type: serialized.type, base64: serialized.base64 ?? '' };
  if (serialized.type === 'json') {
    const parsed = canonicalJson(serialized.text, trusted);
    if (parsed !== undefined) return { type: 'json', json: parsed.value };
  }
  return { type: serialized.type, text: serialized.text };
}

/** The text of a stored value (null for bytes). */
export function storedText(stored: StoredValue): string | null {
  if ('json' in stored) return JSON.stringify(stored.json);
  if ('text' in stored) return stored.text;
  return null;
}

/** Gives a stored value back to the serde. */
export function deserialize(serde: SerializerProtocol, stored: StoredValue): Promise<unknown> {
  if ('base64' in stored) return serde.loadsTyped(stored.type, base64ToBytes(stored.base64));
  return serde.loadsTyped(stored.type, storedText(stored) as string);
}

/** Gives serialized text back to the serde. */
export function deserializeText(
  serde: SerializerProtocol,
  type: string,
  text: string,
): Promise<unknown> {
  return serde.loadsTyped(type, text);
}
