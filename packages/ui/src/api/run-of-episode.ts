import type { TimelineRun } from './api-types.js';

/** The run whose committed episodes include `episodeId`, or null (the server and the browser app share it). */
export function runOfEpisode(runs: readonly TimelineRun[], episodeId: number): string | null {
  const run = runs.find(
    (candidate) =>
      candidate.committed !== null &&
      candidate.committed.first_id <= episodeId &&
      episodeId <= candidate.committed.last_id,
  );
  return run?.run_id ?? null;
}
