import { EpisodicError } from '@episodic/core';
import type {
  ChainWriterOptions,
  LedgerAdapter,
  LedgerAppendBatch,
  LedgerQueryPlan,
  SqlLedgerRow,
} from '@episodic/core/adapter';
import type Database from 'better-sqlite3';
import { type BatchSizer, createBatchSizer } from './batch-sizer.js';
import { withLockedDatabaseErrors } from './busy-error.js';
import { createSqliteLedgerChain, type SqliteLedgerChain } from './sqlite-ledger-chain.js';
import { createSqliteSearchIndex, type SqliteSearchIndex } from './sqlite-search.js';

/** Options of the SQLite ledger adapter. */
export interface SqliteLedgerAdapterOptions {
  /** The most rows deleted (GC) or rewritten (session redaction) per write transaction. @default 500 */
  batchSize?: number;
  /**
   * How long one GC or redaction transaction may hold the write lock, in milliseconds: batches
   * are sized from the measured cost per row to stay well under it, so other writers never wait
   * long. @default 8
   */
  maxLockMs?: number;
  /**
   * After a redaction or a GC that changed rows, checkpoint and truncate the WAL so the old page
   * images (which still hold the erased bytes) leave the `-wal` file too. @default true
   */
  truncateWalAfterErase?: boolean;
  /**
   * Chain every appended event (docs/design/verify.md; schema 15's columns) with this SHA-256 and
   * salt source (`nodeChainCrypto()`): the adapter declares `capabilities.chain`, and redaction
   * and GC record what they erase in the erasure log. Absent: nothing is chained, as before.
   */
  chain?: ChainWriterOptions;
}

const BASE_COLUMNS =
  'id, event_id, ts_ms, scope, session_id, agent_id, type, summary, refs_json, redacted, schema_version, created_at, metadata_json, position';

/**
 * The SQL of `eventIdsWithPrefix`: a range on the unique event id index, read in its order and
 * stopped at `limit`, never a scan of a scope. The scope is a filter on that range; its unary "+"
 * keeps the planner off the scope index, which would read the scope's every event.
 */
export function buildEventIdPrefixQuery(
  scope: string | null,
  { from, to }: { from: string; to: string },
  limit: number,
): { sql: string; parameters: unknown[] } {
  return scope === null
    ? {
        sql: 'SELECT event_id FROM episodic_events WHERE event_id >= ? AND event_id < ? ORDER BY event_id LIMIT ?',
        parameters: [from, to, limit],
      }
    : {
        sql: 'SELECT event_id FROM episodic_events WHERE event_id >= ? AND event_id < ? AND +scope = ? ORDER BY event_id LIMIT ?',
        parameters: [from, to, scope, limit],
      };
}

/**
 * The SQL of one ledger query and its parameters. Exported for the query-plan tests: scope-only
 * reads use `idx_episodic_scope_ts`, session reads `idx_episodic_session_ts`, and scope + types
 * reads one `idx_episodic_scope_type_ts` range per type, merged by `ORDER BY ts_ms, id`.
 */
