import {
  assertExpectedRevision,
  assertReplaceable,
  createSessionStore,
  type SessionStore,
  type SessionStoreAdapter,
  type SessionStoreOptions,
} from './session-store.js';

/** One stored session: its base's lines and its delta lines, with the revision core gave each. */
interface StoredLines {
  base: string[];
  deltas: string[];
  baseBytes: number;
  deltaBytes: number;
  /** The session's revision: the last commit's, or the base's (as `commit` and `replace` said). */
  revision: number;
  /** Names this base among every base the adapter wrote (`SessionCommitSizes.baseToken`). */
  baseToken: string;
}

const bytesOf = (lines: readonly string[]) =>
  lines.reduce((total, line) => total + line.length + 1, 0);

/**
 * The in-memory reference session store: each session is kept as the lines a file store writes
 * (a base and its deltas), so what a caller reads back is always a fresh copy, exactly as from disk.
 */
export function createMemorySessionStoreAdapter(): SessionStoreAdapter {
  const sessions = new Map<string, StoredLines>();
  let bases = 0;
  /** A new base of `lines` at `revision`, without deltas. */
  const baseOf = (lines: readonly string[], revision: number): StoredLines => {
    const base = [...lines];
    const baseToken = String(++bases);
    return { base, deltas: [], baseBytes: bytesOf(base), deltaBytes: 0, revision, baseToken };
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
      // Revisions as core hands them over: the adapter never reads its lines back.
      const stored = sessions.get(sessionId);
      assertExpectedRevision(sessionId, stored?.revision ?? null, commit.expectedRevision);
      if (stored === undefined) {
        const created = baseOf(commit.base ?? [], commit.revision);
        sessions.set(sessionId, created);
        const { baseBytes, baseToken } = created;
        return { deltaCount: 0, deltaBytes: 0, baseBytes, baseToken };
      }
      stored.deltas.push(commit.delta);
      stored.deltaBytes += commit.delta.length + 1;
      stored.revision = commit.revision;
      return {
        deltaCount: stored.deltas.length,
        deltaBytes: stored.deltaBytes,
        baseBytes: stored.baseBytes,
        baseToken: stored.baseToken,
      };
    },
    replace(sessionId, lines, revision, expectedRevision) {
      const current = sessions.get(sessionId)?.revision ?? null;
      assertReplaceable(sessionId, current, revision, expectedRevision);
      const replaced = baseOf(lines, revision);
      sessions.set(sessionId, replaced);
      return replaced.baseToken;
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
