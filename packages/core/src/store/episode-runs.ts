import type { EpisodeRunRange, SessionDelta } from '../schema/session-state.js';

function idOf(episode: unknown): number | undefined {
  const id = (episode as { id?: unknown } | null)?.id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/**
 * Adds to `ranges` (a base's `episode_runs`), in place, the episodes `delta` committed: a commit
 * that names its run and adds episodes appends `{ run_id, first_id, last_id }`, or extends the
 * last range when it is the same run's and ends right before; `reset` (the log was emptied)
 * drops the ranges first. Costs the same whatever the session's size. What a commit and a fold
 * both follow, so a base keeps the run of every commit it takes in.
 */
export function addEpisodeRun(
  ranges: EpisodeRunRange[],
  delta: Pick<SessionDelta, 'reset' | 'run_id' | 'episodes'>,
): void {
  if (delta.reset === true) ranges.length = 0;
  const { run_id: runId, episodes } = delta;
  if (runId === undefined || episodes === undefined || episodes.length === 0) return;
  const first = idOf(episodes[0]);
  const last = idOf(episodes[episodes.length - 1]);
  if (first === undefined || last === undefined || last < first) return;
  const previous = ranges[ranges.length - 1];
  if (previous?.run_id === runId && previous.last_id + 1 === first) {
    ranges[ranges.length - 1] = { ...previous, last_id: last };
  } else ranges.push({ run_id: runId, first_id: first, last_id: last });
}
