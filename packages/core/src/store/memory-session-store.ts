import type { SessionState } from '../schema/session-state.js';
import {
  assertExpectedRevision,
  compareSessionSummaries,
  createSessionStore,
  revisionOf,
  type SessionStore,
  type SessionStoreAdapter,
  summarizeSession,
} from './session-store.js';

/**
 * The in-memory reference session store. Snapshots are kept as JSON text, so what a caller reads
 * back is always a fresh copy, exactly as from disk.
 */
export function createMemorySessionStoreAdapter(): SessionStoreAdapter {
  const snapshots = new Map<string, string>();
  const read = (sessionId: string): SessionState | null => {
    const text = snapshots.get(sessionId);
    return text === undefined ? null : (JSON.parse(text) as SessionState);
  };
  return {
    specificationVersion: 'v1',
    name: 'memory',
    capabilities: { atomicSave: true, crossProcessConflicts: false },
    load: read,
    save(state, expectedRevision) {
      assertExpectedRevision(
        state.session_id,
        revisionOf(read(state.session_id)),
        expectedRevision,
      );
      snapshots.set(state.session_id, JSON.stringify(state));
    },
    list() {
      return [...snapshots.keys()]
        .map((sessionId) => summarizeSession(read(sessionId) as SessionState))
        .sort(compareSessionSummaries);
    },
    delete(sessionId) {
      return snapshots.delete(sessionId);
    },
  };
}

/** An in-memory `SessionStore` (for tests, examples and short-lived agents). */
export function createMemorySessionStore(): SessionStore {
  return createSessionStore(createMemorySessionStoreAdapter());
}
