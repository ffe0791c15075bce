/**
 * The number of bytes `text` takes in UTF-8, without encoding it. A lone surrogate counts as the 3
 * bytes of the U+FFFD an encoder writes in its place.
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  const length = text.length;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
