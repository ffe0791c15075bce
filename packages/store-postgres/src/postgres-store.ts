import type { ArtifactStoreOptions, LedgerOptions, SessionFoldOption } from '@episodic/core';
import {
  createStores,
  EpisodicError,
  type LedgerRow,
  parseInput,
  type StoreAdapters,
  type Stores,
} from '@episodic/core/adapter';
import pg from 'pg';
import * as z from 'zod';
import {
  type ConnectionSettings,
  DEFAULT_CONNECTION_SETTINGS,
  settingsOfUrl,
} from './connection-settings.js';
import { checkConnectionUrl, describeConnection } from './connection-url.js';
import {
  importLedgerRows,
  importSessionHeads,
  type LedgerImportReceipt,
  type SessionHead,
} from './ledger-import.js';
import { migrate } from './migrations.js';
import { createPostgresArtifactStoreAdapter } from './postgres-artifact-store.js';
import { createPostgresDatabase, type PostgresDatabase } from './postgres-database.js';
import { toEpisodicError } from './postgres-errors.js';
import { createPostgresLedgerAdapter, rebuildPostgresSearchIndex } from './postgres-ledger.js';
import { finishRunSearchBackfill, rebuildPostgresRunSearchIndex } from './postgres-run-search.js';
import { createPostgresRunStoreAdapter } from './postgres-run-store.js';
import { createPostgresSessionStoreAdapter } from './postgres-session-store.js';
import { createScrubber } from './scrub.js';

/** Options of `createPostgresStore`. Give exactly one of `connectionString` and `pool`. */
export interface PostgresStoreOptions {
  /**
   * A `postgres://` or `postgresql://` URL (`postgres://user:password@host:5432/database`, with
   * any libpq parameter the `pg` driver understands, e.g. `?sslmode=require`). Never shown in
   * messages: they name the server as `describeConnection` prints it, without the password.
   */
  connectionString?: string;
  /**
   * A `pg` pool to use instead; `close()` then leaves it open. Its connections keep the timeouts
   * and keepalive you configured on it (`statement_timeout`, `query_timeout`, `keepAlive`): the
   * options above apply only to a pool the store creates, except `maintenanceTimeoutMs`.
   */
  pool?: pg.Pool;
  /**
   * The schema that holds the store's tables (created on first use). One schema is one store:
   * tenants, environments or tests can share a database in separate schemas.
   * @default 'episodic'
   */
  schema?: string;
  /** The most connections the store's own pool opens. @default 10 */
  poolSize?: number;
  /**
   * How long to wait for a connection (a new one, or a free one of the pool) before failing with
   * `STORAGE_ERROR`; 0 waits forever. URL: `connect_timeout` (seconds). @default 10000
   */
  connectionTimeoutMs?: number;
  /**
   * The server's `statement_timeout` on the store's connections: the server cancels a statement
   * that runs longer (the call fails with `STORAGE_ERROR`, the connection stays usable); 0 leaves
   * the server's own setting. URL: `statement_timeout` (milliseconds). @default 10000
   */
  statementTimeoutMs?: number;
  /**
   * The client's limit (node-postgres `query_timeout`) on waiting for a statement's reply: past
   * it the call fails with `STORAGE_ERROR` and the connection is discarded. This is what ends a
   * call to a server that is frozen or unreachable without a reset; keep it above
   * `statementTimeoutMs`. 0: no limit. URL: `query_timeout` (milliseconds). @default 15000
   */
  queryTimeoutMs?: number;
  /** TCP keepalive on the store's connections. URL: `keepalives` (1 or 0). @default true */
  keepAlive?: boolean;
  /**
   * Idle time before the first keepalive probe. URL: `keepalives_idle` (seconds). @default 10000
   */
  keepAliveInitialDelayMs?: number;
  /**
   * Both timeouts (server and client) of schema migrations and `VACUUM (FULL)` rewrites, which
   * take longer than ordinary statements on large tables; 0: no limit. @default 600000
   */
  maintenanceTimeoutMs?: number;
  /** `application_name` of the store's connections (shown in `pg_stat_activity`). @default 'episodic' */
  applicationName?: string;
  /** Ledger rules: clock, id generator, caps, content guards, retention. @default core's defaults */
  ledger?: LedgerOptions;
  /** Artifact store options: the clock that stamps `createdAt` / `updatedAt`. @default core's defaults */
  artifacts?: ArtifactStoreOptions;
  /** The most rows per transaction in GC and ledger redaction. @default 1000 */
  batchSize?: number;
  /**
   * After a redaction or a GC that changed rows, rewrite the affected tables with `VACUUM (FULL)`
   * so no copy of the erased bytes stays in the server's table files. It locks the table while it
   * runs; turn it off to schedule the rewrite yourself (`store.scrub()`). @default true
   */
  scrubAfterErase?: boolean;
  /**
   * Create or upgrade the schema on open (under an advisory lock, safe from many processes).
   * Turn off where the application's role may not run DDL, and open the store once with a role
   * that may (a deploy step) to create or upgrade it. @default true
   */
  migrate?: boolean;
  /**
   * When a session's deltas are folded into a new base (the seed 001 snapshot other readers
   * see): on every commit while the session holds at most 1 MiB (so the base is current), then
   * every so often; `'always'`: on every commit at any size. @default
   * `{ currentUpToBytes: 1048576, share: 1, minBytes: 65536, deltas: 100000 }` (see
   * `SessionFoldPolicy`)
   */
  fold?: SessionFoldOption;
}

