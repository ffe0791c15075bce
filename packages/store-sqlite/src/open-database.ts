import { accessSync, constants, existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { EpisodicError } from '@episodic/core';
import type { Database } from 'better-sqlite3';
import { isBusyError, lockedDatabaseError } from './busy-error.js';
import { migrate, READ_AS_IS_FROM_SCHEMA, SCHEMA_VERSION, schemaVersionOf } from './migrations.js';
import { newSqliteConnection } from './sqlite-driver.js';
import { assertSqliteVersion } from './sqlite-version.js';

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
  /**
   * Open an existing database file for reading only: it must exist (`NOT_FOUND` otherwise), no
   * statement can change it (`PRAGMA query_only`), nothing is migrated and no file is left behind
   * (the connection is an ordinary one, so SQLite removes the `-wal` and `-shm` files it needed
   * when it closes, as it does for every last connection). A database of a schema older than 12
   * is read from a migrated in-memory copy instead (schema 12 as it is: 13 adds nothing a read
   * uses). Only for a file name, not a handed-in connection.
   * @default false
   */
  readOnly?: boolean;
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
  if (options.readOnly === true) {
    if (typeof source !== 'string' || source === ':memory:') {
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message:
          'Invalid SQLite options: readOnly opens an existing database file, so give its path (not ":memory:" or an open connection). Nothing was opened.',
        details: { field: 'readOnly' },
      });
    }
    return openReadOnly(source, busyTimeoutMs);
  }
  let database: Database;
  if (typeof source === 'string') {
    try {
      database = newSqliteConnection(source, { timeout: busyTimeoutMs });
    } catch (error) {
      throw openFailure(source, error);
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
    const readOnly = typeof source === 'string' ? readOnlyFailure(source, error, 'write') : null;
    if (readOnly !== null) throw readOnly;
    throw new EpisodicError({
      code: 'STORAGE_ERROR',
      message: `Could not prepare the SQLite database ${database.name}: ${(error as Error).message}.`,
      details: { filename: database.name },
      cause: error,
    });
  }
  return database;
}

/** Why this process cannot write `path`: a read-only filesystem or missing permission, or null. */
function unwritable(path: string): 'EROFS' | 'EACCES' | null {
  try {
    accessSync(path, constants.W_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EROFS' ? 'EROFS' : code === 'EACCES' || code === 'EPERM' ? 'EACCES' : null;
  }
}

/**
 * A `STORAGE_ERROR` that says the database or its directory is read-only, which one, and what to
 * do, when SQLite could not open or write `filename` for that reason (it only says "unable to
 * open database file" or "attempt to write a readonly database"). Null for any other failure.
 */
function readOnlyFailure(
  filename: string,
  error: unknown,
  wanted: 'write' | 'read',
): EpisodicError | null {
  const code = String((error as { code?: unknown })?.code ?? '');
  if (!/^SQLITE_(CANTOPEN|READONLY)/.test(code) || filename === ':memory:' || filename === '') {
    return null;
  }
  const directory = dirname(filename);
  const fileState = existsSync(filename) ? unwritable(filename) : null;
  const directoryState = existsSync(directory) ? unwritable(directory) : null;
  const path = fileState !== null ? filename : directoryState !== null ? directory : null;
  const state = fileState ?? directoryState;
  if (path === null || state === null) return null;
  const what = path === filename ? 'the database file' : 'its directory';
  const why =
    state === 'EROFS'
      ? 'is on a read-only filesystem (EROFS)'
      : 'is read-only for this user (EACCES)';
  const need =
    wanted === 'write'
      ? `SQLite must write the database and create ${basename(filename)}-wal and ${basename(filename)}-shm beside it`
      : `even reading a database in WAL mode needs ${basename(filename)}-shm beside it, which SQLite cannot create there`;
  const fix =
    state === 'EROFS'
      ? 'Put the Episodic home on a writable filesystem'
      : `Make it writable for this user (e.g. chmod u+w ${JSON.stringify(path)}, or fix its owner)`;
  return new EpisodicError({
    code: 'STORAGE_ERROR',
    message: `Could not ${wanted === 'write' ? 'open' : 'read'} the SQLite database ${filename}: ${what} ${path} ${why}, and ${need} (SQLite said: ${(error as Error).message}). ${fix}, or choose another home or database with --home / --db (EPISODIC_HOME / EPISODIC_DB)${wanted === 'read' ? ', or copy the database to a writable directory and read the copy' : ''}. Nothing was changed.`,
    details: { filename, readOnly: path, reason: state },
    cause: error,
  });
}

function openFailure(filename: string, error: unknown): EpisodicError {
  if (EpisodicError.isInstance(error)) return error;
  const readOnly = readOnlyFailure(filename, error, 'write');
  if (readOnly !== null) return readOnly;
  return new EpisodicError({
    code: 'STORAGE_ERROR',
    message: `Could not open the SQLite database ${filename}: ${(error as Error).message}. Check the path and its permissions.`,
    details: { filename },
    cause: error,
  });
}

/** `openSqliteDatabase(filename, { readOnly: true })`: see `SqliteConnectionOptions.readOnly`. */
function openReadOnly(filename: string, busyTimeoutMs: number): Database {
  let database: Database;
  try {
    database = newSqliteConnection(filename, { timeout: busyTimeoutMs, fileMustExist: true });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SQLITE_CANTOPEN') {
      throw new EpisodicError({
        code: 'NOT_FOUND',
        message: `There is no SQLite database at ${filename}. Check the path; nothing was created.`,
        details: { filename },
        cause: error,
      });
    }
    throw openFailure(filename, error);
  }
  try {
    // Set before anything else reads: this connection can never write, whatever runs on it.
    database.pragma('query_only = ON');
    const { version } = database.prepare('select sqlite_version() as version').get() as {
      version: string;
    };
    assertSqliteVersion(version);
    const schema = schemaVersionOf(database);
    if (schema > SCHEMA_VERSION) migrate(database); // refuses a newer schema, changing nothing
    if (schema >= READ_AS_IS_FROM_SCHEMA) return database; // what reads need is all there
    // An older schema: read a migrated copy in memory and leave the file exactly as it is.
    const image = database.serialize() as Buffer;
    // A WAL database's header says so (bytes 18 and 19 are 2), and an in-memory image cannot be
    // opened in WAL mode: mark the copy as a rollback-journal database (1) to read it.
    image[18] = 1;
    image[19] = 1;
    const copy = newSqliteConnection(image, {});
    database.close();
    copy.pragma('foreign_keys = ON');
    migrate(copy);
    copy.pragma('query_only = ON');
    return copy;
  } catch (error) {
    if (database.open) database.close();
    if (EpisodicError.isInstance(error)) throw error;
    const readOnly = readOnlyFailure(filename, error, 'read');
    if (readOnly !== null) throw readOnly;
    throw new EpisodicError({
      code: 'STORAGE_ERROR',
      message: `Could not read the SQLite database ${filename}: ${(error as Error).message}.`,
      details: { filename },
      cause: error,
    });
  }
}
