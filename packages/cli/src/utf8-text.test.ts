import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from './usage-error.js';
import { decodeUtf8, firstInvalidUtf8Offset } from './utf8-text.js';

const fatal = new TextDecoder('utf-8', { fatal: true });
const decodes = (bytes: Uint8Array) => {
  try {
    fatal.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

describe('firstInvalidUtf8Offset', () => {
  it('names the first byte of overlongs, surrogates, code points above U+10FFFF and cut sequences', () => {
    expect(firstInvalidUtf8Offset(Buffer.from('héllo 😀'))).toBe(-1);
    expect(firstInvalidUtf8Offset(Uint8Array.from([0x61, 0xc0, 0xaf]))).toBe(1);
    expect(firstInvalidUtf8Offset(Uint8Array.from([0xed, 0xa0, 0x80]))).toBe(0);
    expect(firstInvalidUtf8Offset(Uint8Array.from([0x61, 0x62, 0xf4, 0x90, 0x80, 0x80]))).toBe(2);
    expect(firstInvalidUtf8Offset(Uint8Array.from([0x61, 0xe2, 0x82]))).toBe(1);
    expect(firstInvalidUtf8Offset(Uint8Array.from([0x80]))).toBe(0);
  });

  it('property: agrees with a fatal TextDecoder, and everything before the offset decodes', () => {
    const utf8Pieces = fc.string({ unit: 'binary' }).map((text) => [...Buffer.from(text)]);
    const bytes = fc
      .array(fc.oneof(utf8Pieces, fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 4 })), {
        maxLength: 8,
      })
      .map((parts) => Uint8Array.from(parts.flat()));
    fc.assert(
      fc.property(bytes, (input) => {
        const offset = firstInvalidUtf8Offset(input);
        expect(offset === -1).toBe(decodes(input));
        if (offset !== -1) {
          expect(decodes(input.subarray(0, offset))).toBe(true);
          expect(() => decodeUtf8(input, 'the file')).toThrow(UsageError);
        }
      }),
    );
  });
});
