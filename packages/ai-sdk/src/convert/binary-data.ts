/**
 * Binary data and URLs as the AI SDK passes them (`DataContent`: base64 text, `Uint8Array`,
 * `ArrayBuffer`, Node `Buffer`; `URL`; AI SDK 7's `FileData` objects) and as Episodic items store
 * them (JSON: data URLs and URL strings). No Node APIs, so the adapter runs wherever the AI SDK does.
 */

/** What a data value is, in a JSON-safe form. */
export type DescribedData =
  | { readonly kind: 'bytes'; readonly base64: string; readonly mediaType?: string }
  | { readonly kind: 'url'; readonly href: string }
  /** An AI SDK 7 `FileData` the adapter keeps as it is (`text` or `reference`). */
  | { readonly kind: 'other'; readonly value: unknown };

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Standard base64 (with padding) of `bytes`. */
export function bytesToBase64(bytes: Uint8Array): string {
  let text = '';
  let index = 0;
  for (; index + 2 < bytes.length; index += 3) {
    const chunk =
      ((bytes[index] as number) << 16) |
      ((bytes[index + 1] as number) << 8) |
      (bytes[index + 2] as number);
    text += `${BASE64_ALPHABET[(chunk >> 18) & 63]}${BASE64_ALPHABET[(chunk >> 12) & 63]}${BASE64_ALPHABET[(chunk >> 6) & 63]}${BASE64_ALPHABET[chunk & 63]}`;
  }
  const rest = bytes.length - index;
  if (rest === 1) {
    const chunk = (bytes[index] as number) << 16;
    text += `${BASE64_ALPHABET[(chunk >> 18) & 63]}${BASE64_ALPHABET[(chunk >> 12) & 63]}==`;
  } else if (rest === 2) {
    const chunk = ((bytes[index] as number) << 16) | ((bytes[index + 1] as number) << 8);
    text += `${BASE64_ALPHABET[(chunk >> 18) & 63]}${BASE64_ALPHABET[(chunk >> 12) & 63]}${BASE64_ALPHABET[(chunk >> 6) & 63]}=`;
  }
  return text;
}

function utf8Base64(text: string): string {
  return bytesToBase64(new TextEncoder().encode(text));
}

/** `data:<mediaType>;base64,<base64>`; an unknown media type is left empty (RFC 2397 allows it). */
export function toDataUrl(base64: string, mediaType: string | undefined): string {
  return `data:${mediaType ?? ''};base64,${base64}`;
}

/**
 * The media type and base64 payload of a data URL, or null when `url` is not one. A data URL
 * without `;base64` holds percent-encoded text, which is re-encoded as base64.
 */
export function parseDataUrl(url: string): { mediaType?: string; base64: string } | null {
  if (!url.startsWith('data:')) return null;
  const comma = url.indexOf(',');
  if (comma === -1) return null;
  const header = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  const parameters = header.split(';');
  const isBase64 = parameters.at(-1)?.toLowerCase() === 'base64';
  const mediaType = parameters[0] ?? '';
  let base64: string;
  if (isBase64) {
    base64 = payload;
  } else {
    try {
      base64 = utf8Base64(decodeURIComponent(payload));
    } catch {
      return null;
    }
  }
  return mediaType === '' ? { base64 } : { mediaType, base64 };
}

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

function isUrl(value: unknown): value is URL {
  return value instanceof URL;
}

/** A string is a URL when it has a scheme and parses (the AI SDK's own rule); otherwise base64. */
function parseUrlString(value: string): URL | null {
  if (!URL_SCHEME.test(value)) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

function describeUrl(url: URL, mediaType: string | undefined): DescribedData {
  if (url.protocol === 'data:') {
    const parsed = parseDataUrl(url.href);
    if (parsed !== null) {
      const type = mediaType ?? parsed.mediaType;
      return type === undefined
        ? { kind: 'bytes', base64: parsed.base64 }
        : { kind: 'bytes', base64: parsed.base64, mediaType: type };
    }
  }
  return { kind: 'url', href: url.href };
}

/**
 * Describes any data value the AI SDK accepts in an image, file or tool output part. `mediaType`
 * is the part's own media type, which wins over one embedded in a data URL.
 */
export function describeData(value: unknown, mediaType?: string): DescribedData {
  const bytes = (base64: string): DescribedData =>
    mediaType === undefined ? { kind: 'bytes', base64 } : { kind: 'bytes', base64, mediaType };
  if (typeof value === 'string') {
    const url = parseUrlString(value);
    return url === null ? bytes(value) : describeUrl(url, mediaType);
  }
  if (isBytes(value)) return bytes(bytesToBase64(value));
  if (value instanceof ArrayBuffer) return bytes(bytesToBase64(new Uint8Array(value)));
  if (isUrl(value)) return describeUrl(value, mediaType);
  if (typeof value === 'object' && value !== null) {
    // AI SDK 7 FileData: { type: 'data', data } | { type: 'url', url } | { type: 'text' | 'reference', … }
    const data = value as { type?: unknown; data?: unknown; url?: unknown };
    if (data.type === 'data') return describeData(data.data, mediaType);
    if (data.type === 'url' && (typeof data.url === 'string' || isUrl(data.url))) {
      return describeData(typeof data.url === 'string' ? data.url : data.url.href, mediaType);
    }
  }
  return { kind: 'other', value: toJsonSafe(value) };
}

/**
 * A JSON-safe copy: bytes become base64 text, URLs their `href`, `undefined` properties are left
 * out (as `JSON.stringify` would). For parts the adapter keeps as they are.
 */
export function toJsonSafe(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'bigint' ? value.toString() : value;
  }
  if (isBytes(value)) return bytesToBase64(value);
  if (value instanceof ArrayBuffer) return bytesToBase64(new Uint8Array(value));
  if (isUrl(value)) return value.href;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((entry) => toJsonSafe(entry) ?? null);
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry === undefined || typeof entry === 'function') continue;
    copy[key] = toJsonSafe(entry);
  }
  return copy;
}
