import fc from 'fast-check';
import type { InputItem, NewEpisode } from '../../schema/index.js';

const callId = fc.constantFrom('a', 'b', 'c', 'd');
const turnId = fc.option(fc.constantFrom('t1', 't2', 't3'), { nil: undefined });
const text = fc.string({ maxLength: 30 });

/** Model input items with call ids from a small pool, so calls and outputs pair (or not) often. */
export const itemArbitrary: fc.Arbitrary<InputItem> = fc.oneof(
  fc.record({
    type: fc.constant('message'),
    role: fc.constantFrom('user', 'assistant'),
    content: text,
  }) as fc.Arbitrary<InputItem>,
  fc.record({
    type: fc.constant('function_call'),
    call_id: callId,
    name: fc.constant('tool'),
    arguments: fc.constant('{}'),
  }) as fc.Arbitrary<InputItem>,
  fc.record({
    type: fc.constant('function_call_output'),
    call_id: callId,
    output: fc.oneof(text, fc.string({ minLength: 9, maxLength: 40 })),
  }) as fc.Arbitrary<InputItem>,
  fc.record({
    type: fc.constant('reasoning'),
    summary: fc.constant([]),
  }) as fc.Arbitrary<InputItem>,
);

/** Episodes of every kind, weighted towards items. */
export const episodeArbitrary: fc.Arbitrary<NewEpisode> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      type: fc.constant('item' as const),
      meta: fc.record(
        { source: fc.constant('model' as const), turnId },
        { requiredKeys: ['source'] },
      ),
      payload: fc.record({ item: itemArbitrary }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('boundary' as const),
      meta: fc.record({ turnId }, { requiredKeys: [] }),
      payload: fc.oneof(
        fc.record({ reason: fc.constant('checkpoint' as const), title: text, content: text }),
        fc.record({
          reason: fc.constantFrom('interrupt' as const, 'overflow' as const, 'segment' as const),
          title: text,
        }),
        fc.record({ reason: fc.constant('intent' as const), title: text }),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('meta' as const),
      meta: fc.record({ turnId }, { requiredKeys: [] }),
      payload: fc.record({
        event: fc.constant('turn.usage'),
        data: fc.record({ inputTokens: fc.nat({ max: 400 }) }),
      }),
    }),
  },
) as fc.Arbitrary<NewEpisode>;
