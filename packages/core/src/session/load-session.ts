import { z } from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import type { SessionStore } from '../store/session-store.js';
import { parseInput } from '../validation/parse-input.js';
import {
  freezeContext,
  openSession,
  type Session,
  type SessionOptions,
  sessionBehaviourShape,
  sessionIdSchema,
  storeSchema,
  toSessionConfig,
} from './create-session.js';
import { carriedFields, restoreLog } from './session-snapshot.js';

/** Options for `loadSession`: the session behaviour; the id, context and history come from the snapshot. */
export type LoadSessionOptions = Omit<SessionOptions, 'store' | 'id' | 'context'>;

const loadOptionsSchema = z.strictObject(sessionBehaviourShape).optional();

/**
 * Resumes a session from its snapshot in `store`: the committed log from the snapshot's
 * `episodic` JSONL (or, for a seed 001 snapshot without one, from its `messages`), the context,
 * the revision (the next commit expects it) and seed 001's `run_id`, `invoke_seq` and `meta`.
 * Throws `NOT_FOUND` when the store has no such session.
 */
export async function loadSession(
  store: SessionStore,
  sessionId: string,
  options?: LoadSessionOptions,
): Promise<Session> {
  parseInput(storeSchema, store, 'loadSession store');
  const id = parseInput(sessionIdSchema, sessionId, 'loadSession session id');
  const parsed = parseInput(loadOptionsSchema, options, 'loadSession options') ?? {};
  const config = toSessionConfig({ ...parsed, store });
  const state = await store.load(id);
  if (state === null) {
    throw new EpisodicError({
      code: 'NOT_FOUND',
      message: `Session ${id} is not in the ${store.name} store. Check the id (store.list() shows the stored sessions) or create a new session.`,
      details: { sessionId: id, store: store.name },
    });
  }
  const invokeSeq = typeof state.invoke_seq === 'number' ? state.invoke_seq : 0;
  return openSession(config, {
    id: state.session_id,
    committed: restoreLog(state, config.now),
    context: freezeContext(state.context ?? {}, `context of stored session ${id}`),
    revision: state.revision ?? 0,
    invokeSeq,
    carried: carriedFields(state),
  });
}
