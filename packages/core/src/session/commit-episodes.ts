import { z } from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import { assertIdCarriesNoContent } from '../ledger/content-guard.js';
import type { Episode, NewEpisode } from '../schema/episode.js';
import { pauseAfterLostRace } from '../util/lost-race-pause.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import { sessionParts } from './create-session.js';
import type { Session } from './session-types.js';

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
  /**
   * What to do when another writer (a process, or another session object on the same store)
   * committed to the session since this session object last did (`CONFLICT`):
   * - `fail`: reject with `CONFLICT`; the session object is left as it was (reload it with
   *   `loadSession`), as `runTurn` does;
   * - `reload`: catch the session object up with the store in place (the other writer's episodes
   *   join its log), then reject with `CONFLICT`: decide again with the current history;
   * - `retry`: catch up in place and commit again, after the other writer's episodes.
   * Nothing of a rejected commit is stored.
   * @default 'fail'
   */
  onConflict?: 'fail' | 'reload' | 'retry';
}

/** What `commitEpisodes` committed. */
export interface CommitEpisodesResult {
  /** The committed episodes, with their ids and timestamps. */
  readonly episodes: readonly Episode[];
  /** The session revision this commit saved. */
  readonly revision: number;
  /** The session's invocation count after the commit. */
  readonly invokeSeq: number;
  /**
   * True when the session was caught up with other writers' commits first (`onConflict:
   * 'retry'`): the episodes follow theirs.
   */
  readonly reloaded: boolean;
}

const MAX_EPISODES_PER_COMMIT = 10_000;
/** How often `onConflict: 'retry'` catches up and commits again before giving up. */
const COMMIT_ATTEMPTS = 50;

const optionsSchema = z
  .strictObject({
    runId: z.string().min(1).max(200).optional(),
    modelCalls: z.number().int().min(0).max(1_000).optional(),
    onConflict: z.enum(['fail', 'reload', 'retry']).optional(),
  })
  .optional();

/** The `CONFLICT` of a commit that lost the race, once the session caught up with the store. */
function reloadedConflict(sessionId: string, lost: unknown, revision: number): EpisodicError {
  const details = EpisodicError.isInstance(lost) ? lost.details : undefined;
  return new EpisodicError({
    code: 'CONFLICT',
    message: `Session ${sessionId} changed underneath this commit: another writer committed first. Nothing of this commit was stored; the session was reloaded (now at revision ${revision}, with the other writer's episodes). Decide again with the current history and commit again.`,
    details: { ...details, sessionId, reloaded: true, revision },
  });
}

/**
 * Commits episodes produced outside `runTurn` (by a framework that runs its own agent loop, such
 * as the AI SDK or LangGraph) to the session's committed log as one commit: one delta guarded by
 * the session's revision, in the session's mutation order (after a running turn). Each episode
 * keeps its `meta.source` and `meta.turnId`, so several commits can make up one turn. Invalid
 * episodes are a `VALIDATION_ERROR` and nothing is committed. When another writer committed
 * first, `onConflict` decides: `CONFLICT` (`fail`, the default; `reload`, after catching up), or
 * catch up and commit again (`retry`).
 */
export async function commitEpisodes(
  session: Session,
  episodes: readonly NewEpisode[],
  options?: CommitEpisodesOptions,
): Promise<CommitEpisodesResult> {
  const { writer } = sessionParts(session, 'commitEpisodes');
  const { onConflict = 'fail', ...settings } =
    parseInput(optionsSchema, options, 'commitEpisodes options') ?? {};
  assertIdCarriesNoContent(settings.runId, 'runId', 'commitEpisodes options');
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
  writer.assertOpen();
  return writer.exclusive(async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        const committed = await writer.appendCommitted(episodes, settings);
        return {
          episodes: committed,
          revision: writer.revision,
          invokeSeq: writer.invokeSeq,
          reloaded: attempt > 1,
        };
      } catch (error) {
        if (onConflict === 'fail' || !EpisodicError.hasCode(error, 'CONFLICT')) throw error;
        await writer.reload();
        if (onConflict === 'reload') throw reloadedConflict(writer.id, error, writer.revision);
        if (attempt >= COMMIT_ATTEMPTS) {
          throw new EpisodicError({
            code: 'CONFLICT',
            message: `Session ${writer.id} kept changing underneath this commit: ${attempt} attempts each lost the race to another writer. Nothing of this commit was stored; the session is reloaded. Commit again later.`,
            details: { sessionId: writer.id, attempts: attempt, reloaded: true },
          });
        }
        await pauseAfterLostRace(attempt);
      }
    }
  });
}
