import { z } from 'zod';
import type { Episode, NewEpisode } from '../schema/episode.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import { type Session, sessionInternals } from './create-session.js';

/** Options of `commitEpisodes`. */
export interface CommitEpisodesOptions {
  /** The run that recorded these episodes; saved as the snapshot's `run_id`. */
  runId?: string;
  /**
   * How many model invocations produced these episodes: added to the session's `invokeSeq`
   * (seed 001 `invoke_seq`), so the next run's `llm.request` numbers continue after them.
   * @default 0
   */
  modelCalls?: number;
}

/** What `commitEpisodes` committed. */
export interface CommitEpisodesResult {
  /** The committed episodes, with their ids and timestamps. */
  readonly episodes: readonly Episode[];
  /** The session revision this commit saved. */
  readonly revision: number;
  /** The session's invocation count after the commit. */
  readonly invokeSeq: number;
}

const MAX_EPISODES_PER_COMMIT = 10_000;

const optionsSchema = z
  .strictObject({
    runId: z.string().min(1).max(200).optional(),
    modelCalls: z.number().int().min(0).max(1_000).optional(),
  })
  .optional();

/**
 * Commits episodes produced outside `runTurn` (by a framework that runs its own agent loop, such
 * as the AI SDK or LangGraph) to the session's committed log, in one commit, in the session's
 * mutation order (after a running turn). Each episode keeps its `meta.source` and `meta.turnId`,
 * so several commits can make up one turn. Invalid episodes are a `VALIDATION_ERROR` and nothing
 * is committed; `CONFLICT` when another writer committed first (reload the session and retry).
 */
export async function commitEpisodes(
  session: Session,
  episodes: readonly NewEpisode[],
  options?: CommitEpisodesOptions,
): Promise<CommitEpisodesResult> {
  const internals = sessionInternals(session, 'commitEpisodes');
  const settings = parseInput(optionsSchema, options, 'commitEpisodes options') ?? {};
  if (!Array.isArray(episodes) || episodes.length === 0) {
    throw invalidField(
      'commitEpisodes',
      'episodes',
      episodes,
      'must be a non-empty array of episodes ({ type, meta?, payload })',
    );
  }
  if (episodes.length > MAX_EPISODES_PER_COMMIT) {
    throw invalidField(
      'commitEpisodes',
      'episodes',
      `${episodes.length} episodes`,
      `must hold at most ${MAX_EPISODES_PER_COMMIT} episodes per commit; split them into several commits`,
    );
  }
  internals.assertOpen();
  return internals.exclusive(async () => {
    const committed = await internals.appendCommitted(episodes, settings);
    return { episodes: committed, revision: internals.revision, invokeSeq: session.invokeSeq };
  });
}
