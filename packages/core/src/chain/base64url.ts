// base64url without padding (RFC 4648 section 5), over bytes, without Buffer (core runs anywhere).

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUES = new Int16Array(128).fill(-1);
for (let index = 0; index < ALPHABET.length; index++) VALUES[ALPHABET.charCodeAt(index)] = index;

const CODES = new Uint16Array(64);
for (let index = 0; index < ALPHABET.length; index++) CODES[index] = ALPHABET.charCodeAt(index);

/** One character-code array per output length, reused: one flat string per call, no concatenation. */
const SCRATCH = new Map<number, number[]>();

/** `bytes` in base64url without padding (16 bytes: 22 characters; 32 bytes: 43 characters). */
export function toBase64Url(bytes: Uint8Array): string {
  const length = bytes.length;
  const size = Math.ceil((length * 8) / 6);
  let out = SCRATCH.get(size);
  if (out === undefined) {
    out = new Array<number>(size).fill(0);
    SCRATCH.set(size, out);
  }
  let at = 0;
  let index = 0;
  for (; index + 2 < length; index += 3) {
    const value =
      ((bytes[index] as number) << 16) |
      ((bytes[index + 1] as number) << 8) |
      (bytes[index + 2] as number);
    out[at++] = CODES[value >>> 18] as number;
    out[at++] = CODES[(value >>> 12) & 63] as number;
    out[at++] = CODES[(value >>> 6) & 63] as number;
    out[at++] = CODES[value & 63] as number;
  }
  const rest = length - index;
  if (rest === 1) {
    const value = (bytes[index] as number) << 16;
    out[at++] = CODES[value >>> 18] as number;
    out[at++] = CODES[(value >>> 12) & 63] as number;
  } else if (rest === 2) {
    const value = ((bytes[index] as number) << 16) | ((bytes[index + 1] as number) << 8);
    out[at++] = CODES[value >>> 18] as number;
    out[at++] = CODES[(value >>> 12) & 63] as number;
    out[at++] = CODES[(value >>> 6) & 63] as number;
  }
  return String.fromCharCode.apply(null, out);
}

/** Whether `text` is base64url without padding that encodes exactly `bytes` bytes. */
export function isBase64Url(text: string, bytes: number): boolean {
  if (text.length !== Math.ceil((bytes * 8) / 6)) return false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 128 || (VALUES[code] as number) < 0) return false;
  }
  // The unused low bits of the last character must be zero (one spelling per byte string).
  const unused = (text.length * 6) % 8;
  if (unused === 0) return true;
  const last = VALUES[text.charCodeAt(text.length - 1)] as number;
  return (last & ((1 << unused) - 1)) === 0;
}
