import type { Episode, EpisodeType } from '../schema/episode.js';

/**
 * An append-only run of episodes with the indexes that keep filtered reads O(result):
 * positions per type and per turn. A segment has one writer (the log that owns it); forks read a
 * frozen prefix of it through a `SegmentView`, which is what makes forking O(1).
 */
export class Segment {
  readonly episodes: Episode[] = [];
  readonly byType: Record<EpisodeType, number[]> = { boundary: [], item: [], meta: [] };
  readonly byTurn = new Map<string, number[]>();

  push(episode: Episode): void {
    const position = this.episodes.length;
    this.episodes.push(episode);
    this.byType[episode.type].push(position);
    const turnId = episode.meta.turnId;
    if (turnId !== undefined) {
      const positions = this.byTurn.get(turnId);
      if (positions) positions.push(position);
      else this.byTurn.set(turnId, [position]);
    }
  }
}

/** A window on a segment: its first `length` episodes, or all of them when `length` is null (owned). */
export interface SegmentView {
  readonly segment: Segment;
  readonly length: number | null;
}

export function viewLength(view: SegmentView): number {
  return view.length ?? view.segment.episodes.length;
}

/** Number of positions in the ascending `positions` that are below `limit`. */
export function countBelow(positions: readonly number[], limit: number): number {
  let low = 0;
  let high = positions.length;
  if (high === 0 || (positions[high - 1] as number) < limit) return high;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((positions[middle] as number) < limit) low = middle + 1;
    else high = middle;
  }
  return low;
}
