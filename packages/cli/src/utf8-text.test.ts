import { describe, expect, it } from 'vitest';
import { UsageError } from './usage-error.js';
import { decodeUtf8 } from './utf8-text.js';

describe('decodeUtf8', () => {
  it('decodes UTF-8 and refuses anything else with a usage error naming the byte offset', () => {
    expect(decodeUtf8(Buffer.from('héllo 😀'), 'the file')).toBe('héllo 😀');
    const latin1 = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9, 0x22])]);
    expect(() => decodeUtf8(latin1, 'the file')).toThrow(UsageError);
    expect(() => decodeUtf8(latin1, 'the file')).toThrow(
      /^the file is not valid UTF-8: the bytes at offset 3 \(0xe9 0x22\)/,
    );
  });
});
