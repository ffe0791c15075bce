import type { NewEpisode } from '@episodic/core';
import { asciiProse, createRandom } from './text.js';

/** Episodes per turn in the data set. */
export const EPISODES_PER_TURN = 10;

/**
 * The `index`-th episode a session appends (~150 bytes as JSON): mostly items (messages, calls and
 * their outputs), a `turn.usage` meta episode per turn and a checkpoint boundary every 100.
 */
function episodeAt(index: number): NewEpisode {
  const random = createRandom(index + 1);
  const turnId = `t-${Math.floor(index / EPISODES_PER_TURN)}`;
  if (index % 100 === 99) {
    return {
      type: 'boundary',
      meta: { source: 'runtime', turnId },
      payload: { reason: 'checkpoint', title: 'checkpoint', content: asciiProse(random, 60) },
    };
  }
  if (index % EPISODES_PER_TURN === 9) {
    return {
      type: 'meta',
      meta: { source: 'runtime', turnId },
      payload: { event: 'turn.usage', data: { inputTokens: 1200 + (index % 500) } },
    };
  }
  switch (index % 4) {
    case 0:
      return {
        type: 'item',
        meta: { source: 'user', turnId },
        payload: { item: { type: 'message', role: 'user', content: asciiProse(random, 60) } },
      };
    case 1:
      return {
        type: 'item',
        meta: { source: 'model', turnId },
        payload: {
          item: {
            type: 'function_call',
            call_id: `call-${index}`,
            name: 'read_file',
            arguments: '{"path":"src/index.ts"}',
          },
        },
      };
    case 2:
      return {
        type: 'item',
        meta: { source: 'tool', turnId },
        payload: {
          item: {
            type: 'function_call_output',
            call_id: `call-${index - 1}`,
            output: asciiProse(random, 60),
          },
        },
      };
    default:
      return {
        type: 'item',
        meta: { source: 'model', turnId },
        payload: { item: { type: 'message', role: 'assistant', content: asciiProse(random, 60) } },
      };
  }
}

export function episodesFrom(first: number, count: number): NewEpisode[] {
  return Array.from({ length: count }, (_, offset) => episodeAt(first + offset));
}
