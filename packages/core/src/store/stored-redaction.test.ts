import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { metadataSchema } from '../schema/metadata.js';
import { utf8ByteLength } from '../util/utf8.js';
import { createStoredRedactor, REDACTED_TEXT } from './stored-redaction.js';

const AWS = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');
const EMAIL = 'ann@example.com';

/** A run line with a secret somewhere, and text of any shape around it. */
const secretLine = fc
  .record({
    before: fc.string({ unit: 'grapheme', maxLength: 12 }),
    after: fc.string({ unit: 'grapheme', maxLength: 12 }),
    big: fc.bigInt({ min: 2n ** 53n, max: 2n ** 80n }),
    secret: fc.constantFrom(AWS, EMAIL),
  })
  .map(
    ({ before, after, big, secret }) =>
      `{"type":"agent.event","seq":${big},"event":{"type":"text","content":${JSON.stringify(`${before} ${secret} ${after}`)}}}`,
  );

describe('stored redaction of run lines', () => {
  it('keeps every byte outside the replaced strings (no rounding of big integers)', () => {
    const redactor = createStoredRedactor();
    const line = `{"type":"agent.event","seq":12345678901234567890,"z":1e2,"event":{"content":"key ${AWS}"}}`;
    expect(redactor.line(line)).toBe(
      '{"type":"agent.event","seq":12345678901234567890,"z":1e2,"event":{"content":"key [REDACTED:aws_key]"}}',
    );
    expect(redactor.counts.replacements).toBe(1);
  });

  test.prop([secretLine, fc.constantFrom<'secrets' | 'content'>('secrets', 'content')])(
    'fits a line into its own length when asked, leaving no secret',
    (line, mode) => {
      const redactor = createStoredRedactor({ mode, kinds: ['secret', 'pii'] });
      const limit = utf8ByteLength(line);
      const next = redactor.line(line, limit);
      expect(utf8ByteLength(next)).toBeLessThanOrEqual(limit);
      expect(next).not.toContain(AWS);
      expect(next).not.toContain(EMAIL);
      expect(next.trim()).not.toBe('');
      // Still the same record, every other value exact.
      expect(next.slice(0, next.indexOf(',"event"'))).toBe(line.slice(0, line.indexOf(',"event"')));
      expect(() => JSON.parse(next)).not.toThrow();
    },
  );

  it('chooses shorter placeholders only when the typed one does not fit', () => {
    const redactor = createStoredRedactor({ kinds: ['pii'] });
    const line = '{"content":"a@b.co"}';
    // `[REDACTED:email]` is longer than the address: a store rewriting in place gets `*`s.
    expect(redactor.line(line)).toBe('{"content":"[REDACTED:email]"}');
    expect(redactor.line(line, utf8ByteLength(line))).toBe('{"content":"******"}');
  });

  it('keeps a damaged line a line: scrubbed in secrets mode, a placeholder in content mode', () => {
    const torn = `{"type":"agent.event","note":"${AWS} torn`;
    expect(createStoredRedactor().line(torn)).toBe(
      '{"type":"agent.event","note":"[REDACTED:aws_key] torn',
    );
    const content = createStoredRedactor({ mode: 'content' });
    expect(content.line(torn)).toBe(JSON.stringify(REDACTED_TEXT));
    expect(content.line('{"x', 3)).toBe('***');
    // Idempotent: a placeholder line is left alone.
    expect(content.line(JSON.stringify(REDACTED_TEXT))).toBe(JSON.stringify(REDACTED_TEXT));
    expect(content.counts.replacements).toBe(2);
  });

  it('keeps a replaced key within the metadata key limit, so a task still reads as one', () => {
    // 64 characters: a typed placeholder for the 9-character password would make it 76.
    const key = `${'a'.repeat(45)} password=abc123xyz`;
    const line = JSON.stringify({ type: 'run.start', task: { metadata: { [key]: 1, b: 'c' } } });
    const redactor = createStoredRedactor();
    const next = JSON.parse(redactor.line(line)) as { task: { metadata: object } };
    expect(next.task.metadata).toEqual({ ['*'.repeat(64)]: 1, b: 'c' });
    expect(metadataSchema.safeParse(next.task.metadata).success).toBe(true);
    expect(redactor.counts.replacements).toBe(1);
    // A shorter key keeps its typed placeholder; a key already longer keeps at most its length.
    const short = JSON.stringify({ metadata: { 'x password=abc123xyz': 1 } });
    expect(createStoredRedactor().line(short)).toBe(
      '{"metadata":{"x password=[REDACTED:credential]":1}}',
    );
    const long = `${'a'.repeat(70)} password=abc123xyz789`;
    expect(createStoredRedactor().line(JSON.stringify({ [long]: 1 }))).toBe(
      JSON.stringify({ [`${'a'.repeat(70)} password=[REDACTED]`]: 1 }),
    );
  });

  it('leaves blank lines and lines without findings as they are', () => {
    const redactor = createStoredRedactor();
    for (const line of ['', '   ', '\uFEFF', '{"a":1}', '{"content":"nothing here"}']) {
      expect(redactor.line(line)).toBe(line);
    }
    expect(redactor.counts.replacements).toBe(0);
  });
});
