import { utf8ByteLength } from '../util/utf8.js';

export { utf8ByteLength };

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`. It never splits a code
 * point (a surrogate pair stays whole or is dropped whole), so the result is always well-formed.
 * Lone surrogates in the input are first replaced by U+FFFD (`toWellFormed`), so for well-formed
 * input the result is a prefix of the input itself.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (!Number.isInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError(`maxBytes must be a non-negative integer (got ${String(maxBytes)})`);
  }
  const source = text.isWellFormed() ? text : text.toWellFormed();
  // Every UTF-16 code unit encodes to at most 3 bytes, so short strings need no walk.
  if (source.length * 3 <= maxBytes) return source;
  let bytes = 0;
  let index = 0;
  const length = source.length;
  while (index < length) {
    const code = source.charCodeAt(index);
    let size: number;
    let units = 1;
    if (code < 0x80) size = 1;
    else if (code < 0x800) size = 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      size = 4;
      units = 2;
    } else size = 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += units;
  }
  return source.slice(0, index);
}
