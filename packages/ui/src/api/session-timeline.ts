import {
  type Episode,
  EpisodicError,
  loadSession,
  type RunStore,
  type SessionStore,
  uuidSchema,
} from '@episodic/core';
import * as z from 'zod';
import type {
  SessionRelativesResponse,
  SessionTimelineResponse,
  TimelineEpisode,
  TimelineRun,
  TimelineTurn,
} from './api-types.js';
import { timelineEpisode } from './episode-text.js';
import { limitParam, parseQuery } from './query-params.js';
import type { RunStatusCache } from './run-status.js';
import type { RelativesFinder } from './session-relatives.js';

const querySchema = z.strictObject({
  from: z.coerce.number().int().min(0).default(0),
  limit: limitParam(200, 1000),
});

/** The most runs of one session the timeline lists (the newest). */
export const TIMELINE_MAX_RUNS = 500;
/** The most boundaries the timeline lists (the newest). */
export const TIMELINE_MAX_BOUNDARIES = 500;

export function parseSessionId(value: string): string {
  const parsed = uuidSchema.safeParse(value);
  if (!parsed.success) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid session id ${JSON.stringify(value.slice(0, 80))}: a session id is a UUID such as 0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e. Pick a session from the sessions list.`,
      details: { field: 'session id', value: value.slice(0, 80) },
    });
  }
  return parsed.data.toLowerCase();
}

function turnsOf(episodes: readonly TimelineEpisode[]): Omit<TimelineTurn, 'run_id'>[] {
  const turns: Omit<TimelineTurn, 'run_id'>[] = [];
  for (const episode of episodes) {
    const current = turns.at(-1);
    if (current !== undefined && current.turn_id === episode.turn_id) {
      current.last_id = episode.id;
      continue;
    }
    turns.push({
      turn_id: episode.turn_id,
      first_id: episode.id,
      last_id: episode.id,
      started_at: episode.ts,
    });
  }
  return turns;
}

/**
 * Which run each episode was committed by: the run that started last at or before the episode's
 * time and had not ended before it. Runs carry no episode ids, so time is the link (a task
 * episode's run spans many turns; the turn's own, later run wins).
 */
function assignEpisodes(
  episodes: readonly Episode[],
  runs: ReadonlyArray<{ run_id: string; startMs: number; endMs: number }>,
): Map<string, { first_id: number; last_id: number }> {
  const byStart = [...runs].sort((left, right) => right.startMs - left.startMs);
  const committed = new Map<string, { first_id: number; last_id: number }>();
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

/** `GET /api/sessions/:id`: a session's turns, boundaries, runs (failed turns included) and forks. */
export async function sessionTimeline(
  deps: { sessions: SessionStore; runs: RunStore; statuses: RunStatusCache },
  rawSessionId: string,
  rawQuery: Record<string, string>,
): Promise<SessionTimelineResponse> {
  const sessionId = parseSessionId(rawSessionId);
  const query = parseQuery(querySchema, rawQuery, 'session timeline query');
  const state = await deps.sessions.load(sessionId);
  if (state === null) {
    throw new EpisodicError({
      code: 'NOT_FOUND',
      message: `Session ${sessionId} has no snapshot in this home. Pick a session from the sessions list, or check --home and --store.`,
      details: { sessionId },
    });
  }
  const session = await loadSession(deps.sessions, sessionId);
  const episodes = session.log.read({ fromId: 0 });
  const pageStart = episodes.findIndex((episode) => episode.id > query.from);
  const page = pageStart === -1 ? [] : episodes.slice(pageStart, pageStart + query.limit);
  const pageEnd = pageStart === -1 ? episodes.length : pageStart + page.length;
  const shown = page.map((episode) => timelineEpisode(episode));

  const listed = await deps.runs.list({ sessionId });
  const summaries = listed.runs.slice(0, TIMELINE_MAX_RUNS);
  const standings = await Promise.all(summaries.map((summary) => deps.statuses.get(summary.runId)));
  const windows = summaries.map((summary, index) => ({
    run_id: summary.runId,
    startMs: Date.parse(summary.startedAt),
    endMs:
      standings[index]?.endedAt == null
        ? Number.POSITIVE_INFINITY
        : Date.parse(standings[index].endedAt as string),
  }));
  const committed = assignEpisodes(episodes, windows);
  const runs: TimelineRun[] = summaries
    .map((summary, index) => {
      const standing = standings[index] as Awaited<ReturnType<RunStatusCache['get']>>;
      const range = committed.get(summary.runId) ?? null;
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

  const runOfEpisode = (id: number) => {
    for (const [runId, range] of committed)
      if (range.first_id <= id && id <= range.last_id) return runId;
    return null;
  };
  const boundaries = episodes
    .filter((episode) => episode.type === 'boundary')
    .slice(-TIMELINE_MAX_BOUNDARIES)
    .map((episode) => timelineEpisode(episode));

  return {
    session_id: sessionId,
    revision: state.revision ?? 0,
    updated_at: state.updated_at,
    last_run_id: state.run_id ?? null,
    context: state.context ?? {},
    episode_count: episodes.length,
    last_id: episodes.at(-1)?.id ?? 0,
    from: query.from,
    next_from: pageEnd < episodes.length && page.length > 0 ? (page.at(-1) as Episode).id : null,
    episodes: shown,
    turns: turnsOf(shown).map((turn) => ({ ...turn, run_id: runOfEpisode(turn.first_id) })),
    boundaries,
    runs,
  };
}

/**
 * `GET /api/sessions/:id/relatives`: the sessions that share history with this one (forks of it,
 * the session it was forked from, siblings). Separate from the timeline because finding them loads
 * every other snapshot once: the timeline shows first, the forks a moment later.
 */
export async function sessionRelatives(
  deps: { sessions: SessionStore; relatives: RelativesFinder },
  rawSessionId: string,
): Promise<SessionRelativesResponse> {
  const sessionId = parseSessionId(rawSessionId);
  const session = await loadSession(deps.sessions, sessionId);
  return {
    session_id: sessionId,
    relatives: await deps.relatives.find(sessionId, session.log.read({ fromId: 0 })),
  };
}

/** `GET /api/sessions/:id/episodes/:episodeId`: one episode in full. */
export async function sessionEpisode(
  sessions: SessionStore,
  rawSessionId: string,
  rawEpisodeId: string,
): Promise<{ episode: Episode }> {
  const sessionId = parseSessionId(rawSessionId);
  const id = parseQuery(
    z.strictObject({ episode: z.coerce.number().int().min(1) }),
    { episode: rawEpisodeId },
    'episode id',
  ).episode;
  const session = await loadSession(sessions, sessionId);
  const episode = session.log.read({ fromId: id - 1 }).find((candidate) => candidate.id === id);
  if (episode === undefined) {
    throw new EpisodicError({
      code: 'NOT_FOUND',
      message: `Session ${sessionId} has no episode ${id} (its last episode is ${session.log.lastId}).`,
      details: { sessionId, episodeId: id },
    });
  }
  return { episode };
}
