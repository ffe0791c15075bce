import type { BaseMessage } from '../schema/base-message.js';
import type { EpisodeSource, NewEpisode } from '../schema/episode.js';
import type { InputItem } from '../schema/input-item.js';
import { messagesToItems } from './messages-to-items.js';

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
 * episode per converted item, its source taken from the item (user, model, tool or runtime).
 * Deterministic, so the log a snapshot resumes as is the same every time.
 */
export function messagesToEpisodes(messages: readonly BaseMessage[]): NewEpisode[] {
  return messagesToItems(messages).map((item) => ({
    type: 'item',
    meta: { source: sourceOf(item) },
    payload: { item },
  }));
}
