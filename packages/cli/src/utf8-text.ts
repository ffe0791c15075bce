import { UsageError } from './usage-error.js';

/** Which bytes may follow a lead byte as its first continuation byte (Unicode table 3-7). */
function secondByteRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/**
 * The byte offset of the first byte that does not begin (or continue) a well-formed UTF-8
 * character, or -1 when every byte does. Overlong forms, surrogates and code points above
 * U+10FFFF are malformed, as they are for `TextDecoder` with `fatal: true`.
 */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] as number;
    let length: number;
    if (lead < 0x80) length = 1;
    else if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) length = 3;
    else if (lead >= 0xf0 && lead <= 0xf4) length = 4;
    else return index;
    if (length > 1) {
      const [low, high] = secondByteRange(lead);
      const second = bytes[index + 1];
      if (second === undefined || second < low || second > high) return index;
      for (let offset = 2; offset < length; offset++) {
        const next = bytes[index + offset];
        if (next === undefined || next < 0x80 || next > 0xbf) return index;
      }
    }
    index += length;
  }
  return -1;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes bytes that must be UTF-8 text. Malformed bytes are a usage error (exit 2) naming the
 * byte offset, never a silent U+FFFD: what is stored must be what the file held.
 */
export function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8Offset(bytes);
    const shown = Array.from(
      bytes.subarray(offset, offset + 4),
      (byte) => `0x${byte.toString(16).padStart(2, '0')}`,
    ).join(' ');
    throw new UsageError(
      `${what} is not valid UTF-8: the bytes at offset ${offset} (${shown}) do not form a character. Nothing was changed; save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8) and run the command again.`,
      'VALIDATION_ERROR',
    );
  }
}
