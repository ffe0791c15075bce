import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  assertExpectedRevision,
  compareSessionSummaries,
  EpisodicError,
  type RunDurability,
  revisionOf,
  type SessionState,
  type SessionStoreAdapter,
  type SessionSummary,
  safeJsonParse,
  sessionStateSchema,
  summarizeSession,
} from '@episodic/core';
import { sweepTempFiles, writeFileAtomic } from './atomic-file.js';
import { withFileLock } from './file-lock.js';
import { isPathId, READ_FLAGS, SESSIONS_DIR, STATE_DIR, type StoreRoot } from './store-layout.js';

/** Options of `createFsSessionStoreAdapter`. */
export interface FsSessionStoreAdapterOptions {
  root: StoreRoot;
  durability: RunDurability;
  lockTimeoutMs: number;
  staleLockMs: number;
  now: () => Date;
}

const STATE_COMPONENTS = [SESSIONS_DIR, STATE_DIR] as const;
const SNAPSHOT_SUFFIX = '.json';

type Loaded = { state: SessionState } | { corrupt: string } | null;

/**
 * Session snapshots as `sessions/state/<session_id>.json`, replaced atomically (temp + fsync +
 * rename + directory fsync). `expectedRevision` is enforced across processes by a lock file held
 * for the read-compare-write of a save.
 */
export function createFsSessionStoreAdapter(
  options: FsSessionStoreAdapterOptions,
): SessionStoreAdapter {
  const { root } = options;
  const sync = options.durability !== 'none';
  const stateDirectory = (create: boolean) => root.directory(STATE_COMPONENTS, create);
  const existing = stateDirectory(false);
  if (existing !== null) sweepTempFiles(existing);

  const readSnapshot = (directory: string, sessionId: string): Loaded => {
    const path = join(directory, `${sessionId}${SNAPSHOT_SUFFIX}`);
    let text: string;
    try {
      const fd = fs.openSync(path, READ_FLAGS);
      try {
        text = fs.readFileSync(fd, 'utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
        return { corrupt: 'it is a symbolic link, which the store refuses to follow' };
      }
      throw error;
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') return { corrupt: 'the file is empty' };
    const parsed = safeJsonParse(text);
    if (!parsed.success) return { corrupt: `it is not valid JSON (${parsed.error})` };
    const checked = sessionStateSchema.safeParse(parsed.value);
    if (!checked.success) {
      const [issue] = checked.error.issues;
      return {
        corrupt: `it is not a session snapshot (${issue?.path.join('.') || 'root'}: ${issue?.message})`,
      };
    }
    if (checked.data.session_id.toLowerCase() !== sessionId) {
      return { corrupt: `it holds session ${checked.data.session_id}` };
    }
    return { state: checked.data };
  };

  const corruptError = (sessionId: string, reason: string) =>
    new EpisodicError({
      code: 'CORRUPT_DATA',
      message: `The snapshot of session ${sessionId} (${root.relative(join(stateDirectory(false) ?? '', `${sessionId}.json`))}) cannot be read: ${reason}. Rebuild it from the session's run files, or delete it to start over.`,
      details: { sessionId },
    });

  const lockOptions = {
    timeoutMs: options.lockTimeoutMs,
    staleMs: options.staleLockMs,
    now: () => options.now().getTime(),
  };

  return {
    specificationVersion: 'v1',
    name: 'fs',
    capabilities: { atomicSave: true, crossProcessConflicts: true },
    load(id) {
      const sessionId = id.toLowerCase();
      const directory = stateDirectory(false);
      if (directory === null) return null;
      const loaded = readSnapshot(directory, sessionId);
      if (loaded === null) return null;
      if ('corrupt' in loaded) throw corruptError(sessionId, loaded.corrupt);
      return loaded.state;
    },
    async save(state, expectedRevision) {
      const sessionId = state.session_id.toLowerCase();
      const directory = stateDirectory(true) as string;
      const text = `${JSON.stringify(state)}\n`;
      await withFileLock(
        join(directory, `${sessionId}${SNAPSHOT_SUFFIX}.lock`),
        lockOptions,
        () => {
          const current = readSnapshot(directory, sessionId);
          if (current !== null && 'corrupt' in current) {
            if (expectedRevision !== undefined) {
              throw new EpisodicError({
                code: 'CONFLICT',
                message: `Session ${sessionId} has an unreadable snapshot (${current.corrupt}), so expected revision ${String(expectedRevision)} cannot be checked. Save without expectedRevision to replace it.`,
                details: { sessionId, expectedRevision },
              });
            }
          } else {
            assertExpectedRevision(sessionId, revisionOf(current?.state ?? null), expectedRevision);
          }
          writeFileAtomic(directory, `${sessionId}${SNAPSHOT_SUFFIX}`, text, sync);
        },
      );
    },
    list() {
      const directory = stateDirectory(false);
      if (directory === null) return [];
      const summaries: SessionSummary[] = [];
      for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
        if (!entry.isFile() || !entry.name.endsWith(SNAPSHOT_SUFFIX)) continue;
        const sessionId = entry.name.slice(0, -SNAPSHOT_SUFFIX.length);
        if (!isPathId(sessionId)) continue;
        const loaded = readSnapshot(directory, sessionId);
        if (loaded !== null && 'state' in loaded) summaries.push(summarizeSession(loaded.state));
      }
      return summaries.sort(compareSessionSummaries);
    },
    async delete(id) {
      const sessionId = id.toLowerCase();
      const directory = stateDirectory(false);
      if (directory === null) return false;
      return withFileLock(
        join(directory, `${sessionId}${SNAPSHOT_SUFFIX}.lock`),
        lockOptions,
        () => {
          try {
            fs.unlinkSync(join(directory, `${sessionId}${SNAPSHOT_SUFFIX}`));
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
            throw error;
          }
          return true;
        },
      );
    },
  };
}
