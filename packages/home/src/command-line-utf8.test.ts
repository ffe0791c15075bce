import { EpisodicError } from '@episodic/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertArgumentsAreUtf8,
  firstInvalidUtf8Offset,
  rawProcessArguments,
} from './command-line-utf8.js';

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
        if (offset !== -1) expect(decodes(input.subarray(0, offset))).toBe(true);
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
    const raw = () => [Buffer.from('--summary'), Uint8Array.from([0x63, 0xe9])];
    const error = (() => {
      try {
        assertArgumentsAreUtf8(['--summary', 'c\uFFFD'], raw);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
    expect((error as Error).message).toMatch(
      /^Argument 2 \(the value of --summary\) is not valid UTF-8: the bytes at offset 1 \(0xe9\)/,
    );
    expect((error as EpisodicError).details).toMatchObject({ field: '--summary' });
    // Without an option before it, the argument is named by its position.
    expect(() =>
      assertArgumentsAreUtf8(['x', 'c\uFFFD'], () => [Buffer.from('x'), Uint8Array.from([0xff])]),
    ).toThrow(/^Argument 2 is not valid UTF-8: the bytes at offset 0 \(0xff\)/);
  });

  it('reads the raw bytes only when an argument holds U+FFFD; a typed U+FFFD passes', () => {
    let reads = 0;
    const counting = () => {
      reads++;
      return [Buffer.from('--summary'), Buffer.from('c\uFFFD')];
    };
    assertArgumentsAreUtf8(['--summary', 'cafe'], counting);
    expect(reads).toBe(0);
    expect(() => assertArgumentsAreUtf8(['--summary', 'c\uFFFD'], counting)).not.toThrow();
    expect(reads).toBe(1);
    // No raw bytes to compare with (not Linux), or not as many: nothing to refuse.
    expect(() => assertArgumentsAreUtf8(['c\uFFFD'], () => undefined)).not.toThrow();
    expect(() => assertArgumentsAreUtf8(['c\uFFFD'], () => [])).not.toThrow();
  });
});
