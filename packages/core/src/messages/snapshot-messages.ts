import { normalizeTrusted, type SourcedItem } from '../assembly/normalize-items.js';
import type { BaseMessage } from '../schema/base-message.js';
import type { Episode } from '../schema/episode.js';
import { itemsToMessages } from './items-to-messages.js';

/**
 * The `messages` of a state snapshot (seed 001) for a committed log: its items as chat messages,
 * healed so that a reader resuming from them never meets an unpaired call. A tool output whose
 * call is not before it is left out, and a call without an output gets one saying it was
 * interrupted (`INTERRUPTED_CALL_OUTPUT`), as model input assembly heals them. The log itself keeps
 * the truth; only this view is healed. Every other message keeps every field (see
 * `messagesToItems`), so a seed 001 snapshot resumed and committed again keeps its messages.
 */
export function snapshotMessages(episodes: readonly Episode[]): BaseMessage[] {
  const sourced: SourcedItem[] = [];
  const times = new Map<number, string | undefined>();
  for (const episode of episodes) {
    if (episode.type !== 'item') continue;
    sourced.push({ item: episode.payload.item, episodeId: episode.id });
    times.set(episode.id, episode.meta.ts);
  }
  const { items } = normalizeTrusted(sourced, {
    danglingCalls: 'synthesize',
    maxToolOutputChars: Number.MAX_SAFE_INTEGER,
  });
  return itemsToMessages(
    items.map((entry) => entry.item),
    items.map((entry) =>
      entry.synthetic === true || entry.episodeId === undefined
        ? undefined
        : times.get(entry.episodeId),
    ),
  );
}
