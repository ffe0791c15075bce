import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBase64Url, toBase64Url } from './base64url.js';

describe('base64url', () => {
  it('encodes any bytes as Node does, and the encoding is base64url of that many bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), (bytes) => {
        const text = toBase64Url(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64url'));
        expect(isBase64Url(text, bytes.length)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('gives each call its own string (the reused character buffer is not shared)', () => {
    const first = toBase64Url(new Uint8Array(32).fill(1));
    const second = toBase64Url(new Uint8Array(32).fill(2));
    expect(first).toBe(Buffer.alloc(32, 1).toString('base64url'));
    expect(second).toBe(Buffer.alloc(32, 2).toString('base64url'));
    expect(toBase64Url(new Uint8Array(0))).toBe('');
  });
});
