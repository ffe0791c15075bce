import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { thrownError } from '../__fixtures__/episodic-errors.js';
import {
  ID_PREFIX_MIN_LENGTH,
  idPrefixRange,
  parseIdReference,
  resolveIdPrefix,
} from './id-prefix.js';

const uuids = fc.uuid({ version: 4 });
describe('parseIdReference', () => {
  test.prop([uuids, fc.integer({ min: ID_PREFIX_MIN_LENGTH, max: 35 }), fc.boolean()])(
    'reads every prefix of 6 or more characters of a UUID, in either case, as that prefix in lowercase',
    (id, length, upper) => {
      const typed = upper ? id.slice(0, length).toUpperCase() : id.slice(0, length);
      expect(parseIdReference(typed, 'run', 'RUN_ID')).toEqual({
        kind: 'prefix',
        prefix: id.slice(0, length).toLowerCase(),
      });
    },
  );

  test.prop([uuids])('reads a whole UUID as the id, lowercase', (id) => {
    expect(parseIdReference(id.toUpperCase(), 'session', 'SESSION_ID')).toEqual({
      kind: 'id',
      id: id.toLowerCase(),
    });
  });

  test.prop([fc.string({ maxLength: 50 })])(
    'refuses anything else with a VALIDATION_ERROR that says what an id looks like',
    (value) => {
      const lower = value.toLowerCase();
      const isUuidStart =
        lower.length >= ID_PREFIX_MIN_LENGTH &&
        /^[0-9a-f-]+$/.test(lower) &&
        '00000000-0000-0000-0000-000000000000'
          .slice(0, lower.length)
          .split('')
          .every((character, index) => (character === '-') === (lower[index] === '-'));
      if (isUuidStart && lower.length <= 36) {
        expect(parseIdReference(value, 'task', 'EPISODE_ID').kind).not.toBeUndefined();
        return;
      }
      const error = thrownError(() => parseIdReference(value, 'task', 'EPISODE_ID'));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain('EPISODE_ID');
      expect(error.message).toContain('UUID such as');
    },
  );

  it('says a short prefix is too short, and how long one must be', () => {
    const error = thrownError(() => parseIdReference('d6af9', 'task', 'EPISODE_ID'));
    expect(error.message).toContain('too short');
    expect(error.message).toContain('first 6 or more characters');
    expect(thrownError(() => parseIdReference('nope', 'run', 'RUN_ID')).message).toMatch(
      /^RUN_ID "nope" is not a UUID or the start of one\. A run id is a UUID such as/,
    );
    expect(thrownError(() => parseIdReference(undefined, 'run', 'RUN_ID')).message).toContain(
      'RUN_ID is missing',
    );
  });

  it('reads an event id as typed (event ids have no fixed form), refusing other characters', () => {
    expect(parseIdReference('01JH4Z5Q8K', 'event', '--event-id')).toEqual({
      kind: 'prefix',
      prefix: '01JH4Z5Q8K',
    });
    expect(parseIdReference('e1', 'event', '--event-id')).toEqual({ kind: 'id', id: 'e1' });
    expect(thrownError(() => parseIdReference('a b', 'event', '--event-id')).code).toBe(
      'VALIDATION_ERROR',
    );
  });
});

describe('resolveIdPrefix', () => {
  test.prop([
    fc.uniqueArray(uuids, { minLength: 1, maxLength: 30 }),
    fc.nat(),
    fc.integer({ min: ID_PREFIX_MIN_LENGTH, max: 36 }),
  ])(
    'returns the one candidate with the prefix, else names (a few of) exactly the matching ones',
    (ids, pick, length) => {
      // Ids that share long prefixes, so ambiguity is common: keep the first 2 characters varied.
      const shared = ids.map((id, index) => (index % 2 === 0 ? `abcdef${id.slice(6)}` : id));
      const prefix = (shared[pick % shared.length] as string).slice(0, length);
      const matching = [...new Set(shared.filter((id) => id.startsWith(prefix)))].sort();
      if (matching.length === 1) {
        expect(resolveIdPrefix(prefix, shared, 'run')).toBe(matching[0]);
        return;
      }
      const error = thrownError(() => resolveIdPrefix(prefix, shared, 'run'));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details).toMatchObject({ count: matching.length });
      const named = error.details.candidates as string[];
      expect(named.length).toBe(Math.min(5, matching.length));
      for (const id of named) expect(matching).toContain(id);
      for (const id of shared.filter((id) => !id.startsWith(prefix)))
        expect(error.message).not.toContain(id);
    },
  );

  test.prop([fc.uniqueArray(uuids, { maxLength: 10 }), uuids])(
    'is NOT_FOUND when no candidate starts with the prefix, naming none',
    (ids, absent) => {
      const prefix = absent.slice(0, 12);
      fc.pre(!ids.some((id) => id.startsWith(prefix)));
      const error = thrownError(() => resolveIdPrefix(prefix, ids, 'session'));
      expect(error.code).toBe('NOT_FOUND');
      for (const id of ids) expect(error.message).not.toContain(id);
    },
  );

  test.prop([uuids, fc.string({ unit: fc.constantFrom(...'0123456789abcdef-'), maxLength: 40 })])(
    'the range holds exactly the ids that start with the prefix (byte order)',
    (id, suffix) => {
      const prefix = id.slice(0, 8);
      const candidate = `${prefix}${suffix}`;
      const { from, to } = idPrefixRange(prefix);
      expect(candidate >= from && candidate < to).toBe(candidate.startsWith(prefix));
      const before = `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(7) - 1)}`;
      expect(before >= from && before < to).toBe(false);
    },
  );

  it('says "at least" when the store stopped at its limit', () => {
    const error = thrownError(() =>
      resolveIdPrefix('abcdef', ['abcdef01', 'abcdef02'], 'task', { atLeast: true }),
    );
    expect(error.message).toBe(
      '"abcdef" is the start of at least 2 task episode ids: abcdef01, abcdef02. Give more characters of the one you mean.',
    );
  });
});
