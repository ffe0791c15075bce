import { z } from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import type { SessionStore } from '../store/session-store.js';
import { parseInput } from '../validation/parse-input.js';
import { openSession } from './create-session.js';
import {
  sessionBehaviourShape,
  sessionIdSchema,
  storeSchema,
  toSessionConfig,
} from './session-options.js';
import type { Session, SessionOptions } from './session-types.js';
import { storedSessionSeed } from './session-writer.js';

/** Options for `loadSession`: the session behaviour; the id, context and history come from the snapshot. */
export type LoadSessionOptions = Omit<SessionOptions, 'store' | 'id' | 'context'>;

const loadOptionsSchema = z.strictObject(sessionBehaviourShape).optional();

/**
 * Resumes a session from `store`: its base snapshot plus the commits since (the committed log: a
 * version 2 base's episodes, a version 1 base's `episodic` JSONL, or a seed 001 snapshot's
 * `messages`, then each commit's episodes), the context, the revision (the next commit expects
 * it) and seed 001's `run_id`, `invoke_seq` and `meta`. Throws `NOT_FOUND` when the store has no
 * such session, `CORRUPT_DATA` when it cannot be read.
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
  const stored = await store.read(id);
  if (stored === null) {
    throw new EpisodicError({
      code: 'NOT_FOUND',
      message: `Session ${id} is not in the ${store.name} store. Check the id (store.list() shows the stored sessions) or create a new session.`,
      details: { sessionId: id, store: store.name },
    });
  }
  return openSession(config, storedSessionSeed(stored, config.now));
}
