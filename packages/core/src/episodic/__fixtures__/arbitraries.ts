import fc from 'fast-check';
import type { InputItem, NewEpisode } from '../../schema/index.js';

/** Text that survives JSON: any code points, including lone surrogates. */
const text = fc.string({ unit: 'binary', maxLength: 40 });
const turnId = fc.constantFrom('turn-a', 'turn-b', 'turn-c');
const source = fc.constantFrom('agent', 'model', 'runtime', 'tool', 'user') as fc.Arbitrary<
  'agent' | 'model' | 'runtime' | 'tool' | 'user'
>;

const item: fc.Arbitrary<InputItem> = fc.oneof(
  fc.record({
    type: fc.constant('message'),
    role: fc.constantFrom('user', 'assistant', 'system', 'developer'),
    content: text,
  }) as fc.Arbitrary<InputItem>,
  fc.record({
    type: fc.constant('function_call'),
    call_id: fc.string({ minLength: 1, maxLength: 8 }),
    name: fc.constantFrom('read_file', 'calc'),
    arguments: text,
  }) as fc.Arbitrary<InputItem>,
  fc.record({
    type: fc.constant('function_call_output'),
    call_id: fc.string({ minLength: 1, maxLength: 8 }),
    output: text,
  }) as fc.Arbitrary<InputItem>,
  fc.record({
    type: fc.constant('x_custom_item'),
    value: fc.jsonValue({ maxDepth: 2 }),
  }) as fc.Arbitrary<InputItem>,
);

const meta = fc.record({ source, turnId }, { requiredKeys: ['source'] });

/** Any episode `append` accepts. */
export const newEpisodeArbitrary: fc.Arbitrary<NewEpisode> = fc.oneof(
  fc.record({ type: fc.constant('item' as const), meta, payload: fc.record({ item }) }),
  fc.record({
    type: fc.constant('boundary' as const),
    meta,
    payload: fc.oneof(
      fc.record({ reason: fc.constant('checkpoint' as const), title: text, content: text }),
      fc.record(
        {
          reason: fc.constantFrom('interrupt' as const, 'overflow' as const, 'segment' as const),
          title: text,
          content: text,
        },
        { requiredKeys: ['reason', 'title'] },
      ),
      fc.record(
        {
          reason: fc.constant('intent' as const),
          title: text,
          confidence: fc.double({ min: 0, max: 1, noNaN: true }),
        },
        { requiredKeys: ['reason', 'title'] },
      ),
    ),
  }),
  fc.record({
    type: fc.constant('meta' as const),
    meta,
    payload: fc.record(
      { event: fc.constantFrom('turn.usage', 'audit.note'), data: fc.jsonValue({ maxDepth: 2 }) },
      { requiredKeys: ['event'] },
    ),
  }),
) as fc.Arbitrary<NewEpisode>;
