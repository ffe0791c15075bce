import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazyCompiled } from './compiled-schema.js';

const schema = z.strictObject({
  id: z.string().min(1).max(20),
  count: z.number().int().nonnegative().optional(),
  tags: z
    .array(z.enum(['a', 'b', 'c']))
    .max(3)
    .default([]),
});

describe('lazyCompiled', () => {
  it('hands out the schema itself for the first calls, then one compiled clone', () => {
    const get = lazyCompiled(schema);
    const first = Array.from({ length: 8 }, () => get());
    expect(first.every((value) => value === schema)).toBe(true);
    const compiled = get();
    expect(compiled).not.toBe(schema);
    expect(get()).toBe(compiled);
  });

  // Whichever of the two a caller gets, it parses the same way and reports the same issues.
  test.prop([
    fc.oneof(
      fc.record({
        id: fc.string({ maxLength: 25 }),
        count: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double(), fc.constant(undefined)),
        tags: fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 4 }),
      }),
      fc.record({ id: fc.string(), extra: fc.anything() }),
      fc.anything(),
    ),
  ])('the compiled clone agrees with the schema', (value) => {
    const get = lazyCompiled(schema);
    for (let index = 0; index < 8; index++) get();
    const compiled = get();
    const expected = schema.safeParse(value);
    const actual = compiled.safeParse(value);
    expect(actual.success).toBe(expected.success);
    if (expected.success) expect(actual.data).toEqual(expected.data);
    else expect(actual.error?.issues).toEqual(expected.error.issues);
  });
});
