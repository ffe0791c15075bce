import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/index.js';
import type { InputItem } from '../schema/index.js';
import { itemArbitrary } from './__fixtures__/arbitraries.js';
import { call, output, say } from './__fixtures__/logs.js';
import { INTERRUPTED_CALL_OUTPUT, normalizeItems, type SourcedItem } from './normalize-items.js';

const sourced = (items: InputItem[]): SourcedItem[] =>
  items.map((item, index) => ({ item, episodeId: index + 1 }));

describe('normalizeItems', () => {
  it('puts synthesized outputs right after the block of calls and outputs of the dangling call', () => {
    const { items } = normalizeItems(
      sourced([
        say('user', 'go'),
        call('a'),
        call('b'),
        output('b'),
        call('c'),
        say('assistant', 'done'),
        call('d'),
      ]),
    );
    expect(
      items.map((entry) => [
        entry.item.type,
        (entry.item as { call_id?: string }).call_id ?? '',
        entry.synthetic ?? false,
      ]),
    ).toEqual([
      ['message', '', false],
      ['function_call', 'a', false],
      ['function_call', 'b', false],
      ['function_call_output', 'b', false],
      ['function_call', 'c', false],
      ['function_call_output', 'a', true],
      ['function_call_output', 'c', true],
      ['message', '', false],
      ['function_call', 'd', false],
      ['function_call_output', 'd', true],
    ]);
    expect(items[5]?.item).toEqual({
      type: 'function_call_output',
      call_id: 'a',
      output: INTERRUPTED_CALL_OUTPUT,
    });
    expect(items[5]?.episodeId).toBe(2);
  });

  it('treats an output before its call as an orphan and the call as dangling', () => {
    const { items, dropped } = normalizeItems(sourced([output('a'), call('a')]), {
      danglingCalls: 'drop',
    });
    expect(items).toEqual([]);
    expect(dropped.map((drop) => [drop.episodeId, drop.reason])).toEqual([
      [1, 'orphan-output'],
      [2, 'dangling-call'],
    ]);
  });

  it('does not truncate content-part outputs and does not change its input', () => {
    const parts = {
      type: 'function_call_output',
      call_id: 'a',
      output: [{ type: 'input_text', text: 'x'.repeat(9000) }],
    };
    const input = sourced([call('a'), parts as InputItem, output('a', 'y'.repeat(9000))]);
    const copy = structuredClone(input);
    const { items } = normalizeItems(input);
    expect(items[1]?.item).toBe(parts);
    expect(String((items[2]?.item as { output?: string } | undefined)?.output).length).toBeLessThan(
      8100,
    );
    expect(input).toEqual(copy);
  });

  it('rejects bad input naming the field', () => {
    for (const [items, options, field] of [
      ['nope', {}, 'items'],
      [[{ item: 5 }], {}, '[0]'],
      [[], { danglingCalls: 'heal' }, 'danglingCalls'],
      [[], { maxToolOutputChars: 0 }, 'maxToolOutputChars'],
    ] as const) {
      try {
        normalizeItems(items as never, options as never);
        throw new Error('expected a validation error');
      } catch (error) {
        expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
        expect((error as Error).message).toContain(field);
      }
    }
  });

  it('keeps every item it does not drop, in order, and drops only with a reason', () => {
    fc.assert(
      fc.property(
        fc.array(itemArbitrary, { maxLength: 30 }),
        fc.constantFrom('synthesize' as const, 'keep' as const, 'drop' as const),
        (raw, danglingCalls) => {
          const input = sourced(raw);
          const { items, dropped } = normalizeItems(input, {
            danglingCalls,
            maxToolOutputChars: 20,
          });
          const kept = items.filter((entry) => !entry.synthetic).map((entry) => entry.episodeId);
          const droppedIds = dropped.map((drop) => drop.episodeId);
          expect([...kept, ...droppedIds].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
            input.map((entry) => entry.episodeId),
          );
          expect(kept).toEqual([...kept].sort((a, b) => (a ?? 0) - (b ?? 0)));
          for (const entry of items) {
            const value = (entry.item as { output?: unknown }).output;
            if (typeof value === 'string' && !entry.synthetic)
              expect(value.length).toBeLessThanOrEqual(20 + 45);
          }
          if (danglingCalls === 'keep') {
            expect(items.filter((entry) => entry.synthetic)).toEqual([]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
