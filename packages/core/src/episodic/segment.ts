import type { Episode, EpisodeType } from '../schema/episode.js';
import { deepFreeze } from '../util/json.js';

/**
 * An append-only run of episodes with the indexes that keep filtered reads O(result):
 * positions per type and per turn. A segment has one writer (the log that owns it); forks read a
 * frozen prefix of it through a `SegmentView`, which is what makes forking O(1).
 */
export class Segment {
  readonly episodes: Episode[] = [];
  readonly byType: Record<EpisodeType, number[]> = { boundary: [], item: [], meta: [] };
  readonly byTurn = new Map<string, number[]>();
  /**
   * 1 where the episode is known to be deeply frozen. Restored episodes are stored as parsed and
   * frozen on their first read (restore stays at parse speed); a flag is cheaper to read than
   * `Object.isFrozen` on every read.
   */
  private frozen = new Uint8Array(64);

  /** Appends an episode; `frozen` says whether it is already deeply frozen. */
  push(episode: Episode, frozen: boolean): void {
    const position = this.episodes.length;
    this.episodes.push(episode);
    if (position === this.frozen.length) {
      const grown = new Uint8Array(position * 2);
      grown.set(this.frozen);
      this.frozen = grown;
    }
    this.frozen[position] = frozen ? 1 : 0;
    this.byType[episode.type].push(position);
    const turnId = episode.meta.turnId;
    if (turnId !== undefined) {
      const positions = this.byTurn.get(turnId);
      if (positions) positions.push(position);
      else this.byTurn.set(turnId, [position]);
    }
  }

  /** Whether the episode at `position` is known to be deeply frozen. */
  isFrozen(position: number): boolean {
    return this.frozen[position] === 1;
  }

  /** The episode at `position`, deeply frozen (on its first read, if it was stored as parsed). */
  read(position: number): Episode {
    const episode = this.episodes[position] as Episode;
    if (this.frozen[position] === 0) {
      deepFreeze(episode);
      this.frozen[position] = 1;
    }
    return episode;
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
