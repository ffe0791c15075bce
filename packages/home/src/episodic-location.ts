import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  type ArtifactStoreOptions,
  EpisodicError,
  type LedgerOptions,
  type RunDurability,
} from '@episodic/core';
import { parseInput } from '@episodic/core/adapter';
import { resolveEpisodicHome } from '@episodic/store-fs';
import { describeConnection, isPostgresUrl } from '@episodic/store-postgres/url';
import * as z from 'zod';
import { detectRunStore } from './detect-run-store.js';
import { writeHomeConfig } from './home-config.js';

/** Where runs and sessions live: in the database (default) or as store-fs files under the home. */
export type EpisodicRunStoreKind = 'sqlite' | 'fs';

/**
 * Why a location's run store is what it is: the `store` option, `EPISODIC_STORE`, the home's config
 * (`episodic-home.json`, written when the home was created), what the home holds (`detected`), or
 * the default (`sqlite`, for a home that holds no runs or sessions yet).
 */
export type EpisodicStoreSource = 'option' | 'environment' | 'home-config' | 'detected' | 'default';

/** The database behind the ledger and the artifacts: a SQLite file or a PostgreSQL server. */
export type EpisodicDatabaseKind = 'sqlite' | 'postgres';

/** The environment variables `openEpisodicStores` reads. */
export type EpisodicStoresEnv = Readonly<Record<string, string | undefined>>;

/** Options of `openEpisodicStores` and `resolveEpisodicLocation`. Options win over the environment. */
export interface OpenEpisodicStoresOptions {
  /**
   * The Episodic home directory (created with mode 0700 when missing).
   * @default `EPISODIC_HOME`, else `~/.episodic`
   */
  home?: string | undefined;
  /**
   * The database that holds the ledger and the artifacts (and the runs and sessions unless
   * `store` is `fs`): a SQLite file (a relative path is resolved against the working directory;
   * `:memory:` opens a private in-memory database) or a `postgres://` / `postgresql://` URL
   * (`?schema=NAME` picks the schema, default `episodic`; credentials never appear in messages).
   * @default `EPISODIC_DB`, else `<home>/episodic.db`
   */
  db?: string | undefined;
  /**
   * Where runs and sessions live: `sqlite` (in the database file) or `fs` (store-fs run files and
   * snapshots under the home: `sessions/YYYY/MM/DD/<run_id>.jsonl`, `sessions/state/`).
   * @default `EPISODIC_STORE`, else the home's config, else what the home holds (run files and no
   * runs in the database: `fs`), else `sqlite`
   */
  store?: EpisodicRunStoreKind | undefined;
  /**
   * The environment to read `EPISODIC_HOME`, `EPISODIC_DB` and `EPISODIC_STORE` from.
   * @default process.env
   */
  env?: EpisodicStoresEnv | undefined;
  /**
   * How far an acknowledged run append survives a crash, for `store: 'fs'` (see store-fs).
   * @default 'run'
   */
  durability?: RunDurability | undefined;
  /**
   * SQLite `synchronous`: `NORMAL` survives a process crash, `FULL` also a power loss.
   * @default 'NORMAL'
   */
  synchronous?: 'NORMAL' | 'FULL' | undefined;
  /** Ledger rules (clock, caps, content guards, retention). @default core's defaults */
  ledger?: LedgerOptions | undefined;
  /** Artifact store options: the clock that stamps `createdAt` / `updatedAt`. @default core's defaults */
  artifacts?: ArtifactStoreOptions | undefined;
  /**
   * Open for reading only: nothing is created or changed (no home, no database, no migration, no
   * file left behind). A home or database that does not exist reads as empty; writes fail.
   * @default false
   */
  readOnly?: boolean | undefined;
}

/** Where `openEpisodicStores` keeps everything, with every default resolved. */
export interface EpisodicLocation {
  /** The Episodic home (absolute). */
  home: string;
  /**
   * The SQLite database file (absolute), or `:memory:`; for PostgreSQL, the server's URL without
   * its credentials (safe to print).
   */
  database: string;
  /** Which kind of database `database` is. */
  databaseKind: EpisodicDatabaseKind;
  /** Where runs and sessions live. */
  store: EpisodicRunStoreKind;
  /** The database file for `sqlite`, the home directory for `fs`. */
  runs: string;
  /** Why `store` is what it is. */
  storeSource: EpisodicStoreSource;
}

