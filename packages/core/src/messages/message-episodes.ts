import type { BaseMessage } from '../schema/base-message.js';
import { type EpisodeSource, isoTimestampSchema, type NewEpisode } from '../schema/episode.js';
import type { InputItem } from '../schema/input-item.js';
import { messagesToItemGroups } from './messages-to-items.js';

function sourceOf(item: InputItem): EpisodeSource {
  if (item.type === 'function_call_output') return 'tool';
  if (item.type === 'message') {
    if (item.role === 'user') return 'user';
    if (item.role === 'assistant') return 'model';
    return 'runtime';
  }
  return 'model';
}

/**
 * The episodes of a seed 001 snapshot that has only chat `messages` (no episodic log): one `item`
 * episode per converted item, its source taken from the item (user, model, tool or runtime). The
 * items keep every field of their messages (`messagesToItems`), and an episode gets its message's
 * `message_ts` as its time when that is an ISO-8601 UTC time (none otherwise), so the next fold
 * writes the same messages back. Deterministic, so the log a snapshot resumes as is the same every
 * time.
 */
export function messagesToEpisodes(messages: readonly BaseMessage[]): NewEpisode[] {
  const episodes: NewEpisode[] = [];
  messagesToItemGroups(messages).forEach((items, index) => {
    const time = messages[index]?.message_ts;
    const ts = isoTimestampSchema.safeParse(time).success ? { ts: time as string } : {};
    for (const item of items) {
      episodes.push({ type: 'item', meta: { source: sourceOf(item), ...ts }, payload: { item } });
    }
  });
  return episodes;
}
