import type { SessionState } from '../schema/session-state.js';

/**
 * The session states core itself built from a live session's log (`buildSnapshot`, a new
 * session's first commit): their episodes were validated when they were appended and their
 * `messages` derived from them, so a store encodes them as they are instead of validating the
 * whole state again. Any other state (a caller's commit `state`) is validated.
 */
const builtStates = new WeakSet<object>();

/**
 * Marks a state core built and hands over to a store (nobody else holds it), frozen with its
 * episode and message lists so that nothing can change it between being built and being encoded.
 */
export function markBuiltState(state: SessionState): SessionState {
  if (state.episodes !== undefined) Object.freeze(state.episodes);
  Object.freeze(state.messages);
  builtStates.add(Object.freeze(state));
  return state;
}

/** True for a state `markBuiltState` marked. */
export function isBuiltState(value: unknown): value is SessionState {
  return typeof value === 'object' && value !== null && builtStates.has(value);
}
