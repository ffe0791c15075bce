import {
  assertExpectedRevision,
  type SessionAdapterCommit,
  type SessionCommitSizes,
  storedSessionRevision,
} from '../core-kit.js';
import type { KeyValueStore } from '../kv/key-value-store.js';
import { transact } from '../kv/transact.js';
import {
  byteLength,
  completeLines,
  countLines,
  decodeSessionValue,
  encodeSessionValue,
  firstLine,
  lastCompleteLine,
  linesText,
  sessionKey,
} from './session-value.js';

/**
 * `SessionStoreAdapter.commit`, as one compare-and-set: a new session (expected revision null)
 * is stored as `commit.base` (the lines core encoded for it); an existing one at the expected revision gets `commit.delta`
 * appended to its log (after dropping a last line a crash left incomplete). Anything else is
 * `assertExpectedRevision`'s `CONFLICT`, and nothing is stored.
 */
export function commitSession(
  kv: KeyValueStore,
  sessionId: string,
  commit: SessionAdapterCommit,
): Promise<SessionCommitSizes> {
  const key = sessionKey(sessionId);
  return transact(kv, async () => {
    const value = await kv.get(key);
    const checks = [{ key, value }];
    if (value === undefined) {
      assertExpectedRevision(sessionId, null, commit.expectedRevision);
      const base = linesText(commit.base ?? []);
      const next = encodeSessionValue({ base, deltas: '' });
      const sizes = { deltaCount: 0, deltaBytes: 0, baseBytes: byteLength(base) };
      return { checks, writes: [{ key, value: next }], result: sizes };
    }
    const stored = decodeSessionValue(value);
    const log = completeLines(stored.deltas);
    const current = storedSessionRevision(sessionId, firstLine(stored.base), lastCompleteLine(log));
    assertExpectedRevision(sessionId, current, commit.expectedRevision);
    const deltas = `${log}${commit.delta}\n`;
    const next = encodeSessionValue({ base: stored.base, deltas });
    const sizes = {
      deltaCount: countLines(deltas),
      deltaBytes: byteLength(deltas),
      baseBytes: byteLength(stored.base),
    };
    return { checks, writes: [{ key, value: next }], result: sizes };
  });
}
