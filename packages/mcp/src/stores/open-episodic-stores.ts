import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  type ArtifactStore,
  EpisodicError,
  type Ledger,
  type LedgerOptions,
  parseInput,
  type RunDurability,
  type RunStore,
  type SessionStore,
} from '@episodic/core';
import { resolveEpisodicHome } from '@episodic/store-fs';
import { createSqliteStore, type SqliteStore } from '@episodic/store-sqlite';
import { z } from 'zod';

/** Where runs and sessions live: in the SQLite file (default) or as store-fs files under the home. */
export type EpisodicRunStoreKind = 'sqlite' | 'fs';

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
   * The SQLite database file that holds the ledger and the artifacts (and the runs and sessions
   * unless `store` is `fs`). A relative path is resolved against the working directory;
   * `:memory:` opens a private in-memory database.
   * @default `EPISODIC_DB`, else `<home>/episodic.db`
   */
  db?: string | undefined;
  /**
   * Where runs and sessions live: `sqlite` (in the database file) or `fs` (store-fs run files and
   * snapshots under the home: `sessions/YYYY/MM/DD/<run_id>.jsonl`, `sessions/state/`).
   * @default `EPISODIC_STORE`, else `sqlite`
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
}

/** Where `openEpisodicStores` keeps everything, with every default resolved. */
export interface EpisodicLocation {
  /** The Episodic home (absolute). */
  home: string;
  /** The SQLite database file (absolute), or `:memory:`. */
  database: string;
  /** Where runs and sessions live. */
  store: EpisodicRunStoreKind;
  /** The database file for `sqlite`, the home directory for `fs`. */
  runs: string;
}

/** The stores under the Episodic home, opened together. */
export interface EpisodicStores {
  /** The scoped ledger (always in the SQLite file). */
  readonly ledger: Ledger;
  /** Runs (and task episodes): in the SQLite file, or run files under the home. */
  readonly runs: RunStore;
  /** Session snapshots: in the SQLite file, or snapshot files under the home. */
  readonly sessions: SessionStore;
  /** Artifacts, associations and episode metadata (always in the SQLite file). */
  readonly artifacts: ArtifactStore;
  /** Where everything is. */
  readonly location: EpisodicLocation;
  /** The SQLite store, with its native connection (for backups, `integrity_check`, doctor tools). */
  readonly sqlite: SqliteStore;
  /** Closes every store: pending run appends are finished first. Idempotent. */
  close(): Promise<void>;
}

const optionsSchema = z
  .strictObject({
    home: z.string().optional(),
    db: z.string().optional(),
    store: z.string().optional(),
    env: z.record(z.string(), z.string().optional()).optional(),
    durability: z.enum(['none', 'run', 'always']).optional(),
    synchronous: z.enum(['NORMAL', 'FULL']).optional(),
    ledger: z.record(z.string(), z.unknown()).optional(),
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
 * Resolves where the stores live without opening anything: the home (`home`, else `EPISODIC_HOME`,
 * else `~/.episodic`), the database (`db`, else `EPISODIC_DB`, else `<home>/episodic.db`) and the
 * run store kind (`store`, else `EPISODIC_STORE`, else `sqlite`). Bad values are a
 * `VALIDATION_ERROR` naming the option or variable and the fix.
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
  let store: EpisodicRunStoreKind = 'sqlite';
  if (storeValue !== undefined && storeValue !== '') {
    const normalized = storeValue.trim().toLowerCase();
    if (!STORE_KINDS.includes(normalized as EpisodicRunStoreKind)) {
      throw invalidSetting(storeField, storeValue, 'use "sqlite" (the default) or "fs"');
    }
    store = normalized as EpisodicRunStoreKind;
  }

  const dbField = checked.db === undefined ? 'EPISODIC_DB' : 'db';
  const dbValue = checked.db ?? (env.EPISODIC_DB === '' ? undefined : env.EPISODIC_DB);
  let database = resolve(home, 'episodic.db');
  if (dbValue !== undefined) {
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
  return { home, database, store, runs: store === 'sqlite' ? database : home };
}

/**
 * Opens the stores under the Episodic home, as the `episodic` CLI and the `episodic-mcp` server do:
 * the ledger and the artifacts in the SQLite file, runs and sessions in that file too (default) or
 * as store-fs files under the home (`store: 'fs'` / `EPISODIC_STORE=fs`). store-fs is loaded only
 * when it is used.
 *
 * ```ts
 * const stores = await openEpisodicStores({ home: '/tmp/demo' });
 * await stores.ledger.query({ scope: 'my-project' });
 * await stores.close();
 * ```
 */
export async function openEpisodicStores(
  options?: OpenEpisodicStoresOptions,
): Promise<EpisodicStores> {
  const location = resolveEpisodicLocation(options);
  const checked = options ?? {};
  try {
    mkdirSync(location.home, { recursive: true, mode: 0o700 });
    if (location.database !== ':memory:')
      mkdirSync(dirname(location.database), { recursive: true });
  } catch (error) {
    throw new EpisodicError({
      code: 'STORAGE_ERROR',
      message: `Could not create the Episodic home ${location.home}: ${(error as Error).message}. Check the path and its permissions, or choose another with --home / EPISODIC_HOME.`,
      details: { home: location.home },
      cause: error,
    });
  }
  const sqlite = createSqliteStore({
    filename: location.database,
    ...(checked.synchronous === undefined ? {} : { synchronous: checked.synchronous }),
    ...(checked.ledger === undefined ? {} : { ledger: checked.ledger }),
  });
  let runs = sqlite.runs;
  let sessions = sqlite.sessions;
  let closeFs: (() => Promise<void>) | undefined;
  if (location.store === 'fs') {
    try {
      const { createFsStore } = await import('@episodic/store-fs');
      const fs = createFsStore({
        root: location.home,
        ...(checked.durability === undefined ? {} : { durability: checked.durability }),
      });
      runs = fs.runs;
      sessions = fs.sessions;
      closeFs = () => fs.close();
    } catch (error) {
      await sqlite.close();
      throw error;
    }
  }
  let closing: Promise<void> | undefined;
  return {
    ledger: sqlite.ledger,
    runs,
    sessions,
    artifacts: sqlite.artifacts,
    location,
    sqlite,
    close() {
      closing ??= (async () => {
        try {
          await closeFs?.();
        } finally {
          await sqlite.close();
        }
      })();
      return closing;
    },
  };
}