/**
 * The ledger, sessions, runs and artifacts (patterns, reflections…, their episode associations and
 * episode metadata) in one PostgreSQL schema. `close()` closes the pool if this store created it;
 * idempotent.
 */
export interface PostgresStore extends Stores<Required<StoreAdapters>> {
  /** The `pg` pool (for custom reads, `EXPLAIN`, health checks). */
  readonly pool: pg.Pool;
  /** The schema the tables live in. */
  readonly schema: string;
  /** The server, without credentials (`postgres://alice@db:5432/episodic`). */
  readonly server: string;
  /**
   * Rewrites every table of the store with `VACUUM (FULL)`, leaving no copy of redacted or
   * deleted rows in its files (what `scrubAfterErase` does after each erase, on demand).
   */
  scrub(): Promise<void>;
  /**
   * For migrations from another backend (`episodic migrate`): writes ledger rows exactly as they
   * were stored there (ids, times, positions, redaction, schema version, payload text), in order,
   * in one transaction. Rows already stored alike are skipped; other content under a stored id is
   * `CONFLICT` and nothing is written.
   */
  importLedgerRows(rows: readonly LedgerRow[]): Promise<LedgerImportReceipt>;
  /**
   * Recomputes the ledger's search index (each event's `search_vector`) from the stored rows, in
   * transactions of 1,000 rows; returns the rows indexed. Appends, redaction and GC keep the index
   * in their own transactions: this is for rows another tool wrote into the table directly (found
   * by no search until then), or after an upgrade that changes how text becomes words.
   */
  rebuildSearchIndex(): Promise<number>;
  /**
   * Recomputes the run records' search index (each stored line's type, time and `search_vector`,
   * and each run's header scope) from the stored lines, in transactions of 1,000 lines; returns
   * the lines indexed. Appends, redaction and deletion keep it in their own transactions: this is
   * for lines another tool wrote into the table directly, or after an upgrade that changes how
   * text becomes words.
   */
  rebuildRunSearchIndex(): Promise<number>;
  /** For migrations: raises session heads to at least these positions (see `importLedgerRows`). */
  importSessionHeads(heads: readonly SessionHead[]): Promise<void>;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A duration in milliseconds; 0 turns the limit off. At most what a timer can wait (24.8 days). */
const milliseconds = z.number().int().min(0).max(2_147_483_647);

const optionsSchema = z.strictObject({
  connectionString: z.string().optional(),
  pool: z
    .custom<pg.Pool>(
      (value) =>
        typeof value === 'object' && value !== null && 'connect' in value && 'query' in value,
      'must be a pg Pool',
    )
    .optional(),
  schema: z
    .string()
    .regex(
      SCHEMA_NAME,
      'must be a lowercase identifier: a-z, 0-9 and _, not starting with a digit, at most 63 characters',
    )
    .optional(),
  poolSize: z.number().int().min(1).max(1000).optional(),
  connectionTimeoutMs: milliseconds.optional(),
  statementTimeoutMs: milliseconds.optional(),
  queryTimeoutMs: milliseconds.optional(),
  keepAlive: z.boolean().optional(),
  keepAliveInitialDelayMs: milliseconds.optional(),
  maintenanceTimeoutMs: milliseconds.optional(),
  applicationName: z.string().max(63).optional(),
  ledger: z.record(z.string(), z.unknown()).optional(),
  artifacts: z.record(z.string(), z.unknown()).optional(),
  batchSize: z.number().int().min(1).max(100_000).optional(),
  scrubAfterErase: z.boolean().optional(),
  migrate: z.boolean().optional(),
  fold: z.union([z.literal('always'), z.record(z.string(), z.unknown())]).optional(),
});

/** The connection settings given as options (undefined ones left out, so they do not override). */
function definedOf(options: Partial<ConnectionSettings>): Partial<ConnectionSettings> {
  const defined: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULT_CONNECTION_SETTINGS) as Array<keyof ConnectionSettings>) {
    if (options[key] !== undefined) defined[key] = options[key];
  }
  return defined as Partial<ConnectionSettings>;
}

