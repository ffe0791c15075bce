import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from './usage-error.js';
import {
  assertArgumentsAreUtf8,
  decodeUtf8,
  firstInvalidUtf8Offset,
  rawProcessArguments,
} from './utf8-text.js';

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

describe('assertArgumentsAreUtf8 and rawProcessArguments', () => {
  const cmdline = (...entries: Array<string | number[]>) =>
    Uint8Array.from(
      entries.flatMap((entry) => [...(typeof entry === 'string' ? Buffer.from(entry) : entry), 0]),
    );

  it('takes the last arguments of /proc/self/cmdline, empty ones included', () => {
    const raw = rawProcessArguments(3, () =>
      cmdline('node', '--x', 'bin.js', 'a', '', [0x63, 0xe9]),
    );
    expect(raw?.map((bytes) => [...bytes])).toEqual([[0x61], [], [0x63, 0xe9]]);
    expect(rawProcessArguments(5, () => cmdline('node', 'bin.js', 'a'))).toBeUndefined();
    expect(
      rawProcessArguments(1, () => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
  });

  it('refuses an argument read with U+FFFD whose bytes are not UTF-8, naming it and its option', () => {
    const raw = [Buffer.from('--summary'), Uint8Array.from([0x63, 0xe9])];
    expect(() => assertArgumentsAreUtf8(['--summary', 'c\uFFFD'], raw)).toThrow(
      /Argument 2 \(the value of --summary\) is not valid UTF-8: the bytes at offset 1 \(0xe9\)/,
    );
    try {
      assertArgumentsAreUtf8(['--summary', 'c\uFFFD'], raw);
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).code).toBe('VALIDATION_ERROR');
    }
    // A U+FFFD that was typed (valid UTF-8), or no raw bytes to compare with, passes.
    expect(() => assertArgumentsAreUtf8(['c\uFFFD'], [Buffer.from('c\uFFFD')])).not.toThrow();
    expect(() => assertArgumentsAreUtf8(['c\uFFFD'], undefined)).not.toThrow();
  });
});
