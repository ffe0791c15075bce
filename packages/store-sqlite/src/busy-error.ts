import { EpisodicError } from '@episodic/core';
import type Database from 'better-sqlite3';

/** True for SQLite's "database is locked" (`SQLITE_BUSY` and its extended codes). */
export function isBusyError(error: unknown): boolean {
  const code =
    typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

function busyTimeoutOf(database: Database.Database): number | undefined {
  try {
    const value = database.pragma('busy_timeout', { simple: true });
    return typeof value === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `STORAGE_ERROR` for a write that gave up waiting for the lock: it says that another process
 * holds the write lock, how long this one waited (`busy_timeout`) and what to do, instead of
 * SQLite's bare "database is locked".
 */
export function lockedDatabaseError(database: Database.Database, error: unknown): EpisodicError {
  const waited = busyTimeoutOf(database);
  const code = (error as { code?: unknown }).code;
  return new EpisodicError({
    code: 'STORAGE_ERROR',
    message:
      `The SQLite database ${database.name} is locked: another process holds its write lock, and this one ` +
      `gave up after waiting ${waited === undefined ? 'its busy timeout' : `${waited} ms for it (busy_timeout)`}. Nothing was changed. ` +
      'Run the command again once the other writer has finished (a long gc, redaction or import, or another agent writing); ' +
      `if nothing should be writing, look for a stuck process that has the file open (fuser ${database.name}). ` +
      'Programs can wait longer with the busyTimeoutMs option.',
    details: {
      backendCode: typeof code === 'string' ? code : 'SQLITE_BUSY',
      filename: database.name,
      ...(waited === undefined ? {} : { busyTimeoutMs: waited }),
    },
    cause: error,
  });
}

/**
 * Wraps every method of a store adapter so that a `SQLITE_BUSY` it throws becomes
 * `lockedDatabaseError` (other errors pass through for core to translate). The adapters are
 * synchronous, so the wrapper is too.
 */
export function withLockedDatabaseErrors<Adapter extends object>(
  database: Database.Database,
  adapter: Adapter,
): Adapter {
  const wrapped: Record<string, unknown> = { ...(adapter as Record<string, unknown>) };
  for (const [name, value] of Object.entries(adapter)) {
    if (typeof value !== 'function') continue;
    wrapped[name] = (...args: unknown[]) => {
      try {
        return (value as (...parameters: unknown[]) => unknown).apply(adapter, args);
      } catch (error) {
        if (isBusyError(error)) throw lockedDatabaseError(database, error);
        throw error;
      }
    };
  }
  return wrapped as Adapter;
}
