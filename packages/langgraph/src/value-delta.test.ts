import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { appendedTo, applyAppended } from './value-delta.js';

const json = fc.jsonValue({ maxDepth: 3 });
const text = (value: unknown) => JSON.stringify(value);

describe('appendedTo / applyAppended', () => {
  it('finds what a list or a text gained at the end', () => {
    expect(appendedTo('[1,2]', '[1,2,3,[4]]')).toEqual({ kind: 'array', text: '[3,[4]]' });
    expect(appendedTo('[]', '[{"a":1}]')).toEqual({ kind: 'array', text: '[{"a":1}]' });
    expect(appendedTo('"ab"', '"abc\\n"')).toEqual({ kind: 'string', text: '"c\\n"' });
    expect(appendedTo('[1,2]', '[1,23]')).toBeNull();
    expect(appendedTo('[1,2]', '[1,2]')).toBeNull();
    expect(appendedTo('{"a":1}', '{"a":1,"b":2}')).toBeNull();
    expect(appendedTo('[1]', '"[1,2]"')).toBeNull();
  });

  test.prop([fc.array(json, { maxLength: 6 }), fc.array(json, { minLength: 1, maxLength: 6 })])(
    'a list that grew is its previous text plus what was appended',
    (before, added) => {
      const previous = text(before);
      const next = text([...before, ...added]);
      const appended = appendedTo(previous, next);
      expect(appended).toEqual({ kind: 'array', text: text(added) });
      expect(applyAppended(previous, [appended?.text as string])).toBe(next);
    },
  );

  test.prop([fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme', minLength: 1 })])(
    'a text that grew is its previous text plus what was appended',
    (before, added) => {
      const previous = text(before);
      const next = text(before + added);
      const appended = appendedTo(previous, next);
      expect(appended?.kind).toBe('string');
      expect(JSON.parse(appended?.text as string)).toBe(added);
      expect(applyAppended(previous, [appended?.text as string])).toBe(next);
    },
  );

  test.prop([json, json])(
    'never claims an append that does not rebuild the value',
    (left, right) => {
      const appended = appendedTo(text(left), text(right));
      if (appended !== null) expect(applyAppended(text(left), [appended.text])).toBe(text(right));
    },
  );

  test.prop([fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })])(
    'texts of any code units, lone surrogates included: an append is exact or not claimed',
    (before, added) => {
      const previous = text(before);
      const next = text(before + added);
      const appended = appendedTo(previous, next);
      if (appended !== null) {
        expect(applyAppended(previous, [appended.text])).toBe(next);
        expect(JSON.parse(appended.text)).toBe(added);
      }
    },
  );

  test.prop([
    fc.array(fc.array(json, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
  ])('a chain of appends applied at once gives the last value', (steps) => {
    let value: unknown[] = [];
    const appended: string[] = [];
    for (const step of steps) {
      const next = [...value, ...step];
      appended.push((appendedTo(text(value), text(next)) as { text: string }).text);
      value = next;
    }
    expect(applyAppended('[]', appended)).toBe(text(value));
  });
});
