import type { Episode, EpisodeType } from '../schema/episode.js';
import { countBelow, type Segment, type SegmentView, viewLength } from './segment.js';

export interface ReadPlan {
  fromId: number;
  limit: number;
  types: ReadonlySet<EpisodeType> | null;
  turnId: string | null;
}

/**
 * Walks the views newest-first through the most selective index (turn, then type, then all),
 * stopping at `limit` results or at the first id not above `fromId`. Returns ascending ids.
 */
export function readEpisodes(views: readonly SegmentView[], plan: ReadPlan): Episode[] {
  const { fromId, limit, types, turnId } = plan;
  const newestFirst: Episode[] = [];
  for (let viewIndex = views.length - 1; viewIndex >= 0; viewIndex--) {
    const view = views[viewIndex] as SegmentView;
    const { episodes } = view.segment;
    const length = viewLength(view);
    if (length === 0) continue;
    if (turnId !== null) {
      const positions = view.segment.byTurn.get(turnId);
      if (!positions) continue;
      if (collect(positions, countBelow(positions, length), view.segment, newestFirst, plan, types))
        break;
    } else if (types !== null && types.size < 3) {
      const lists = [...types].map((type) => view.segment.byType[type]);
      if (collectMerged(lists, length, view.segment, newestFirst, plan)) break;
    } else {
      let done = false;
      for (let position = length - 1; position >= 0; position--) {
        const episode = episodes[position] as Episode;
        if (episode.id <= fromId || newestFirst.length >= limit) {
          done = true;
          break;
        }
        newestFirst.push(view.segment.read(position));
      }
      if (done) break;
    }
    if (newestFirst.length >= limit) break;
  }
  return newestFirst.reverse();
}

/** Collects from one ascending position list; returns true when the read is complete. */
function collect(
  positions: readonly number[],
  end: number,
  segment: Segment,
  out: Episode[],
  plan: ReadPlan,
  types: ReadonlySet<EpisodeType> | null,
): boolean {
  const { episodes } = segment;
  for (let index = end - 1; index >= 0; index--) {
    const position = positions[index] as number;
    const episode = episodes[position] as Episode;
    if (episode.id <= plan.fromId) return true;
    if (types !== null && !types.has(episode.type)) continue;
    if (out.length >= plan.limit) return true;
    out.push(segment.read(position));
  }
  return out.length >= plan.limit;
}

/** Merges several ascending position lists newest-first (a k-way merge, k ≤ 2). */
function collectMerged(
  lists: ReadonlyArray<readonly number[]>,
  length: number,
  segment: Segment,
  out: Episode[],
  plan: ReadPlan,
): boolean {
  const { episodes } = segment;
  const cursors = lists.map((positions) => countBelow(positions, length) - 1);
  for (;;) {
    let best = -1;
    let bestList = -1;
    for (let listIndex = 0; listIndex < lists.length; listIndex++) {
      const cursor = cursors[listIndex] as number;
      if (cursor < 0) continue;
      const position = (lists[listIndex] as readonly number[])[cursor] as number;
      if (position > best) {
        best = position;
        bestList = listIndex;
      }
    }
    if (bestList < 0) return out.length >= plan.limit;
    const episode = episodes[best] as Episode;
    if (episode.id <= plan.fromId || out.length >= plan.limit) return true;
    out.push(segment.read(best));
    cursors[bestList] = (cursors[bestList] as number) - 1;
  }
}
