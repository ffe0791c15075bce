import {
  createEpisodic,
  type Episode,
  type EpisodeRunRange,
  EpisodicError,
  type RunStore,
  type RunSummary,
  type SessionStore,
  type StoredSession,
  sessionEpisodes,
} from '@episodic/core';
import { compareRunSummaries } from '@episodic/core/adapter';
import type { SessionRunsResponse, TimelineRun } from './api-types.js';
import type { RunStatusCache } from './run-status.js';
import { parseSessionId } from './session-id.js';

/** The most runs of one session the timeline lists (the newest). */
export const TIMELINE_MAX_RUNS = 500;

type Range = { first_id: number; last_id: number };

/** A stored session with its committed log, read once. */
export interface ReadSession {
  stored: StoredSession;
  episodes: readonly Episode[];
}

/** Reads a session through `SessionStore.read` (base and deltas); `NOT_FOUND` when there is none. */
export async function readSession(sessions: SessionStore, sessionId: string): Promise<ReadSession> {
  const stored = await sessions.read(sessionId);
  if (stored === null) {
    throw new EpisodicError({
      code: 'NOT_FOUND',
      message: `Session ${sessionId} has no snapshot in this home. Pick a session from the sessions list, or check --home and --store.`,
      details: { sessionId },
    });
  }
  // The same log `loadSession` restores: the base's episodes, then each delta's.
  return { stored, episodes: createEpisodic(sessionEpisodes(stored)).read({ fromId: 0 }) };
}

/** The runs a session's stored commits name (see `runsNamedBy`). */
export interface NamedRuns {
  /** Every run id the base or a delta names, lowercase, the runs of the newest commits last. */
  named: string[];
  /** The episodes each named run committed, as one range of ids (first to last). */
  exact: Map<string, Range>;
  /**
   * Which run committed which episodes of the log, in id order: the base's `episode_runs` and
   * the deltas' runs (`SessionStore.read` joins them). Episodes no range covers are matched to
   * runs by time.
   */
  ranges: readonly EpisodeRunRange[];
}

/**
 * What the session itself records about its runs: which run committed which episodes
 * (`episode_runs`, kept by the base through folds and added to by each delta since), the base's
 * `run_id` and each delta's.
 */
export function runsNamedBy(stored: StoredSession): NamedRuns {
  const named = new Set<string>();
  const exact = new Map<string, Range>();
  const name = (runId: string) => {
    // Moved to the end: `named` ends with the runs of the newest commits.
    named.delete(runId);
    named.add(runId);
  };
  const ranges = stored.state.episode_runs ?? [];
  for (const range of ranges) {
    const runId = range.run_id.toLowerCase();
    name(runId);
    const known = exact.get(runId);
    if (known === undefined) exact.set(runId, { first_id: range.first_id, last_id: range.last_id });
    else known.last_id = range.last_id;
  }
  const baseRun = stored.base.head.run_id;
  if (typeof baseRun === 'string') name(baseRun.toLowerCase());
  for (const delta of stored.deltas) {
    if (typeof delta.run_id === 'string') name(delta.run_id.toLowerCase());
  }
  return { named: [...named], exact, ranges };
}

/** The run the session records as having committed episode `id`, or undefined. */
export function namedRunOf(commits: NamedRuns, id: number): string | undefined {
  const { ranges } = commits;
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const range = ranges[middle] as EpisodeRunRange;
    if (id < range.first_id) high = middle - 1;
    else if (id > range.last_id) low = middle + 1;
    else return range.run_id.toLowerCase();
  }
  return undefined;
}

/**
 * Which run committed each episode the session does not attribute (committed without a run id,
 * or folded by an Episodic that kept no `episode_runs`): the run that started last at or before the episode's
 * time and had not ended before it. A task episode's run spans many turns; the turn's own, later
 * run wins.
 */
function assignByTime(
  episodes: readonly Episode[],
  runs: ReadonlyArray<{ run_id: string; startMs: number; endMs: number }>,
): Map<string, Range> {
  const byStart = [...runs].sort((left, right) => right.startMs - left.startMs);
  const committed = new Map<string, Range>();
  for (const episode of episodes) {
    const ts = episode.meta.ts === undefined ? Number.NaN : Date.parse(episode.meta.ts);
    if (Number.isNaN(ts)) continue;
    const run = byStart.find((candidate) => candidate.startMs <= ts && ts <= candidate.endMs);
    if (run === undefined) continue;
    const range = committed.get(run.run_id);
    if (range === undefined)
      committed.set(run.run_id, { first_id: episode.id, last_id: episode.id });
    else range.last_id = episode.id;
  }
  return committed;
}

/**
 * The timeline's runs (oldest first) from their summaries: status from each run's tail, the
 * episodes each committed (as the session records them, by time for the rest), and whether
 * it is a failed turn (failed or cancelled, nothing in the session).
 */
export async function timelineRuns(
  statuses: RunStatusCache,
  summaries: readonly RunSummary[],
  read: ReadSession,
  commits: NamedRuns,
): Promise<TimelineRun[]> {
  const kept = summaries.slice(0, TIMELINE_MAX_RUNS);
  const standings = await Promise.all(kept.map((summary) => statuses.get(summary.runId)));
  const byTime = assignByTime(
    read.episodes.filter((episode) => namedRunOf(commits, episode.id) === undefined),
    kept.map((summary, index) => ({
      run_id: summary.runId,
      startMs: Date.parse(summary.startedAt),
      endMs:
        standings[index]?.endedAt == null
          ? Number.POSITIVE_INFINITY
          : Date.parse(standings[index].endedAt as string),
    })),
  );
  return kept
    .map((summary, index) => {
      const standing = standings[index] as Awaited<ReturnType<RunStatusCache['get']>>;
      const range = commits.exact.get(summary.runId) ?? byTime.get(summary.runId) ?? null;
      return {
        run_id: summary.runId,
        started_at: summary.startedAt,
        ended_at: standing.endedAt,
        status: standing.status,
        committed: range,
        failed_turn:
          range === null && (standing.status === 'failed' || standing.status === 'cancelled'),
        error: standing.error,
      };
    })
    .reverse();
}

/**
 * `GET /api/sessions/:id/runs`: every run of the session, failed turns and runs still going
 * included. The session records only the runs that committed, so the others are found by their
 * headers (`runs.list({ sessionId })`: on run files, every header of the home): the browser asks
 * for this after the timeline, which shows the runs the session names at once.
 */
export async function sessionRuns(
  deps: { sessions: SessionStore; runs: RunStore; statuses: RunStatusCache },
  rawSessionId: string,
): Promise<SessionRunsResponse> {
  const sessionId = await parseSessionId(deps.sessions, rawSessionId);
  const read = await readSession(deps.sessions, sessionId);
  const commits = runsNamedBy(read.stored);
  const [ofSession, ofCommits] = await Promise.all([
    deps.runs.list({ sessionId }),
    // A run the session names is its run even when its header names no session.
    deps.runs.list({ runIds: commits.named }),
  ]);
  const byId = new Map<string, RunSummary>();
  for (const summary of [...ofSession.runs, ...ofCommits.runs]) byId.set(summary.runId, summary);
  const summaries = [...byId.values()].sort(compareRunSummaries);
  return {
    session_id: sessionId,
    runs: await timelineRuns(deps.statuses, summaries, read, commits),
    total: summaries.length,
  };
}
