import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTENT_SAMPLES, ORDINARY_TEXT } from './__fixtures__/content-samples.js';
import { guardJsonValue, placeholderFor, redactText, scanText } from './content-guard.js';
import { DEFAULT_CONTENT_RULES } from './content-rules.js';

describe('content detectors: true positives and near misses per rule', () => {
  it('has samples for every default rule, at least 2 true positives and 2 near misses each', () => {
    for (const rule of DEFAULT_CONTENT_RULES) {
      const samples = CONTENT_SAMPLES[rule.id];
      expect(samples, rule.id).toBeDefined();
      expect(samples?.truePositives.length, rule.id).toBeGreaterThanOrEqual(1);
      expect(samples?.falsePositives.length, rule.id).toBeGreaterThanOrEqual(2);
    }
  });

  for (const rule of DEFAULT_CONTENT_RULES) {
    const samples = CONTENT_SAMPLES[rule.id];
    if (samples === undefined) continue;
    it(`${rule.id}: finds and fully redacts every true positive`, () => {
      for (const sample of samples.truePositives) {
        expect(scanText(sample.text), JSON.stringify(sample.text)).toContain(rule.id);
        const redacted = redactText(sample.text);
        expect(redacted.text).not.toContain(sample.secret);
        expect(redacted.text).toContain(placeholderFor(rule.id));
      }
    });
    it(`${rule.id}: flags none of its near misses (no rule does)`, () => {
      for (const text of samples.falsePositives) {
        expect(scanText(text), JSON.stringify(text)).toEqual([]);
      }
    });
  }

  it('flags nothing in ordinary agent text', () => {
    for (const text of ORDINARY_TEXT) expect(scanText(text), text).toEqual([]);
  });

  it('redaction is idempotent: placeholders are never flagged again', () => {
    for (const samples of Object.values(CONTENT_SAMPLES)) {
      for (const sample of samples.truePositives) {
        const once = redactText(sample.text).text;
        expect(scanText(once), once).toEqual([]);
        expect(redactText(once).text).toBe(once);
      }
    }
  });

  it('keeps the key of a key=value credential and replaces only the value', () => {
    expect(redactText('password=hunter2hunter2 next').text).toBe(
      'password=[REDACTED:credential] next',
    );
    expect(redactText('postgres://app:S3cret99@db/app').text).toBe(
      'postgres://app:[REDACTED:url_password]@db/app',
    );
  });

  it('finds secrets planted anywhere in arbitrary text (property)', () => {
    const secrets = Object.values(CONTENT_SAMPLES)
      .flatMap((samples) => samples.truePositives)
      .filter((sample) => sample.text === `value: ${sample.secret} (end)`)
      .map((sample) => sample.secret);
    const filler = fc.string({ maxLength: 40 }).map((text) => text.replace(/[^ a-z.,]/g, ' '));
    fc.assert(
      fc.property(filler, fc.constantFrom(...secrets), filler, (before, secret, after) => {
        const text = `${before} ${secret} ${after}`;
        expect(redactText(text).text).not.toContain(secret);
      }),
      { numRuns: 300 },
    );
  });

  it('stays linear on adversarial input (no catastrophic backtracking)', () => {
    const inputs = [
      'a'.repeat(8192),
      '-----BEGIN PRIVATE KEY-----'.repeat(300),
      'password='.repeat(900),
      `${'a.'.repeat(4000)}@`,
      '+1 '.repeat(2700),
      ' at x.js:1'.repeat(800),
    ];
    for (const input of inputs) expect(() => scanText(input)).not.toThrow();
  });
});

describe('guardJsonValue', () => {
  it('walks nested values, names the field, and never returns the matched text', () => {
    const aws = `AKIA${'QZ2X7WJ4KT5M3R6N'}`;
    const value = { headers: { authorization: 'fine' }, items: ['ok', `key ${aws}`], n: 3 };
    const { findings } = guardJsonValue(value, 'payload');
    expect(findings).toEqual([{ rule: 'aws_key', kind: 'secret', field: 'payload.items[1]' }]);
    expect(JSON.stringify(findings)).not.toContain(aws);
  });

  it('treats a string under a credential key as a credential', () => {
    const { findings, value } = guardJsonValue(
      { db: { password: 'Zx9!kq2#mm', user: 'app' }, api_key: 'process.env.API_KEY' },
      'payload',
      { redact: true },
    );
    expect(findings).toEqual([
      { rule: 'credential', kind: 'secret', field: 'payload.db.password' },
    ]);
    expect(value).toEqual({
      db: { password: '[REDACTED:credential]', user: 'app' },
      api_key: 'process.env.API_KEY',
    });
  });

  it('returns the same object when nothing is found, and a copy when something is redacted', () => {
    const clean = { a: ['x', { b: 'y' }] };
    expect(guardJsonValue(clean, 'payload', { redact: true }).value).toBe(clean);
    const dirty = { a: ['x', { b: 'mail jane.doe@example.com' }] };
    const redacted = guardJsonValue(dirty, 'payload', { redact: true }).value;
    expect(redacted).toEqual({ a: ['x', { b: 'mail [REDACTED:email]' }] });
    expect(dirty.a[1]).toEqual({ b: 'mail jane.doe@example.com' });
  });

  it('skips the kinds that are allowed', () => {
    const text = 'mail jane.doe@example.com with \u001b[31mred\u001b[0m';
    expect(guardJsonValue(text, 'summary', { allow: ['pii'] }).findings.map((f) => f.kind)).toEqual(
      ['tool_output', 'tool_output'],
    );
    expect(guardJsonValue(text, 'summary', { allow: ['pii', 'tool_output'] }).findings).toEqual([]);
  });
});