const optionsSchema = z
  .strictObject({
    home: z.string().optional(),
    db: z.string().optional(),
    store: z.string().optional(),
    // process.env is not a plain object, so a record schema would refuse it.
    env: z
      .custom<EpisodicStoresEnv>(
        (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
        'must be an object of environment variables',
      )
      .optional(),
    durability: z.enum(['none', 'run', 'always']).optional(),
    synchronous: z.enum(['NORMAL', 'FULL']).optional(),
    ledger: z.record(z.string(), z.unknown()).optional(),
    artifacts: z.record(z.string(), z.unknown()).optional(),
    readOnly: z.boolean().optional(),
  })
  .optional();

const STORE_KINDS: readonly EpisodicRunStoreKind[] = ['sqlite', 'fs'];

function invalidSetting(field: string, value: string, fix: string): EpisodicError {
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid ${field} ${JSON.stringify(value)}: ${fix}. Nothing was opened.`,
    details: { field, value },
  });
}

/**
 * Resolves where the stores live: the home (`home`, else `EPISODIC_HOME`, else `~/.episodic`), the
 * database (`db`, else `EPISODIC_DB`, else `<home>/episodic.db`) and the run store kind (`store`,
 * else `EPISODIC_STORE`, else the home's config, else what the home holds, else `sqlite`; see
 * `detectRunStore`). It creates and changes nothing: at most it reads the config, lists the run
 * files and, for a home with run files but no config, asks the database whether it holds runs.
 * Bad values are a `VALIDATION_ERROR` naming the option or variable and the fix.
 */
export function resolveEpisodicLocation(options?: OpenEpisodicStoresOptions): EpisodicLocation {
  const checked = parseInput(optionsSchema, options, 'Episodic store options') ?? {};
  const env = checked.env ?? process.env;
  const home = resolveEpisodicHome({
    ...(checked.home === undefined ? {} : { home: checked.home }),
    env,
  });

  const storeField = checked.store === undefined ? 'EPISODIC_STORE' : 'store';
  const storeValue = checked.store ?? env.EPISODIC_STORE;
  let explicit: EpisodicRunStoreKind | undefined;
  if (storeValue !== undefined && storeValue !== '') {
    const normalized = storeValue.trim().toLowerCase();
    if (!STORE_KINDS.includes(normalized as EpisodicRunStoreKind)) {
      throw invalidSetting(storeField, storeValue, 'use "sqlite" or "fs"');
    }
    explicit = normalized as EpisodicRunStoreKind;
  }

  const dbField = checked.db === undefined ? 'EPISODIC_DB' : 'db';
  const dbValue = checked.db ?? (env.EPISODIC_DB === '' ? undefined : env.EPISODIC_DB);
  let database = resolve(home, 'episodic.db');
  let databaseKind: EpisodicDatabaseKind = 'sqlite';
  if (dbValue !== undefined && isPostgresUrl(dbValue)) {
    // Only the credential-free form is kept: `location` is printed, logged and put in receipts.
    database = describeConnection(dbValue);
    databaseKind = 'postgres';
  } else if (dbValue !== undefined) {
    if (dbValue.trim() === '' || dbValue.includes('\0')) {
      throw invalidSetting(dbField, dbValue, 'give a file path without NUL bytes, or ":memory:"');
    }
    database =
      dbValue === ':memory:'
        ? ':memory:'
        : isAbsolute(dbValue)
          ? resolve(dbValue)
          : resolve(process.cwd(), dbValue);
  }
  const { store, source } =
    explicit === undefined
      ? detectRunStore(home, database)
      : { store: explicit, source: storeField === 'store' ? 'option' : 'environment' };
  return {
    home,
    database,
    databaseKind,
    store,
    runs: store === 'sqlite' ? database : home,
    storeSource: source as EpisodicStoreSource,
  };
}

/** Whether `path` is missing or an empty directory: a home about to be created. */
function isNewHome(path: string): boolean {
  try {
    return readdirSync(path).length === 0;
  } catch {
    return !existsSync(path);
  }
}

/**
 * The PostgreSQL URL the options select (`db`, else `EPISODIC_DB`), credentials included: for
 * opening the connection only, never for output. Undefined when the database is a SQLite file.
 */
export function postgresUrlOf(options?: OpenEpisodicStoresOptions): string | undefined {
  const env = options?.env ?? process.env;
  const value = options?.db ?? (env.EPISODIC_DB === '' ? undefined : env.EPISODIC_DB);
  return value !== undefined && isPostgresUrl(value) ? value : undefined;
}

/**
 * Creates the Episodic home (mode 0700) and the database's directory, or throws `STORAGE_ERROR`
 * saying which path failed and how to choose another. A home created here (missing or empty) gets
 * its config, which records where it keeps runs and sessions.
 */
export function createEpisodicHome(location: EpisodicLocation): void {
  const created = isNewHome(location.home);
  try {
    mkdirSync(location.home, { recursive: true, mode: 0o700 });
    if (location.databaseKind === 'sqlite' && location.database !== ':memory:')
      mkdirSync(dirname(location.database), { recursive: true });
  } catch (error) {
    throw new EpisodicError({
      code: 'STORAGE_ERROR',
      message: `Could not create the Episodic home ${location.home}: ${(error as Error).message}. Check the path and its permissions, or choose another with --home / EPISODIC_HOME.`,
      details: { home: location.home },
      cause: error,
    });
  }
  if (created) writeHomeConfig(location.home, location.store, new Date());
}
