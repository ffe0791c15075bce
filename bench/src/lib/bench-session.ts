import type { SessionDelta, SessionState } from '@episodic/core';
import { snapshotMessages } from '@episodic/core/adapter';
import { createRandom, prose } from '../data/text.js';

const TS = '2026-02-03T12:00:00.000Z';

/** An episode as a session's log holds it. */
export type BenchEpisode = {
  id: number;
  type: 'item';
  meta: { source: string; ts: string };
  payload: unknown;
};

/** A message episode as a session's log holds it (~170 bytes of JSON). */
export function messageEpisode(id: number, role: 'user' | 'assistant', text: string): BenchEpisode {
  return {
    id,
    type: 'item',
    meta: { source: role === 'user' ? 'user' : 'model', ts: TS },
    payload: { item: { type: 'message', role, content: text } },
  };
}

/**
 * One session the rows commit to at the store level (`sessions.commit`), with its whole log in
 * memory. A commit hands the store its delta alone (a new session's commit or `save` also its
 * whole `state()`); the store builds each fold from what it stored (its base and deltas), never
 * from this log, as for a live `Session`.
 */
export class BenchSession {
  private readonly random: () => number;

  /** How many episodes the session started with (see `restart`). */
  private readonly initialEpisodes: number;

  constructor(
    readonly id: string,
    readonly episodes: BenchEpisode[],
    seed: number,
    public revision = 1,
  ) {
    this.random = createRandom(seed);
    this.initialEpisodes = episodes.length;
  }

  /**
   * Back to the episodes it started with, at the next revision: the state to `save` (expecting
   * the revision before) so that a round of commits starts from the same session as the last.
   */
  restart(): SessionState {
    this.episodes.length = this.initialEpisodes;
    this.revision += 1;
    return this.state();
  }

  /** The whole state as of the current revision (schema_version 2, with seed 001 messages). */
  state(): SessionState {
    return {
      schema_version: 2,
      session_id: this.id,
      updated_at: TS,
      revision: this.revision,
      context: {},
      episodes: this.episodes,
      messages: snapshotMessages(this.episodes as never),
    };
  }

  /** The next turn's delta (a user message and the model's answer), already in the log. */
  nextTurn(): SessionDelta {
    const [delta] = this.planTurns(1) as [SessionDelta];
    this.accept(delta);
    return delta;
  }

  /**
   * The next `count` turns' deltas, made ahead so that a timed loop measures the commits, not
   * the making of their text; none is in the log until `accept`ed, in order.
   */
  planTurns(count: number): SessionDelta[] {
    let id = (this.episodes.at(-1)?.id ?? 0) + 1;
    const deltas: SessionDelta[] = [];
    for (let index = 1; index <= count; index++) {
      const question = prose(this.random, 60);
      deltas.push({
        revision: this.revision + index,
        updated_at: TS,
        episodes: [
          messageEpisode(id, 'user', question),
          messageEpisode(id + 1, 'assistant', prose(this.random, 120)),
        ],
        invoke_seq: this.revision + index,
        last_user_message: question,
      });
      id += 2;
    }
    return deltas;
  }

  /** Puts a planned delta's episodes in the log, so that `state()` stays the session as committed. */
  accept(delta: SessionDelta): void {
    for (const episode of delta.episodes ?? []) this.episodes.push(episode as BenchEpisode);
    this.revision = delta.revision;
  }
}
