import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { Episode } from '../schema/episode.js';
import type { InputItem } from '../schema/input-item.js';
import { CHAT_MESSAGE_ITEM_TYPE } from './chat-message-marker.js';
import { baseMessages, snapshotMessages, stableMessageCount } from './snapshot-messages.js';

/** Items of every kind `snapshotMessages` treats differently, over a few shared call ids. */
const callId = fc.constantFrom('a', 'b', 'c');
const item: fc.Arbitrary<InputItem> = fc.oneof(
  fc.record({
    type: fc.constant('message'),
    role: fc.constantFrom('user', 'assistant', 'system'),
    content: fc.string({ maxLength: 4 }),
  }),
  fc.record({
    type: fc.constant('function_call'),
    call_id: callId,
    name: fc.constantFrom('read', 'list'),
    arguments: fc.constant('{}'),
  }),
  fc.record({ type: fc.constant('function_call_output'), call_id: callId, output: fc.string() }),
  fc.record({ type: fc.constant('reasoning'), summary: fc.constant([{ text: 'hm' }]) }),
  fc.record({
    type: fc.constant(CHAT_MESSAGE_ITEM_TYPE),
    message: fc.constant({ role: 'assistant', content: null }),
  }),
  fc.constant({ type: 'web_search_call' }),
) as fc.Arbitrary<InputItem>;

/** A log: item episodes, now and then another kind (snapshotMessages skips them). */
const log = fc
  .array(fc.oneof({ weight: 9, arbitrary: item }, { weight: 1, arbitrary: fc.constant(null) }), {
    maxLength: 40,
  })
  .map((entries) =>
    entries.map(
      (entry, index): Episode =>
        (entry === null
          ? { id: index + 1, type: 'meta', meta: {}, payload: { kind: 'note' } }
          : {
              id: index + 1,
              type: 'item',
              meta: { source: 'user', ts: `2026-01-01T00:00:${String(index).padStart(2, '0')}Z` },
              payload: { item: entry },
            }) as unknown as Episode,
    ),
  );

const json = (value: unknown) => JSON.stringify(value);

describe('stableMessageCount', () => {
  test.prop([log, fc.nat()])(
    'the base of `count` episodes and every longer log share that many first messages',
    (episodes, at) => {
      const count = at % (episodes.length + 1);
      const stable = stableMessageCount(episodes, count);
      const base = snapshotMessages(episodes.slice(0, count));
      const whole = snapshotMessages(episodes);
      expect(stable).toBeLessThanOrEqual(base.length);
      expect(json(whole.slice(0, stable))).toBe(json(base.slice(0, stable)));
      // The same count from the whole log's messages as baseMessages made them (the same ones).
      const remembered = baseMessages(episodes);
      expect(json(remembered)).toBe(json(whole));
      expect(stableMessageCount(episodes, count, remembered)).toBe(stable);
    },
  );

  it('keeps every message before the last user turn of a plain chat', () => {
    const texts = ['hi', 'hello', 'how are you', 'fine', 'bye'];
    const episodes = texts.map(
      (content, index) =>
        ({
          id: index + 1,
          type: 'item',
          meta: { source: 'user' },
          payload: {
            item: { type: 'message', role: index % 2 === 0 ? 'user' : 'assistant', content },
          },
        }) as Episode,
    );
    // The fifth episode (a user message) is where a log of four goes on: all four are kept.
    expect(stableMessageCount(episodes, 4)).toBe(4);
    // A log of three may go on with a call joined to its last (assistant) message: two are kept.
    expect(stableMessageCount(episodes.slice(0, 4), 3)).toBe(2);
  });

  it('keeps nothing after an unanswered call', () => {
    const items: InputItem[] = [
      { type: 'message', role: 'user', content: 'run it' },
      { type: 'function_call', call_id: 'x', name: 'run', arguments: '{}' },
      { type: 'message', role: 'user', content: 'still there?' },
      { type: 'function_call_output', call_id: 'x', output: 'done' },
      { type: 'message', role: 'user', content: 'thanks' },
    ];
    const episodes = items.map(
      (entry, index) =>
        ({
          id: index + 1,
          type: 'item',
          meta: { source: 'user' },
          payload: { item: entry },
        }) as Episode,
    );
    // While the call is open its output is healed (a synthetic one) and every message from the
    // call on may change: none is kept (the first user message is where the cut would be)...
    expect(stableMessageCount(episodes, 3)).toBe(0);
    // ...until the output came: then everything before the last user message is.
    expect(stableMessageCount(episodes, 4)).toBe(snapshotMessages(episodes.slice(0, 4)).length);
  });
});
