import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EpisodicError } from '../errors/index.js';
import { uuidSchema } from '../schema/index.js';
import { describeValue, formatPath } from './describe-value.js';
import { invalidField, parseInput } from './parse-input.js';

function messageOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a VALIDATION_ERROR');
}

describe('parseInput', () => {
  const schema = z.strictObject({
    id: uuidSchema,
    kind: z.enum(['b', 'a']),
    count: z.number().int().max(5),
    name: z.string().min(2),
    tags: z.array(z.string()).optional(),
    code: z.string().regex(/^x+$/).optional(),
  });
  const good = { id: '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f', kind: 'a', count: 1, name: 'ok' };

  it('returns the parsed value', () => {
    expect(parseInput(schema, good, 'thing')).toEqual(good);
  });

  it.each([
    [{ ...good, id: 'nope' }, 'id must be a UUID (got "nope")'],
    [{ ...good, kind: 'c' }, 'kind must be one of "a", "b" (got "c")'],
    [{ ...good, count: 9 }, 'count must be at most 5 (got 9)'],
    [{ ...good, name: 'x' }, 'name must be at least 2 characters (got "x")'],
    [{ ...good, name: undefined }, 'name is required (a string) (got nothing)'],
    [{ ...good, tags: ['a', 3] }, 'tags[1] must be a string (got 3)'],
    [{ ...good, code: 'y' }, 'code does not have the expected format (got "y")'],
    [{ ...good, extra: true }, 'extra is not accepted here: remove it (got true)'],
    [{ ...good, tags: 'a' }, 'tags must be an array (got "a")'],
  ])('names the field, the value and the fix: %j', (input, expected) => {
    const message = messageOf(() => parseInput(schema, input, 'thing'));
    expect(message).toContain(`Invalid thing: ${expected}`);
    expect(message).toContain('nothing was changed');
  });

  it('counts further problems and lists them in details', () => {
    try {
      parseInput(schema, { ...good, kind: 'c', count: 9 }, 'thing');
    } catch (error) {
      expect((error as Error).message).toContain('(and 1 more problem)');
      expect((error as EpisodicError).details.issues).toHaveLength(2);
    }
  });

  it('builds single-field errors for checks outside a schema', () => {
    const error = invalidField('query', 'limit', 900, 'must be between 1 and 500');
    expect(error.message).toContain('limit must be between 1 and 500 (got 900)');
  });
});

describe('describeValue and formatPath', () => {
  it('renders values briefly and paths readably', () => {
    expect(describeValue('x'.repeat(100), 10)).toBe('"xxxxxxxx…');
    expect(describeValue(undefined)).toBe('nothing');
    expect(formatPath(['payload', 'items', 2, 'call_id'])).toBe('payload.items[2].call_id');
    expect(formatPath([])).toBe('(root)');
  });
});
