import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/episodic-error.js';
import { normalizeScope, requireScope, resolveScopeSelector } from './scope.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return EpisodicError.isInstance(error) ? error.code : 'not an EpisodicError';
  }
  return undefined;
}

describe('normalizeScope', () => {
  it.each([
    ['My Project', 'my-project'],
    ['  Team   Alpha\t\n', 'team-alpha'],
    ['ＡＣＭＥ　Ｃｏｒｐ', 'acme-corp'],
    ['ﬁnance', 'finance'],
    ['tenant:42/sub.team_x', 'tenant:42/sub.team_x'],
    ['--a--b--', 'a-b'],
    ['._:/openclaw-mem/._:', 'openclaw-mem'],
    ['Müller & Söhne!!', 'm-ller-s-hne'],
    ['a\u0000b', 'a-b'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeScope(input)).toBe(expected);
  });

  it.each(['', '   ', '---', '!!!', '._:/', '日本語'])('%j is an invalid scope', (input) => {
    expect(() => normalizeScope(input)).toThrow(/invalid scope/i);
    expect(codeOf(() => normalizeScope(input))).toBe('VALIDATION_ERROR');
  });

  it('rejects scopes longer than 256 characters after normalization', () => {
    expect(normalizeScope('a'.repeat(256))).toHaveLength(256);
    expect(codeOf(() => normalizeScope('a'.repeat(257)))).toBe('VALIDATION_ERROR');
  });

  it('answers a repeated scope from its cache with the same result, and still rejects bad ones', () => {
    for (let round = 0; round < 3; round++) {
      expect(normalizeScope('  My Project ')).toBe('my-project');
      expect(codeOf(() => normalizeScope('!!!'))).toBe('VALIDATION_ERROR');
      expect(codeOf(() => normalizeScope('a'.repeat(257)))).toBe('VALIDATION_ERROR');
    }
    // More distinct scopes than the cache keeps: every one still normalizes correctly.
    for (let index = 0; index < 3000; index++) {
      expect(normalizeScope(`Team ${index}`)).toBe(`team-${index}`);
    }
    expect(normalizeScope('  My Project ')).toBe('my-project');
  });

  it('is idempotent, yields only [a-z0-9._:/-], never empty, never edge punctuation (property)', () => {
    const scopes = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.stringMatching(/^[ A-Za-z0-9._:/\-!@]{0,40}$/),
    );
    fc.assert(
      fc.property(scopes, (input) => {
        let normalized: string;
        try {
          normalized = normalizeScope(input);
        } catch (error) {
          expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
          return;
        }
        expect(normalized).toMatch(/^[a-z0-9._:/-]+$/);
        expect(normalized).not.toMatch(/^[-./:_]|[-./:_]$/);
        expect(normalized).not.toContain('--');
        expect(normalizeScope(normalized)).toBe(normalized);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('scope selectors', () => {
  it('requires a scope: missing is SCOPE_REQUIRED, never a fallback', () => {
    expect(codeOf(() => requireScope(undefined, 'append'))).toBe('SCOPE_REQUIRED');
    expect(codeOf(() => resolveScopeSelector({}, 'query'))).toBe('SCOPE_REQUIRED');
  });

  it('gives every scope only for an explicit global: true', () => {
    expect(resolveScopeSelector({ global: true }, 'query')).toEqual({ scope: null });
    expect(resolveScopeSelector({ scope: 'Team A' }, 'query')).toEqual({ scope: 'team-a' });
    expect(codeOf(() => resolveScopeSelector({ scope: 'x', global: true }, 'query'))).toBe(
      'VALIDATION_ERROR',
    );
  });

  it("openclaw-mem's literal scope global is addressable alone; appends never write there", () => {
    expect(() => requireScope('Global', 'append')).toThrow(/does not write there/);
    // scope: 'global' is that one scope; global: true is every scope.
    expect(resolveScopeSelector({ scope: ' GLOBAL ' }, 'query')).toEqual({ scope: 'global' });
    expect(resolveScopeSelector({ scope: 'global' }, 'redaction')).toEqual({ scope: 'global' });
  });
});
