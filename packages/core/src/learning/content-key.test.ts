import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentKey, sha256Hex } from './content-key.js';

describe('content keys', () => {
  it('computes SHA-256 exactly (known vectors and node:crypto on random text)', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      }),
      { numRuns: 500 },
    );
    const long = 'x'.repeat(100_000);
    expect(sha256Hex(long)).toBe(createHash('sha256').update(long).digest('hex'));
  });

  it('depends on the content only, and separates parts unambiguously', () => {
    expect(contentKey('tool_sequence', [['a', 'b']])).toBe(
      contentKey('tool_sequence', [['a', 'b']]),
    );
    expect(contentKey('tool_sequence', [['a', 'b']])).not.toBe(
      contentKey('tool_sequence', [['ab']]),
    );
    expect(contentKey('decision_point', ['a', 'b'])).not.toBe(
      contentKey('decision_point', ['a,b']),
    );
    expect(contentKey('context', [['x']])).toMatch(/^context:[0-9a-f]{32}$/);
  });
});
