import { createRequire } from 'node:module';
import { EpisodicError } from '@episodic/core';
import type BetterSqlite3 from 'better-sqlite3';
import { isBusyError, lockedDatabaseError } from './busy-error.js';
import { migrate } from './migrations.js';
import { assertSqliteVersion } from './sqlite-version.js';

// better-sqlite3 is CommonJS: required directly instead of imported, which skips the ESM loader's
// translation of a CommonJS module (about 3 ms of every CLI and MCP server start).
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
type Database = BetterSqlite3.Database;
/** How an acknowledged write survives a crash (WAL mode). */
export type SqliteSynchronous = 'NORMAL' | 'FULL';

/** Connection settings shared by every store in one database file. */
export interface SqliteConnectionOptions {
  /**
   * How long a writer waits for the write lock before failing with `SQLITE_BUSY`. Set in the
   * connection's constructor, before any other statement. @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * `NORMAL`: a commit survives a process crash; a power loss may roll back the last commits
   * (never corrupts). `FULL`: every commit is synced to disk. @default 'NORMAL'
   */
  synchronous?: SqliteSynchronous;
}

function configure(database: Database, synchronous: SqliteSynchronous): void {
  const { version } = database.prepare('select sqlite_version() as version').get() as {
    version: string;
  };
  assertSqliteVersion(version);
  const mode = database.pragma('journal_mode = WAL', { simple: true }) as string;
  if (mode !== 'wal' && !database.memory) {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: `SQLite refused WAL mode for ${database.name} (journal_mode is ${mode}). Put the database on a local filesystem that supports shared memory; network filesystems are not supported.`,
      details: { journalMode: mode },
    });
  }
  database.pragma(`synchronous = ${synchronous}`);
  // Redacted and deleted content is overwritten with zeros instead of left in free space.
  database.pragma('secure_delete = ON');
  // Memory-mapped I/O amplified the WAL-reset bug with several writers; keep it off.
  database.pragma('mmap_size = 0');
  database.pragma('foreign_keys = ON');
}

/**
 * Opens (or adopts) a database for Episodic: the busy timeout first (in the constructor for a file
 * we open, as the very first statement for a handed-in connection), then the SQLite version check
 * (≥ 3.51.3), WAL, `synchronous`, `secure_delete = ON`, `mmap_size = 0`, and the migrations.
 */
export function openSqliteDatabase(
  source: string | Database,
  options: SqliteConnectionOptions = {},
): Database {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const synchronous = options.synchronous ?? 'NORMAL';
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid SQLite options: busyTimeoutMs must be a non-negative integer (got ${String(busyTimeoutMs)}). Nothing was opened.`,
      details: { field: 'busyTimeoutMs' },
    });
  }
  if (synchronous !== 'NORMAL' && synchronous !== 'FULL') {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid SQLite options: synchronous must be "FULL" or "NORMAL" (got ${JSON.stringify(synchronous)}). Nothing was opened.`,
      details: { field: 'synchronous' },
    });
  }
  let database: Database;
  if (typeof source === 'string') {
    try {
      database = new Database(source, { timeout: busyTimeoutMs });
    } catch (error) {
      throw new EpisodicError({
        code: 'STORAGE_ERROR',
        message: `Could not open the SQLite database ${source}: ${(error as Error).message}. Check the path and its permissions.`,
        details: { filename: source },
        cause: error,
      });
    }
  } else {
    database = source;
    database.pragma(`busy_timeout = ${busyTimeoutMs}`);
  }
  try {
    configure(database, synchronous);
    migrate(database);
  } catch (error) {
    if (isBusyError(error)) {
      const locked = lockedDatabaseError(database, error);
      if (typeof source === 'string') database.close();
      throw locked;
    }
    if (typeof source === 'string') database.close();
    if (EpisodicError.isInstance(error)) throw error;
    throw new EpisodicError({
      code: 'STORAGE_ERROR',
      message: `Could not prepare the SQLite database ${database.name}: ${(error as Error).message}.`,
      details: { filename: database.name },
      cause: error,
    });
  }
  return database;
}