export function buildLedgerQuery(plan: LedgerQueryPlan): { sql: string; parameters: unknown[] } {
  const columns = plan.includePayload ? `${BASE_COLUMNS}, payload_json` : BASE_COLUMNS;
  const common: string[] = [];
  const commonParameters: unknown[] = [];
  if (plan.fromTsMs !== undefined) {
    common.push('ts_ms >= ?');
    commonParameters.push(plan.fromTsMs);
  }
  if (plan.toTsMs !== undefined) {
    common.push('ts_ms <= ?');
    commonParameters.push(plan.toTsMs);
  }
  if (plan.after !== undefined) {
    common.push('(ts_ms, id) > (?, ?)');
    commonParameters.push(plan.after.tsMs, plan.after.sequence);
  }
  const types = plan.types;
  if (plan.sessionId === undefined && plan.scope !== null && types !== undefined) {
    // Scope + types: one ordered index range per type, merged; never a scan of the scope.
    const arm = ['scope = ?', 'type = ?', ...common].join(' AND ');
    // Each arm is read in index order; SQLite merges the ordered arms (MERGE (UNION ALL)) and
    // stops pulling as soon as the outer LIMIT is met: a k-way merge, no sort, no scan.
    const arms = types.map(
      () =>
        `SELECT ${columns} FROM episodic_events INDEXED BY idx_episodic_scope_type_ts WHERE ${arm}`,
    );
    const parameters: unknown[] = [];
    for (const type of types) parameters.push(plan.scope, type, ...commonParameters);
    parameters.push(plan.limit);
    const sql = `${arms.join(' UNION ALL ')} ORDER BY ts_ms, id LIMIT ?`;
    return { sql, parameters };
  }
  const where: string[] = [];
  const parameters: unknown[] = [];
  let index = '';
  if (plan.sessionId !== undefined) {
    index = 'INDEXED BY idx_episodic_session_ts';
    where.push('session_id = ?');
    parameters.push(plan.sessionId);
    if (plan.scope !== null) {
      where.push('scope = ?');
      parameters.push(plan.scope);
    }
  } else if (plan.scope !== null) {
    index = 'INDEXED BY idx_episodic_scope_ts';
    where.push('scope = ?');
    parameters.push(plan.scope);
  }
  if (types !== undefined) {
    where.push(`type IN (${types.map(() => '?').join(', ')})`);
    parameters.push(...types);
  }
  where.push(...common);
  parameters.push(...commonParameters, plan.limit);
  const filter = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
  return {
    sql: `SELECT ${columns} FROM episodic_events ${index} ${filter} ORDER BY ts_ms, id LIMIT ?`,
    parameters,
  };
}

/**
 * What openclaw-mem (seed 002's implementation, 1.3.1 and later) adds to a ledger file it opens:
 * a `search_text` column on `episodic_events` (summary, payload and refs text) and an
 * external-content FTS5 table `episodic_events_fts` kept in step by its triggers. Read once per
 * redaction or GC, not per row: another process may add them while this one has the file open.
 */
interface OpenclawSearchIndex {
  readonly searchText: boolean;
  readonly fts: boolean;
  /**
   * `episodic_event_embeddings` (openclaw-mem 1.4.0 and later): a vector of each row's search text
   * and that text's SHA-256, made by its `episodes embed`. A GC delete cascades to it.
   */
  readonly embeddings: boolean;
}

function openclawSearchIndex(database: Database.Database): OpenclawSearchIndex {
  const columns = database.pragma('table_info(episodic_events)') as Array<{ name: string }>;
  const tables = new Set(
    database
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('episodic_events_fts', 'episodic_event_embeddings')",
      )
      .pluck()
      .all() as string[],
  );
  // Schema 13's stand-in by the same name (no search_text column, never written) needs no merge.
  const ftsColumns = tables.has('episodic_events_fts')
    ? (database.pragma('table_info(episodic_events_fts)') as Array<{ name: string }>)
    : [];
  return {
    searchText: columns.some((column) => column.name === 'search_text'),
    fts: ftsColumns.some((column) => column.name === 'search_text'),
    embeddings: tables.has('episodic_event_embeddings'),
  };
}

/**
 * openclaw-mem's search text of a redacted row: its summary, then each distinct text of its
 * payload (a JSON string here, or null) and refs (null), joined by newlines. For Episodic's
 * replacement values that is the placeholder alone, which is also what openclaw-mem's own
 * redaction stores (`search_text = summary`); never empty, so openclaw-mem does not rebuild it.
 */
function openclawRedactedSearchText(summary: string, payloadJson: string | null): string {
  const parts = [summary.replace(/\s+/g, ' ').trim()];
  const payload: unknown = payloadJson === null ? null : JSON.parse(payloadJson);
  if (typeof payload === 'string') {
    const text = payload.replace(/\s+/g, ' ').trim();
    if (text !== '' && !parts.includes(text)) parts.push(text);
  }
  return parts.filter((part) => part !== '').join('\n');
}

