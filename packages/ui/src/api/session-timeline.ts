import { type Episode, EpisodicError, type RunStore, type SessionStore } from '@episodic/core';
import * as z from 'zod';
import type {
  SessionRelativesResponse,
  SessionTimelineResponse,
  TimelineEpisode,
  TimelineTurn,
} from './api-types.js';
import { timelineEpisode } from './episode-text.js';
import { limitParam, parseQuery } from './query-params.js';
import { runOfEpisode } from './run-of-episode.js';
import type { RunStatusCache } from './run-status.js';
import { parseSessionId } from './session-id.js';
import type { RelativesFinder } from './session-relatives.js';
import {
  namedRunOf,
  readSession,
  runsNamedBy,
  TIMELINE_MAX_RUNS,
  timelineRuns,
} from './session-runs.js';

const querySchema = z.strictObject({
  from: z.coerce.number().int().min(0).default(0),
  limit: limitParam(200, 1000),
});

/** The most boundaries the timeline lists (the newest). */
export const TIMELINE_MAX_BOUNDARIES = 500;

const tokens = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;

function turnsOf(
  episodes: readonly TimelineEpisode[],
  page: readonly Episode[],
): Omit<TimelineTurn, 'run_id'>[] {
  const turns: Omit<TimelineTurn, 'run_id'>[] = [];
  for (const [index, episode] of episodes.entries()) {
    let current = turns.at(-1);
    if (current === undefined || current.turn_id !== episode.turn_id) {
      current = {
        turn_id: episode.turn_id,
        first_id: episode.id,
        last_id: episode.id,
        started_at: episode.ts,
        usage: null,
      };
      turns.push(current);
    }
    current.last_id = episode.id;
    if (episode.fold === 'usage') {
      // A `turn.usage` row is folded into its turn: its tokens are summed in the turn's header.
      const data = ((page[index]?.payload as { data?: unknown } | undefined)?.data ?? {}) as Record<
        string,
        unknown
      >;
      const usage = current.usage ?? { input_tokens: 0, output_tokens: 0, records: 0 };
      usage.input_tokens += tokens(data.input_tokens ?? data.inputTokens);
      usage.output_tokens += tokens(data.output_tokens ?? data.outputTokens);
      usage.records++;
      current.usage = usage;
    }
  }
  return turns;
}

/** The format of an imported session (`context.import.format`); null for a live one. */
function importedFrom(context: unknown): string | null {
  const imported = (context as { import?: { format?: unknown } } | undefined)?.import;
  if (imported === undefined || imported === null || typeof imported !== 'object') return null;
  return typeof imported.format === 'string' ? imported.format : 'an import';
}

/** The parent an imported sub-agent session names in `context.import.parent_session_id`. */
function parentSessionId(context: unknown): string | null {
  const imported = (context as { import?: { parent_session_id?: unknown } } | undefined)?.import;
  return typeof imported?.parent_session_id === 'string' ? imported.parent_session_id : null;
}

/**
 * `GET /api/sessions/:id`: a session's turns, boundaries and the runs it names. Its cost follows
 * the session, not the home: the session is read once (`SessionStore.read`: its base and
 * deltas), and only the headers and tails of the runs its commits name are read
 * (`runs.list({ runIds })`, the newest `TIMELINE_MAX_RUNS`). The session's other runs (failed
 * turns, runs still going) are in `GET /api/sessions/:id/runs`, which the browser asks for next.
 */
export async function sessionTimeline(
  deps: { sessions: SessionStore; runs: RunStore; statuses: RunStatusCache },
  rawSessionId: string,
  rawQuery: Record<string, string>,
): Promise<SessionTimelineResponse> {
  const sessionId = await parseSessionId(deps.sessions, rawSessionId);
  const query = parseQuery(querySchema, rawQuery, 'session timeline query');
  const read = await readSession(deps.sessions, sessionId);
  const { episodes } = read;
  const state = read.stored.state;
  const pageStart = episodes.findIndex((episode) => episode.id > query.from);
  const page = pageStart === -1 ? [] : episodes.slice(pageStart, pageStart + query.limit);
  const pageEnd = pageStart === -1 ? episodes.length : pageStart + page.length;
  const shown = page.map((episode) => timelineEpisode(episode));

  const commits = runsNamedBy(read.stored);
  // The runs of the newest commits: the timeline lists no more (a session of many turns names
  // many runs, and each costs a read of its header and tail).
  const newest = commits.named.slice(-TIMELINE_MAX_RUNS);
  const listed = newest.length === 0 ? [] : (await deps.runs.list({ runIds: newest })).runs;
  const runs = await timelineRuns(deps.statuses, listed, read, commits);
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
    parent_session_id: parentSessionId(state.context),
    imported_from: importedFrom(state.context),
    episode_count: episodes.length,
    last_id: episodes.at(-1)?.id ?? 0,
    from: query.from,
    next_from: pageEnd < episodes.length && page.length > 0 ? (page.at(-1) as Episode).id : null,
    episodes: shown,
    turns: turnsOf(shown, page).map((turn) => ({
      ...turn,
      run_id: namedRunOf(commits, turn.first_id) ?? runOfEpisode(runs, turn.first_id),
    })),
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
  const sessionId = await parseSessionId(deps.sessions, rawSessionId);
  const { episodes } = await readSession(deps.sessions, sessionId);
  return { session_id: sessionId, relatives: await deps.relatives.find(sessionId, episodes) };
}

/** `GET /api/sessions/:id/episodes/:episodeId`: one episode in full. */
export async function sessionEpisode(
  sessions: SessionStore,
  rawSessionId: string,
  rawEpisodeId: string,
): Promise<{ episode: Episode }> {
  const sessionId = await parseSessionId(sessions, rawSessionId);
  const id = parseQuery(
    z.strictObject({ episode: z.coerce.number().int().min(1) }),
    { episode: rawEpisodeId },
    'episode id',
  ).episode;
  const { episodes } = await readSession(sessions, sessionId);
  const episode = episodes.find((candidate) => candidate.id === id);
  if (episode === undefined) {
    throw new EpisodicError({
      code: 'NOT_FOUND',
      message: `Session ${sessionId} has no episode ${id} (its last episode is ${episodes.at(-1)?.id ?? 0}).`,
      details: { sessionId, episodeId: id },
    });
  }
  return { episode };
}
