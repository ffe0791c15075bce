import type { Episodic } from '../episodic/create-episodic.js';
import { snapshotMessages } from '../messages/snapshot-messages.js';
import type { Episode } from '../schema/episode.js';

/**
 * Where a log's seed 001 messages stop changing: the messages of the episodes up to `afterId`
 * (`before` of them) stay as they are in every longer log (see `stableMessageCount`). `calls`
 * holds the call ids of those episodes: a later output of one of them is a message of its own.
 */
export interface MessageCut {
  readonly afterId: number;
  readonly before: number;
  readonly calls: ReadonlySet<string>;
}

/** No stable part known yet: the whole log is derived. */
export function noMessageCut(): MessageCut {
  return { afterId: 0, before: 0, calls: new Set() };
}

/**
 * The messages `episodes` give after a stable part whose calls are `calls`: an output in them of
 * such a call is kept (its call came earlier), so each such call is put before them, where it
 * makes one assistant message of its own, which is not counted.
 */
function messagesAfter(episodes: readonly Episode[], calls: ReadonlySet<string>): number {
  const called = new Set<string>();
  const earlier: Episode[] = [];
  for (const episode of episodes) {
    if (episode.type !== 'item') continue;
    const { item } = episode.payload;
    const id = String(item.call_id);
    if (item.type === 'function_call') called.add(id);
    else if (item.type === 'function_call_output' && !called.has(id) && calls.has(id)) {
      called.add(id);
      earlier.push({
        id: 0,
        type: 'item',
        meta: { source: 'model' },
        payload: { item: { type: 'function_call', call_id: id, name: '', arguments: '' } },
      } as Episode);
    }
  }
  if (earlier.length === 0) return snapshotMessages(episodes).length;
  return snapshotMessages([...earlier, ...episodes]).length - 1;
}

/**
 * `snapshotMessages(log).length` at the cost of the episodes after `cut` (a commit's, in a
 * session that committed before), and `advance()`, which moves `cut` on for the next count (call
 * it once the commit landed: it adds to `cut.calls` in place). The stable part ends before the
 * last user message that no unanswered call precedes: the user message closes the assistant
 * message calls would be joined to, and every earlier call has its output, so no later episode
 * changes the messages before it.
 */
export function countMessages(
  log: Episodic,
  cut: MessageCut,
): { count: number; advance(): MessageCut } {
  const tail = log.read({ fromId: cut.afterId });
  const open = new Set<string>();
  let stable = 0;
  tail.forEach((episode, index) => {
    if (episode.type !== 'item') return;
    const { item } = episode.payload;
    if (item.type === 'function_call') open.add(String(item.call_id));
    else if (item.type === 'function_call_output') open.delete(String(item.call_id));
    else if (item.type === 'message' && item.role === 'user' && open.size === 0) stable = index;
  });
  const last = stable === 0 ? undefined : tail[stable - 1];
  if (last === undefined) {
    return { count: cut.before + messagesAfter(tail, cut.calls), advance: () => cut };
  }
  const settled = tail.slice(0, stable);
  const before = cut.before + messagesAfter(settled, cut.calls);
  const rest = tail.slice(stable);
  // The calls of the settled part count for the rest too.
  const calls = new Set<string>();
  for (const episode of settled) {
    if (episode.type === 'item' && episode.payload.item.type === 'function_call') {
      calls.add(String(episode.payload.item.call_id));
    }
  }
  const known = { has: (id: string) => calls.has(id) || cut.calls.has(id) } as ReadonlySet<string>;
  return {
    count: before + messagesAfter(rest, known),
    advance: () => {
      const all = cut.calls as Set<string>;
      for (const id of calls) all.add(id);
      return { afterId: last.id, before, calls: all };
    },
  };
}