function isUniqueViolation(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}

/**
 * Drops the ledger's search index and builds it again from `episodic_events` (each row's
 * `searchTextOfLedgerRow`), in short IMMEDIATE transactions; returns the rows indexed. Searches
 * answer the same afterwards: the index is derived from the record alone.
 */
export function rebuildSqliteSearchIndex(database: Database.Database): number {
  return createSqliteSearchIndex(database).rebuild();
}

/**
 * The ledger adapter over one better-sqlite3 connection (see `openSqliteDatabase` for the
 * pragmas and migrations it needs). Every write runs in an IMMEDIATE transaction; queries pick
 * their index explicitly, and a multi-type query reads each type through the
 * `(scope, type, ts_ms)` index and merges the ordered streams (UNION ALL) instead of scanning.
 */
export function createSqliteLedgerAdapter(
  database: Database.Database,
  options: SqliteLedgerAdapterOptions = {},
): LedgerAdapter {
  const batchSize = options.batchSize ?? 500;
  const truncateWal = options.truncateWalAfterErase ?? true;
  const maxLockMs = options.maxLockMs ?? 8;
  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };

  // The search index, made on first use: a read-only connection to a file of schema 13 or older
  // (read as it is) has no index table, and then only search says so.
  let searchIndex: SqliteSearchIndex | null | undefined;
  const hasSearchTable = () =>
    database
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'episodic_search'")
      .get() !== undefined;
  const indexOrNull = (): SqliteSearchIndex | null => {
    if (searchIndex === undefined || (searchIndex === null && hasSearchTable())) {
      searchIndex = hasSearchTable() ? createSqliteSearchIndex(database) : null;
    }
    return searchIndex;
  };

  // A file read as it is below schema 15 (read-only) has no chain columns: nothing is chained there.
  const hasChainColumns = () =>
    (database.pragma('table_info(episodic_events)') as Array<{ name: string }>).some(
      (column) => column.name === 'chain_c',
    );
  const chain: SqliteLedgerChain | undefined =
    options.chain === undefined || !hasChainColumns()
      ? undefined
      : createSqliteLedgerChain(database, options.chain);

  /** Index rows the current redaction or GC deleted or replaced (their terms wait for a merge). */
  let searchRowsErased = 0;

  const insert = database.prepare(
    `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at, metadata_json, position)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
  );
  const advanceHead = database.prepare(
    `INSERT INTO episodic_session_heads (scope, session_id, position) VALUES (?, ?, ?)
     ON CONFLICT (scope, session_id) DO UPDATE SET position = position + excluded.position
     RETURNING position`,
  );
  const readHead = database.prepare(
    'SELECT position FROM episodic_session_heads WHERE scope = ? AND session_id = ?',
  );
  const exists = database.prepare('SELECT 1 FROM episodic_events WHERE event_id = ?').pluck();
  const byEventId = database.prepare(
    `SELECT ${BASE_COLUMNS}, payload_json FROM episodic_events WHERE event_id = ?`,
  );
  const insertChained =
    chain === undefined
      ? undefined
      : database.prepare(
          `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at, metadata_json, position, chain_salt, chain_c)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)`,
        );
  /** Inserts row `index` of the batch at `position`. */
  const insertRow = ({ rows, values }: LedgerAppendBatch, index: number, position: number) => {
    // Positional binding (arrays, flattened): measurably cheaper than named parameters here.
    const { lastInsertRowid } = insert.run(values[index] as unknown[], position);
    return { event_id: rows[index]?.event_id as string, position, sequence: lastInsertRowid };
  };

  const findDuplicates = ({ rows }: LedgerAppendBatch) =>
    rows.filter((row) => exists.get(row.event_id) !== undefined).map((row) => row.event_id);

  const appendTransaction = database.transaction((batch: LedgerAppendBatch) => {
    const { rows, expectedPosition } = batch;
    if (expectedPosition !== undefined) {
      const duplicates = findDuplicates(batch);
      if (duplicates.length > 0) return { duplicates };
      const [first] = rows;
      const head = readHead.get(first?.scope, first?.session_id) as
        | { position: number }
        | undefined;
      const lastPosition = head?.position ?? 0;
      if (lastPosition !== expectedPosition) return { conflict: { lastPosition } };
    }
    if (chain !== undefined && insertChained !== undefined) {
      // Positions and commitments from each session's head row, then the rows in batch order.
      const stamped = chain.stamp(rows);
      return {
        stored: stamped.map(({ position, salt, c }, index) => {
          const { lastInsertRowid } = insertChained.run(
            batch.values[index] as unknown[],
            position,
            salt,
            c,
          );
          return { event_id: rows[index]?.event_id as string, position, sequence: lastInsertRowid };
        }),
      };
    }
    if (rows.length === 1) {
      // The common append: one head update and one insert, no bookkeeping.
      const [row] = rows;
      const { position } = advanceHead.get(row?.scope, row?.session_id, 1) as { position: number };
      return { stored: [insertRow(batch, 0, position)] };
    }
    // One head update per session: positions for k rows are reserved at once.
    const counts = new Map<
      string,
      { scope: string; session: string; count: number; next: number }
    >();
    for (const row of rows) {
      const key = `${row.scope}\u0000${row.session_id}`;
      const entry = counts.get(key);
      if (entry === undefined)
        counts.set(key, { scope: row.scope, session: row.session_id, count: 1, next: 0 });
      else entry.count++;
    }
    for (const entry of counts.values()) {
      const { position } = advanceHead.get(entry.scope, entry.session, entry.count) as {
        position: number;
      };
      entry.next = position - entry.count + 1;
    }
    return {
      stored: rows.map((row, index) => {
        const entry = counts.get(`${row.scope}\u0000${row.session_id}`) as { next: number };
        return insertRow(batch, index, entry.next++);
      }),
    };
  });

  const checkpoint = () => {
    if (!truncateWal || database.memory) return;
    // A TRUNCATE checkpoint blocks writers while it copies the WAL into the database; a PASSIVE
    // one first does that copy without blocking anyone, leaving TRUNCATE only the truncation.
    database.pragma('wal_checkpoint(PASSIVE)');
    database.pragma('wal_checkpoint(TRUNCATE)');
  };

  /** Runs `batch(limit)` in IMMEDIATE transactions sized by `sizer`; returns rows touched. */
  const timed = (
    sizer: BatchSizer,
    run: (limit: number) => number,
  ): { rows: number; limit: number } => {
    const limit = sizer.next();
    const started = performance.now();
    const rows = run(limit);
    sizer.record(rows, performance.now() - started);
    return { rows, limit };
  };

  const nextScope = database
    .prepare(
      'SELECT scope FROM episodic_events INDEXED BY idx_episodic_scope_ts WHERE scope > ? ORDER BY scope LIMIT 1',
    )
    .pluck();
  const scopesOf = (scope: string | null): string[] => {
    if (scope !== null) return [scope];
    const scopes: string[] = [];
    for (
      let current = nextScope.get('') as string | undefined;
      current !== undefined;
      current = nextScope.get(current) as string | undefined
    ) {
      scopes.push(current);
    }
    return scopes;
  };

  const gcCount = database
    .prepare(
      'SELECT count(*) FROM episodic_events INDEXED BY idx_episodic_scope_type_ts WHERE scope = ? AND type = ? AND ts_ms < ?',
    )
    .pluck();
  const gcDelete = database.prepare(
    'DELETE FROM episodic_events WHERE id IN (SELECT id FROM episodic_events INDEXED BY idx_episodic_scope_type_ts WHERE scope = ? AND type = ? AND ts_ms < ? LIMIT ?)',
  );
  // The rows and their search index rows go in one transaction (the delete trigger lists them).
  const gcSelect = database
    .prepare(
      'SELECT id FROM episodic_events INDEXED BY idx_episodic_scope_type_ts WHERE scope = ? AND type = ? AND ts_ms < ? LIMIT ?',
    )
    .pluck();
  const deleteByIds = database.prepare(
    'DELETE FROM episodic_events WHERE id IN (SELECT value FROM json_each(?))',
  );
  const gcBatchTransaction = database.transaction(
    (scope: string, type: string, cutoff: number, limit: number, at?: string) => {
      let changes: number;
      if (chain === undefined) changes = gcDelete.run(scope, type, cutoff, limit).changes;
      else {
        // The collected rows' commitments go to the erasure log in the same transaction.
        const ids = gcSelect.all(scope, type, cutoff, limit) as number[];
        chain.collect(ids, at);
        changes = deleteByIds.run(JSON.stringify(ids)).changes;
      }
      if (changes > 0) searchRowsErased += indexOrNull()?.refreshStale() ?? 0;
      return changes;
    },
  );
  // A head whose session has no event left names a session GC collected: its id must go too.
  const deleteOrphanHeads = database.prepare(
    'DELETE FROM episodic_session_heads AS h WHERE scope = ? AND NOT EXISTS (SELECT 1 FROM episodic_events AS e WHERE e.scope = h.scope AND e.session_id = h.session_id)',
  );
  const deleteOrphanHeadsTransaction = database.transaction((scope: string, at?: string) => {
    chain?.collectEmptied(scope, at);
    return deleteOrphanHeads.run(scope).changes;
  });
  const redactBatch = database.prepare(
    'UPDATE episodic_events SET summary = ?, payload_json = ?, refs_json = NULL, metadata_json = NULL, redacted = 1 WHERE id IN (SELECT value FROM json_each(?))',
  );
  const redactTransaction = database.transaction(
    (
      summary: string,
      payloadJson: string | null,
      ids: number[],
      searchText: string | null,
      embeddings: boolean,
      at?: string,
    ) => {
      const idList = JSON.stringify(ids);
      // The erasure entry and the dropped salts go with the rewrite, in this transaction.
      chain?.redact(ids, { summary, payloadJson, at });
      // The vector and hash of the old search text go; openclaw-mem embeds the new one if asked.
      if (embeddings)
        prepare(
          'DELETE FROM episodic_event_embeddings WHERE event_row_id IN (SELECT value FROM json_each(?))',
        ).run(idList);
      const changes = (
        searchText === null
          ? redactBatch.run(summary, payloadJson, idList)
          : prepare(
              'UPDATE episodic_events SET summary = ?, payload_json = ?, refs_json = NULL, metadata_json = NULL, redacted = 1, search_text = ? WHERE id IN (SELECT value FROM json_each(?))',
            ).run(summary, payloadJson, searchText, idList)
      ).changes;
      // The triggers listed the rows: their old words leave Episodic's index in this
      // transaction and their new text goes in.
      searchRowsErased += indexOrNull()?.refreshStale() ?? 0;
      return changes;
    },
  );
  // openclaw-mem's full-text index keeps a removed term in its segments until they are merged.
  const optimizeTransaction = database.transaction(() => {
    database.exec("INSERT INTO episodic_events_fts(episodic_events_fts) VALUES ('optimize')");
  });
  /** After rows were redacted or deleted: erase their terms from openclaw-mem's index, then the WAL. */
  const afterErase = (index: OpenclawSearchIndex) => {
    if (index.fts) optimizeTransaction.immediate();
    // Merging rewrites the whole index: only when index rows were deleted or replaced.
    if (searchRowsErased > 0) indexOrNull()?.optimize();
    searchRowsErased = 0;
    checkpoint();
  };

  // A writer that gives up on the lock says who holds it and how long it waited.
  return withLockedDatabaseErrors(database, {
    specificationVersion: 'v1',
    name: 'sqlite',
    capabilities: {
      atomicBatch: true,
      crossProcessConflicts: true,
      secureDelete: true,
      persistent: !database.memory,
      search: true,
      ...(chain === undefined ? {} : { chain: true }),
    },
    ...(chain === undefined
      ? {}
      : {
          chainStreams: (scope: string | null) => chain.streams(scope),
          chainRows: (scope: string, sessionId: string) => chain.rows(scope, sessionId),
          erasures: () => chain.erasures(),
        }),
    append(batch) {
      try {
        return appendTransaction.immediate(batch);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return { duplicates: findDuplicates(batch) };
      }
    },
    getEvents(eventIds) {
      const rows: SqlLedgerRow[] = [];
      for (const eventId of eventIds) {
        const stored = byEventId.get(eventId) as SqlLedgerRow | undefined;
        if (stored !== undefined) rows.push(stored);
      }
      return rows;
    },
    eventIdsWithPrefix(scope, range, limit) {
      const { sql, parameters } = buildEventIdPrefixQuery(scope, range, limit);
      return prepare(sql)
        .pluck()
        .all(...parameters) as string[];
    },
    query(plan) {
      const { sql, parameters } = buildLedgerQuery(plan);
      return prepare(sql).all(...parameters) as SqlLedgerRow[];
    },
    search(plan) {
      const index = indexOrNull();
      if (index === null) {
        throw new EpisodicError({
          code: 'UNSUPPORTED',
          message:
            'This database has no search index yet (schema 13 or older) and is open read-only. Open it writable once with @episodic/store-sqlite (that upgrades the schema), then search again.',
          details: { table: 'episodic_search' },
        });
      }
      return index.search(plan);
    },
    redact(plan) {
      const where: string[] = [];
      const parameters: unknown[] = [];
      if (plan.eventId !== undefined) {
        where.push('event_id = ?');
        parameters.push(plan.eventId);
      }
      if (plan.sessionId !== undefined) {
        where.push('session_id = ?');
        parameters.push(plan.sessionId);
      }
      if (plan.scope !== null) {
        where.push('scope = ?');
        parameters.push(plan.scope);
      }
      const index = openclawSearchIndex(database);
      // The search text openclaw-mem derives from the redacted row, as its own redaction sets it.
      const searchText = index.searchText
        ? openclawRedactedSearchText(plan.summary, plan.payloadJson)
        : null;
      const ids = prepare(`SELECT id FROM episodic_events WHERE ${where.join(' AND ')}`)
        .pluck()
        .all(...parameters) as number[];
      // Short batches keep the write lock brief even for a session of many thousand events.
      const sizer = createBatchSizer(batchSize, maxLockMs);
      let count = 0;
      for (let start = 0; start < ids.length; ) {
        const { rows, limit } = timed(
          sizer,
          (limit) =>
            redactTransaction.immediate(
              plan.summary,
              plan.payloadJson,
              ids.slice(start, start + limit),
              searchText,
              index.embeddings,
              plan.at,
            ) as number,
        );
        count += rows;
        start += limit;
      }
      if (count > 0) afterErase(index);
      return count;
    },
    gc(plan) {
      // One [type, count] pair per scope and type: core adds them up.
      const counts: Array<[string, number]> = [];
      const sizer = createBatchSizer(batchSize, maxLockMs);
      let changed = 0;
      // Listed before anything is deleted: a scope GC empties still has heads to clear.
      const scopes = scopesOf(plan.scope);
      for (const scope of scopes) {
        for (const [type, cutoff] of Object.entries(plan.cutoffs)) {
          let count = 0;
          if (plan.dryRun) count = gcCount.get(scope, type, cutoff) as number;
          else {
            for (;;) {
              const { rows, limit } = timed(
                sizer,
                (limit) =>
                  gcBatchTransaction.immediate(scope, type, cutoff, limit, plan.at) as number,
              );
              count += rows;
              if (rows < limit) break;
            }
          }
          counts.push([type, count]);
          changed += count;
        }
      }
      if (!plan.dryRun && changed > 0) {
        for (const scope of scopes) deleteOrphanHeadsTransaction.immediate(scope, plan.at);
        afterErase(openclawSearchIndex(database));
      }
      return counts;
    },
  });
}
