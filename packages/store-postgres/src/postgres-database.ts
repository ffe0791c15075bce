import type pg from 'pg';
import { isConnectionFailure, isRetryable, toEpisodicError } from './postgres-errors.js';

/** A quoted SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The qualified names of the store's tables in one schema. */
export interface StoreTables {
  readonly schema: string;
  readonly events: string;
  readonly heads: string;
  readonly runs: string;
  readonly runRecords: string;
  /** Migration 7's backfill key, while the run records stored before it are being indexed. */
  readonly runSearchBackfill: string;
  readonly sessions: string;
  readonly sessionDeltas: string;
  readonly sessionSizes: string;
  readonly artifacts: string;
  readonly artifactEpisodes: string;
  readonly episodeMetadata: string;
  readonly migrations: string;
}

export function tablesOf(schema: string): StoreTables {
  const q = (table: string) => `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
  return {
    schema: quoteIdentifier(schema),
    events: q('episodic_events'),
    heads: q('episodic_session_heads'),
    runs: q('episodic_runs'),
    runRecords: q('episodic_run_records'),
    runSearchBackfill: q('episodic_run_search_backfill'),
    sessions: q('episodic_sessions'),
    sessionDeltas: q('episodic_session_deltas'),
    sessionSizes: q('episodic_session_sizes'),
    artifacts: q('episodic_artifacts'),
    artifactEpisodes: q('episodic_artifact_episodes'),
    episodeMetadata: q('episodic_episode_metadata'),
    migrations: q('episodic_schema_migrations'),
  };
}

/** A statement: its text, and a name when the driver should prepare it once per connection. */
export interface Statement {
  readonly name?: string;
  readonly text: string;
}

/** Something that runs queries: the pool, or one client inside a transaction. */
export type Queryable = Pick<pg.PoolClient, 'query'>;

/** Plain queries on one client (migrations and rewrites). */
export interface SlowQueries {
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<Row>>;
}

/** The longest a timer waits (about 24.8 days): "no limit" for node-postgres's `query_timeout`. */
const NO_LIMIT = 2_147_483_647;

/**
 * Queries on `client` with a client-side timeout of `timeoutMs` (0: none) instead of the store's,
 * for maintenance that takes longer than ordinary statements. The server-side `statement_timeout`
 * is the caller's to set (`SET LOCAL` in a transaction, `SET` around a `VACUUM`).
 */
export function withQueryTimeout(client: pg.PoolClient, timeoutMs: number): SlowQueries {
  const query_timeout = timeoutMs === 0 ? NO_LIMIT : timeoutMs;
  return {
    query: <Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
      client.query<Row>({ text, values, query_timeout } as pg.QueryConfig),
  };
}

/** What every adapter shares: the pool, the schema's tables, and error translation. */
export interface PostgresDatabase {
  readonly pool: pg.Pool;
  readonly tables: StoreTables;
  /** The credential-free connection description for messages. */
  readonly where: string;
  /** A named statement (prepared once per connection) whose name is unique to this schema. */
  statement(name: string, text: string): Statement;
  /**
   * A statement built at run time (a query plan's SQL), named by a hash of its text so each shape
   * is parsed and planned once per connection, like the fixed statements.
   */
  prepared(text: string): Statement;
  /** Runs one statement on the pool (one implicit transaction). */
  query<Row extends pg.QueryResultRow>(
    statement: Statement | string,
    values?: readonly unknown[],
    on?: Queryable,
  ): Promise<pg.QueryResult<Row>>;
  /**
   * Runs `work` in one transaction on one client (READ COMMITTED; compare-and-appends take row
   * locks). A serialization failure or deadlock rolls back and runs `work` again (up to 5 times).
   */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** Runs `work` and turns whatever it throws into a domain error naming `operation`. */
  guard<T>(operation: string, work: () => Promise<T>): Promise<T>;
}

const ATTEMPTS = 5;

function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}

export function createPostgresDatabase(
  pool: pg.Pool,
  schema: string,
  where: string,
): PostgresDatabase {
  const tables = tablesOf(schema);
  const prefix = `episodic_${shortHash(schema)}_`;
  const query = <Row extends pg.QueryResultRow>(
    statement: Statement | string,
    values: readonly unknown[] = [],
    on: Queryable = pool,
  ): Promise<pg.QueryResult<Row>> => {
    const config =
      typeof statement === 'string'
        ? { text: statement, values: values as unknown[] }
        : { ...statement, values: values as unknown[] };
    return on.query<Row>(config);
  };
  return {
    pool,
    tables,
    where,
    statement: (name, text) => ({ name: `${prefix}${name}`, text }),
    prepared: (text) => ({ name: `${prefix}q${shortHash(text)}_${text.length}`, text }),
    query,
    async transaction(work) {
      for (let attempt = 1; ; attempt++) {
        const client = await pool.connect();
        let broken: Error | undefined;
        try {
          await client.query('BEGIN');
          const result = await work(client);
          await client.query('COMMIT');
          return result;
        } catch (error) {
          if (isConnectionFailure(error)) {
            // The server is gone, frozen or timed out: a ROLLBACK would wait as long again. The
            // connection is discarded; the server rolls the transaction back when it sees it close.
            broken = error as Error;
          } else {
            try {
              await client.query('ROLLBACK');
            } catch (rollbackError) {
              // The connection is gone: the pool must not hand it out again.
              broken = rollbackError as Error;
            }
          }
          if (isRetryable(error) && attempt < ATTEMPTS) {
            await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
            continue;
          }
          throw error;
        } finally {
          client.release(broken);
        }
      }
    },
    async guard(operation, work) {
      try {
        return await work();
      } catch (error) {
        throw toEpisodicError(error, operation, where);
      }
    },
  };
}