/**
 * Connects to PostgreSQL (or adopts a pool), creates or upgrades the schema, and returns the
 * ledger, session store, run store and artifact store over it: the same semantics as
 * `@episodic/store-sqlite`, for any number of processes on any number of machines.
 *
 * ```ts
 * const store = await createPostgresStore({ connectionString: process.env.DATABASE_URL });
 * await store.ledger.append({ scope: 'my-project', session_id: 's-1', agent_id: 'planner', type: 'conversation.user', summary: 'Asked for status' });
 * const page = await store.ledger.query({ scope: 'my-project', sessionId: 's-1' });
 * await store.close();
 * ```
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const checked = parseInput(optionsSchema, options, 'PostgreSQL store options');
  const given = checked.pool;
  if ((checked.connectionString === undefined) === (given === undefined)) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message:
        'Invalid PostgreSQL store options: give exactly one of connectionString (a postgres:// URL) and pool (a pg Pool). Nothing was opened.',
      details: { field: 'connectionString' },
    });
  }
  const schema = checked.schema ?? 'episodic';
  let server: string;
  let pool: pg.Pool;
  let maintenanceTimeoutMs =
    checked.maintenanceTimeoutMs ?? DEFAULT_CONNECTION_SETTINGS.maintenanceTimeoutMs;
  if (given === undefined) {
    const fromUrl = settingsOfUrl(checkConnectionUrl(checked.connectionString));
    const url = fromUrl.url;
    server = describeConnection(url);
    // Options first, then the URL's parameters, then the defaults.
    const settings = { ...DEFAULT_CONNECTION_SETTINGS, ...fromUrl.settings, ...definedOf(checked) };
    maintenanceTimeoutMs = settings.maintenanceTimeoutMs;
    pool = new pg.Pool({
      connectionString: url,
      max: checked.poolSize ?? 10,
      connectionTimeoutMillis: settings.connectionTimeoutMs,
      application_name: checked.applicationName ?? 'episodic',
      // 0 sends nothing: the server's own setting applies.
      ...(settings.statementTimeoutMs > 0
        ? { statement_timeout: settings.statementTimeoutMs }
        : {}),
      ...(settings.queryTimeoutMs > 0 ? { query_timeout: settings.queryTimeoutMs } : {}),
      keepAlive: settings.keepAlive,
      keepAliveInitialDelayMillis: settings.keepAliveInitialDelayMs,
    });
  } else {
    pool = given;
    server = 'the given pool';
  }
  // An idle connection the server closed (a restart, a failover) is reported by the pool as an
  // event: without a listener it would crash the process. The next query reconnects or fails typed.
  const onIdleError = () => undefined;
  pool.on('error', onIdleError);
  const owned = given === undefined;
  const database: PostgresDatabase = createPostgresDatabase(pool, schema, server);
  const scrubber = createScrubber(pool, checked.scrubAfterErase ?? true, maintenanceTimeoutMs);
  let stores: Stores<Required<StoreAdapters>>;
  try {
    // The contracts check their own options (ledger caps, fold policy…) before any query.
    stores = createStores(
      {
        ledger: createPostgresLedgerAdapter(database, scrubber, {
          ...(checked.batchSize === undefined ? {} : { batchSize: checked.batchSize }),
        }),
        sessions: createPostgresSessionStoreAdapter(database, scrubber),
        runs: createPostgresRunStoreAdapter(database, scrubber),
        artifacts: createPostgresArtifactStoreAdapter(database, scrubber),
      },
      {
        ledger: options.ledger,
        sessions: options.fold === undefined ? undefined : { fold: options.fold },
        artifacts: options.artifacts,
        // The set closes once, after its stores.
        close: () => (owned ? pool.end() : void pool.off('error', onIdleError)),
      },
    );
    if (checked.migrate !== false) {
      await migrate(pool, database.tables, schema, maintenanceTimeoutMs);
      await finishRunSearchBackfill(database);
    }
  } catch (error) {
    if (owned) await pool.end().catch(() => undefined);
    else pool.off('error', onIdleError);
    throw toEpisodicError(error, `prepare schema ${schema}`, server);
  }
  const { tables } = database;
  return {
    pool,
    schema,
    server,
    ...stores,
    scrub() {
      return database.guard('rewrite its tables', () =>
        createScrubber(pool, true, maintenanceTimeoutMs).scrub([
          tables.events,
          tables.runRecords,
          tables.runs,
          tables.sessions,
          tables.sessionDeltas,
          tables.sessionSizes,
          tables.artifacts,
          tables.artifactEpisodes,
          tables.episodeMetadata,
        ]),
      );
    },
    importLedgerRows: (rows) => importLedgerRows(database, rows),
    rebuildSearchIndex: () => rebuildPostgresSearchIndex(database),
    rebuildRunSearchIndex: () => rebuildPostgresRunSearchIndex(database),
    importSessionHeads: (heads) => importSessionHeads(database, heads),
  };
}
