import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEpisodic } from '../episodic/index.js';
import { snapshotMessages } from '../messages/snapshot-messages.js';
import type { InputItem } from '../schema/index.js';
import { countMessages, noMessageCut } from './message-count.js';

/** Items a session log holds: user and assistant messages, calls, outputs (some orphan). */
const itemArbitrary: fc.Arbitrary<InputItem> = fc.oneof(
  fc.constantFrom('a', 'b').map((text) => ({ type: 'message', role: 'user', content: text })),
  fc.constant({ type: 'message', role: 'assistant', content: 'ok' }),
  fc
    .integer({ min: 1, max: 4 })
    .map((n) => ({ type: 'function_call', call_id: `c${n}`, name: 'grep', arguments: '{}' })),
  fc
    .integer({ min: 1, max: 5 })
    .map((n) => ({ type: 'function_call_output', call_id: `c${n}`, output: `out ${n}` })),
  fc.constant({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'hm' }] }),
);

describe('countMessages', () => {
  it('counts what snapshotMessages derives, commit after commit, from the new episodes on', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(itemArbitrary, { maxLength: 6 }), { maxLength: 8 }),
        (commits) => {
          const log = createEpisodic();
          let cut = noMessageCut();
          for (const items of commits) {
            log.appendItems(items);
            const counted = countMessages(log, cut);
            expect(counted.count).toBe(snapshotMessages(log.read({ fromId: 0 })).length);
            cut = counted.advance();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('moves its cut to the last user message no unanswered call precedes', () => {
    const log = createEpisodic();
    log.appendItems([
      { type: 'message', role: 'user', content: 'one' },
      { type: 'message', role: 'assistant', content: 'a' },
      { type: 'message', role: 'user', content: 'two' },
      { type: 'function_call', call_id: 'c1', name: 'grep', arguments: '{}' },
      { type: 'message', role: 'user', content: 'three' },
    ]);
    const counted = countMessages(log, noMessageCut());
    // "three" follows an unanswered call: the stable part ends before "two".
    expect(counted.advance()).toEqual({ afterId: 2, before: 2, calls: new Set() });
    expect(counted.count).toBe(snapshotMessages(log.read({ fromId: 0 })).length);
  });
});
