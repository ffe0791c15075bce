import {
  assertReplaceable,
  EpisodicError,
  type SessionStoreAdapter,
  storedSessionRevision,
  textLines,
} from '../core-kit.js';
import type { KeyValueStore } from '../kv/key-value-store.js';
import { transact } from '../kv/transact.js';
import { commitSession } from './commit-session.js';
import {
  decodeSessionValue,
  encodeSessionValue,
  firstLine,
  lastCompleteLine,
  linesText,
  SESSION_PREFIX,
  type SessionValue,
  sessionKey,
} from './session-value.js';

/** The stored session's revision; null when it cannot be read (it may then only be replaced). */
function storedRevision(sessionId: string, stored: SessionValue): number | null {
  try {
    const lastDelta = lastCompleteLine(stored.deltas);
    return storedSessionRevision(sessionId, firstLine(stored.base), lastDelta);
  } catch (error) {
    if (EpisodicError.hasCode(error, 'CORRUPT_DATA')) return null;
    throw error;
  }
}

/** A session adapter over a key-value store (see `SessionValue` for what it stores). */
export function createKvSessionStoreAdapter(kv: KeyValueStore): SessionStoreAdapter {
  return {
    specificationVersion: 'v2',
    name: 'kv',
    capabilities: { atomicSave: true, crossProcessConflicts: false },
    async load(sessionId) {
      const value = await kv.get(sessionKey(sessionId));
      if (value === undefined) return null;
      const stored = decodeSessionValue(value);
      return { base: textLines(stored.base), deltas: textLines(stored.deltas) };
    },
    commit: (sessionId, commit) => commitSession(kv, sessionId, commit),
    replace: (sessionId, lines, revision, expectedRevision) =>
      transact(kv, async () => {
        const key = sessionKey(sessionId);
        const value = await kv.get(key);
        const current =
          value === undefined ? null : storedRevision(sessionId, decodeSessionValue(value));
        assertReplaceable(sessionId, current, revision, expectedRevision);
        const next = encodeSessionValue({ base: linesText(lines), deltas: '' });
        return { checks: [{ key, value }], writes: [{ key, value: next }], result: undefined };
      }),
    async list() {
      const heads = [];
      for (const key of await kv.keys(SESSION_PREFIX)) {
        const value = await kv.get(key);
        if (value === undefined) continue; // Deleted since the listing.
        const stored = decodeSessionValue(value);
        heads.push({
          sessionId: key.slice(SESSION_PREFIX.length),
          base: firstLine(stored.base),
          lastDelta: lastCompleteLine(stored.deltas),
        });
      }
      return heads;
    },
    async sessionIdsWithPrefix(prefix, limit) {
      const keys = await kv.keys(sessionKey(prefix));
      return keys.slice(0, limit).map((key) => key.slice(SESSION_PREFIX.length));
    },
    delete: (sessionId) => kv.delete(sessionKey(sessionId)),
  };
}
