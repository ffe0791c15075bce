import { EpisodicError } from '../errors/episodic-error.js';
import {
  assertExpectedRevision,
  assertReplaceable,
  createSessionStore,
  type SessionStore,
  type SessionStoreAdapter,
  type SessionStoreOptions,
  storedSessionRevision,
} from './session-store.js';

/** One stored session: its base's lines and its delta lines. */
interface StoredLines {
  base: string[];
  deltas: string[];
  baseBytes: number;
  deltaBytes: number;
}

const bytesOf = (lines: readonly string[]) =>
  lines.reduce((total, line) => total + line.length + 1, 0);

/**
 * The in-memory reference session store: each session is kept as the lines a file store writes
 * (a base and its deltas), so what a caller reads back is always a fresh copy, exactly as from disk.
 */
export function createMemorySessionStoreAdapter(): SessionStoreAdapter {
  const sessions = new Map<string, StoredLines>();
  /** The stored session's revision; null for an unreadable one (it may only be replaced). */
  const revisionOfStored = (sessionId: string, stored: StoredLines): number | null => {
    try {
      return storedSessionRevision(sessionId, stored.base[0] ?? '', stored.deltas.at(-1) ?? null);
    } catch (error) {
      if (EpisodicError.hasCode(error, 'CORRUPT_DATA')) return null;
      throw error;
    }
  };
  return {
    specificationVersion: 'v2',
    name: 'memory',
    capabilities: { atomicSave: true, crossProcessConflicts: false },
    load(sessionId) {
      const stored = sessions.get(sessionId);
      return stored === undefined ? null : { base: [...stored.base], deltas: [...stored.deltas] };
    },
    commit(sessionId, commit) {
      const stored = sessions.get(sessionId);
      if (stored === undefined) {
        assertExpectedRevision(sessionId, null, commit.expectedRevision);
        const base = [...(commit.base ?? [])];
        sessions.set(sessionId, { base, deltas: [], baseBytes: bytesOf(base), deltaBytes: 0 });
        return { deltaCount: 0, deltaBytes: 0, baseBytes: bytesOf(base) };
      }
      const current = storedSessionRevision(
        sessionId,
        stored.base[0] ?? '',
        stored.deltas.at(-1) ?? null,
      );
      assertExpectedRevision(sessionId, current, commit.expectedRevision);
      stored.deltas.push(commit.delta);
      stored.deltaBytes += commit.delta.length + 1;
      return {
        deltaCount: stored.deltas.length,
        deltaBytes: stored.deltaBytes,
        baseBytes: stored.baseBytes,
      };
    },
    replace(sessionId, lines, revision, expectedRevision) {
      const stored = sessions.get(sessionId);
      const current = stored === undefined ? null : revisionOfStored(sessionId, stored);
      assertReplaceable(sessionId, current, revision, expectedRevision);
      const base = [...lines];
      sessions.set(sessionId, { base, deltas: [], baseBytes: bytesOf(base), deltaBytes: 0 });
    },
    sessionIdsWithPrefix(prefix, limit) {
      return [...sessions.keys()]
        .filter((sessionId) => sessionId.startsWith(prefix))
        .sort()
        .slice(0, limit);
    },
    list() {
      return [...sessions].map(([sessionId, stored]) => ({
        sessionId,
        base: stored.base[0] ?? '',
        lastDelta: stored.deltas.at(-1) ?? null,
      }));
    },
    delete(sessionId) {
      return sessions.delete(sessionId);
    },
  };
}

/** An in-memory `SessionStore` (for tests, examples and short-lived agents). */
export function createMemorySessionStore(options?: SessionStoreOptions): SessionStore {
  return createSessionStore(createMemorySessionStoreAdapter(), options);
}
