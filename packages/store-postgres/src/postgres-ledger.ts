import {
  createKeyedQueue,
  type LedgerAdapter,
  type LedgerAppendBatch,
  type LedgerQueryPlan,
  type LedgerSearchPlan,
  type LedgerSearchRow,
  renderTsQuery,
  renderTsVector,
  type SqlLedgerRow,
  searchSnippet,
  searchTextOfLedgerRow,
} from '@episodic/core/adapter';
import type { PostgresDatabase, Queryable, StoreTables } from './postgres-database.js';
import { isUniqueViolation } from './postgres-errors.js';
import type { Scrubber } from './scrub.js';
import { RANKED_MATCHES, REINDEX_BATCH, rankSql, reindexInBatches } from './search-sql.js';

/** Options of the PostgreSQL ledger adapter. */
export interface PostgresLedgerAdapterOptions {
  /**
   * The most rows deleted (GC) or rewritten (redaction) per transaction. Each batch locks only the
   * rows it changes, which no appender touches, so writers never wait for a GC. @default 1000
   */
  batchSize?: number;
}

const BASE_COLUMNS =
  'id, event_id, ts_ms, scope, session_id, agent_id, type, summary, refs_json, redacted, schema_version, created_at, metadata_json, position';
const INSERT_COLUMNS =
  'event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at, metadata_json, position, search_vector';

/** The search vector of a row's text columns, as tsvector input (core's text and tokens). */
export function searchVectorOf(row: {
  summary: string;
  payload_json?: string | null | undefined;
  refs_json?: string | null | undefined;
}): string {
  return renderTsVector(searchTextOfLedgerRow(row));
}

/** The search vector of an insert values row (summary, payload and refs are columns 7 to 9). */
const vectorOfValues = (row: readonly unknown[]) =>
  searchVectorOf({
    summary: row[6] as string,
    payload_json: row[7] as string | null,
    refs_json: row[8] as string | null,
  });

/**
 * The SQL of one search: the newest `ranked` matching rows inside the scope and filters, scored
 * by `ts_rank_cd` with length normalization 1 (higher is better), the best `limit` of them (ties
 * in `id` order), and only the page's rows joined back for their columns. The score is `float8`
 * both ways, so the cursor's score compares exactly. The GIN index finds the matches; scope,
 * session, agent, type and time are conditions of the same query. Exported for the plan tests.
 */
export function buildSearchQuery(
  tables: StoreTables,
  plan: LedgerSearchPlan,
  ranked: number = RANKED_MATCHES,
): { text: string; values: unknown[] } {
  const values: unknown[] = [renderTsQuery(plan.match)];
  const parameter = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = ['e.search_vector @@ $1::tsquery'];
  if (plan.scope !== null) where.push(`e.scope = ${parameter(plan.scope)}`);
  if (plan.sessionId !== undefined) where.push(`e.session_id = ${parameter(plan.sessionId)}`);
  if (plan.agentId !== undefined) where.push(`e.agent_id = ${parameter(plan.agentId)}`);
  if (plan.fromTsMs !== undefined) where.push(`e.ts_ms >= ${parameter(plan.fromTsMs)}`);
  if (plan.toTsMs !== undefined) where.push(`e.ts_ms <= ${parameter(plan.toTsMs)}`);
  if (plan.types !== undefined) where.push(`e.type = ANY(${parameter(plan.types)}::text[])`);
  let after = '';
  if (plan.after !== undefined) {
    const score = parameter(plan.after.score);
    after = `WHERE score < ${score}::float8 OR (score = ${score}::float8 AND id > ${parameter(plan.after.sequence)})`;
  }
  const limit = parameter(plan.limit);
  return {
    text: `WITH matches AS (
  SELECT e.id, ${rankSql('e.search_vector', '$1::tsquery')} AS score FROM ${tables.events} e
  WHERE ${where.join(' AND ')}
  ORDER BY e.id DESC LIMIT ${Math.trunc(ranked)}
), page AS (
  SELECT id, score FROM matches ${after}
  ORDER BY score DESC, id LIMIT ${limit}
)
SELECT e.id AS sequence, e.event_id, e.session_id, e.agent_id, e.type, e.ts_ms, e.metadata_json,
  e.summary, e.payload_json, e.refs_json, page.score
FROM page JOIN ${tables.events} e ON e.id = page.id
ORDER BY page.score DESC, page.id`,
    values,
  };
}

/**
 * Recomputes every event's search vector from its stored columns (core's text), in transactions
 * of 1,000 rows that lock the rows they rewrite (a redaction meanwhile waits, then wins). For a
 * ledger rows were written into by another tool, or after a change of core's tokenization.
 * Returns the rows indexed.
 */
export function rebuildPostgresSearchIndex(database: PostgresDatabase): Promise<number> {
  const { tables } = database;
  return database.guard('rebuild the search index', () => {
    let after = '0';
    return reindexInBatches(database, async (client) => {
      const { rows } = await database.query<{
        id: string;
        summary: string;
        payload_json: string | null;
        refs_json: string | null;
      }>(
        `SELECT id, summary, payload_json, refs_json FROM ${tables.events} WHERE id > $1 ORDER BY id LIMIT ${REINDEX_BATCH} FOR UPDATE`,
        [after],
        client,
      );
      if (rows.length === 0) return 0;
      await database.query(
        `UPDATE ${tables.events} e SET search_vector = v.vector::tsvector
FROM unnest($1::bigint[], $2::text[]) AS v(id, vector) WHERE e.id = v.id`,
        [rows.map((row) => row.id), rows.map(searchVectorOf)],
        client,
      );
      after = rows[rows.length - 1]?.id ?? after;
      return rows.length;
    });
  });
}

/**
 * The SQL of `eventIdsWithPrefix`: a range on the unique event id index (COLLATE "C", the byte
 * order the range is in), read in its order and stopped at `limit`, never a scan of a scope. The
 * scope is a filter on that range ("scope || ''" keeps the planner off the scope index, which
 * would read the scope's every event).
 */
export function buildEventIdPrefixQuery(
  tables: StoreTables,
  scope: string | null,
  { from, to }: { from: string; to: string },
  limit: number,
): { text: string; values: unknown[] } {
  const where = scope === null ? '' : " AND scope || '' = $4";
  return {
    text: `SELECT event_id FROM ${tables.events} WHERE event_id >= $1 AND event_id < $2${where} ORDER BY event_id LIMIT $3`,
    values: scope === null ? [from, to, limit] : [from, to, limit, scope],
  };
}

/**
 * The SQL of one ledger query and its parameters. Scope + session reads use
 * `idx_episodic_session_ts`, scope reads `idx_episodic_scope_ts`, and scope + types reads one
 * ordered, limited `idx_episodic_scope_type_ts` range per type, merged by the outer
 * `ORDER BY ts_ms, id LIMIT` (a Merge Append: no scan of the scope). Exported for the plan tests.
 */
export function buildLedgerQuery(
  tables: StoreTables,
  plan: LedgerQueryPlan,
): { text: string; values: unknown[] } {
  const columns = plan.includePayload ? `${BASE_COLUMNS}, payload_json` : BASE_COLUMNS;
  const values: unknown[] = [];
  const parameter = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const common = (): string[] => {
    const where: string[] = [];
    if (plan.fromTsMs !== undefined) where.push(`ts_ms >= ${parameter(plan.fromTsMs)}`);
    if (plan.toTsMs !== undefined) where.push(`ts_ms <= ${parameter(plan.toTsMs)}`);
    if (plan.after !== undefined) {
      where.push(
        `(ts_ms, id) > (${parameter(plan.after.tsMs)}, ${parameter(plan.after.sequence)})`,
      );
    }
    return where;
  };
  const types = plan.types;
  if (plan.sessionId === undefined && plan.scope !== null && types !== undefined) {
    const scope = parameter(plan.scope);
    const limit = parameter(plan.limit);
    const shared = common();
    const arms = types.map((type) => {
      const where = [`scope = ${scope}`, `type = ${parameter(type)}`, ...shared].join(' AND ');
      return `(SELECT ${columns} FROM ${tables.events} WHERE ${where} ORDER BY ts_ms, id LIMIT ${limit})`;
    });
    return { text: `${arms.join(' UNION ALL ')} ORDER BY ts_ms, id LIMIT ${limit}`, values };
  }
  const where: string[] = [];
  if (plan.sessionId !== undefined) where.push(`session_id = ${parameter(plan.sessionId)}`);
  if (plan.scope !== null) where.push(`scope = ${parameter(plan.scope)}`);
  if (types !== undefined) {
    where.push(
      types.length === 1
        ? `type = ${parameter(types[0])}`
        : `type = ANY(${parameter(types)}::text[])`,
    );
  }
  where.push(...common());
  const filter = where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`;
  return {
    text: `SELECT ${columns} FROM ${tables.events}${filter} ORDER BY ts_ms, id LIMIT ${parameter(plan.limit)}`,
    values,
  };
}

/** The insert values of a batch as column arrays, for an `unnest` insert (12 columns). */
function columnsOf(values: LedgerAppendBatch['values']): unknown[][] {
  const columns = Array.from({ length: 12 }, () => new Array<unknown>(values.length));
  values.forEach((row, index) => {
    row.forEach((value, column) => {
      (columns[column] as unknown[])[index] = value;
    });
  });
  return columns;
}

/** The rows of an `unnest` insert: 12 column arrays, and the search vectors at `$vectors`. */
const unnestRows = (vectors: number) =>
  `unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $${vectors}::text[]) WITH ORDINALITY AS r(event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, schema_version, created_at, metadata_json, search_vector, ord)`;

/**
 * The ledger adapter over one schema. An append is one statement: the session heads are advanced
 * (`INSERT … ON CONFLICT DO UPDATE`, which holds each head's row lock until commit, so positions
 * are gapless and in commit order across any number of processes and machines) and the rows are
 * inserted with their positions, all or nothing. An append with an expected position checks and
 * advances the head in one conditional `UPDATE` inside a transaction. Queries read the seed's
 * indexes; a multi-type query merges one ordered index range per type.
 */
export function createPostgresLedgerAdapter(
  database: PostgresDatabase,
  scrubber: Scrubber,
  options: PostgresLedgerAdapterOptions = {},
): LedgerAdapter {
  const { tables } = database;
  const batchSize = options.batchSize ?? 1000;

  const appendOne = database.statement(
    'ledger_append_one',
    `WITH head AS (
  INSERT INTO ${tables.heads} AS h (scope, session_id, position) VALUES ($3, $4, 1)
  ON CONFLICT (scope, session_id) DO UPDATE SET position = h.position + 1
  RETURNING position
)
INSERT INTO ${tables.events} (${INSERT_COLUMNS})
SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10, $11, $12, head.position, $13::tsvector FROM head
RETURNING event_id, position, id AS sequence`,
  );
  const appendMany = database.statement(
    'ledger_append_many',
    `WITH counts AS (
  SELECT * FROM unnest($13::text[], $14::text[], $15::bigint[]) AS c(scope, session_id, n)
), head AS (
  INSERT INTO ${tables.heads} AS h (scope, session_id, position)
  SELECT scope, session_id, n FROM counts
  ON CONFLICT (scope, session_id) DO UPDATE SET position = h.position + excluded.position
  RETURNING scope, session_id, position
)
INSERT INTO ${tables.events} (${INSERT_COLUMNS})
SELECT r.event_id, r.ts_ms, r.scope, r.session_id, r.agent_id, r.type, r.summary, r.payload_json,
  r.refs_json, 0, r.schema_version, r.created_at, r.metadata_json,
  head.position - c.n + row_number() OVER (PARTITION BY r.scope, r.session_id ORDER BY r.ord),
  r.search_vector::tsvector
FROM ${unnestRows(16)}
JOIN counts c ON c.scope = r.scope AND c.session_id = r.session_id
JOIN head ON head.scope = r.scope AND head.session_id = r.session_id
ORDER BY r.ord
RETURNING event_id, position, id AS sequence`,
  );
  const appendAt = database.statement(
    'ledger_append_at',
    `INSERT INTO ${tables.events} (${INSERT_COLUMNS})
SELECT r.event_id, r.ts_ms, r.scope, r.session_id, r.agent_id, r.type, r.summary, r.payload_json,
  r.refs_json, 0, r.schema_version, r.created_at, r.metadata_json, $13::bigint + r.ord,
  r.search_vector::tsvector
FROM ${unnestRows(14)}
ORDER BY r.ord
RETURNING event_id, position, id AS sequence`,
  );
  const advanceFrom = database.statement(
    'ledger_advance_from',
    `UPDATE ${tables.heads} SET position = position + $4 WHERE scope = $1 AND session_id = $2 AND position = $3 RETURNING position`,
  );
  const startHead = database.statement(
    'ledger_start_head',
    `INSERT INTO ${tables.heads} (scope, session_id, position) VALUES ($1, $2, $3) ON CONFLICT (scope, session_id) DO NOTHING RETURNING position`,
  );
  const readHead = database.statement(
    'ledger_read_head',
    `SELECT position FROM ${tables.heads} WHERE scope = $1 AND session_id = $2`,
  );
  const existing = database.statement(
    'ledger_existing',
    `SELECT event_id FROM ${tables.events} WHERE event_id = ANY($1::text[])`,
  );
  const byEventIds = database.statement(
    'ledger_by_event_ids',
    `SELECT ${BASE_COLUMNS}, payload_json FROM ${tables.events} WHERE event_id = ANY($1::text[])`,
  );
  const nextScope = database.statement(
    'ledger_next_scope',
    `SELECT min(scope) AS scope FROM ${tables.events} WHERE scope > $1`,
  );
  const gcCount = database.statement(
    'ledger_gc_count',
    `SELECT count(*)::bigint AS count FROM ${tables.events} WHERE scope = $1 AND type = $2 AND ts_ms < $3`,
  );
  const gcDelete = database.statement(
    'ledger_gc_delete',
    `DELETE FROM ${tables.events} WHERE id IN (SELECT id FROM ${tables.events} WHERE scope = $1 AND type = $2 AND ts_ms < $3 LIMIT $4)`,
  );
  // A head whose session has no event left names a session GC collected: its id must go too.
  const orphanHeadsCondition = `scope = $1 AND NOT EXISTS (SELECT 1 FROM ${tables.events} e WHERE e.scope = h.scope AND e.session_id = h.session_id)`;
  const lockOrphanHeads = database.statement(
    'ledger_lock_orphan_heads',
    `SELECT session_id FROM ${tables.heads} h WHERE ${orphanHeadsCondition} FOR UPDATE`,
  );
  const deleteOrphanHeads = database.statement(
    'ledger_delete_orphan_heads',
    `DELETE FROM ${tables.heads} h WHERE session_id = ANY($2::text[]) AND ${orphanHeadsCondition}`,
  );
  const redactBatch = database.statement(
    'ledger_redact_batch',
    `UPDATE ${tables.events} SET summary = $1, payload_json = $2, refs_json = NULL, metadata_json = NULL, redacted = 1, search_vector = $4::tsvector WHERE id = ANY($3::bigint[])`,
  );

  type Appended = { event_id: string; position: string; sequence: string };

  const findDuplicates = async ({ rows }: LedgerAppendBatch, on?: Queryable) =>
    (
      await database.query<{ event_id: string }>(existing, [rows.map((row) => row.event_id)], on)
    ).rows.map((row) => row.event_id);

  const appendUnchecked = async ({ rows, values }: LedgerAppendBatch) => {
    if (rows.length === 1) {
      const row = values[0] as unknown[];
      return (await database.query<Appended>(appendOne, [...row, vectorOfValues(row)])).rows;
    }
    // One head per session, locked in a fixed order so two multi-session batches never deadlock.
    const counts = new Map<string, { scope: string; session: string; count: number }>();
    for (const row of rows) {
      const key = `${row.scope}\u0000${row.session_id}`;
      const entry = counts.get(key);
      if (entry === undefined)
        counts.set(key, { scope: row.scope, session: row.session_id, count: 1 });
      else entry.count++;
    }
    const heads = [...counts.entries()].sort(([left], [right]) => (left < right ? -1 : 1));
    const result = await database.query<Appended>(appendMany, [
      ...columnsOf(values),
      heads.map(([, head]) => head.scope),
      heads.map(([, head]) => head.session),
      heads.map(([, head]) => head.count),
      values.map(vectorOfValues),
    ]);
    return result.rows;
  };

  const appendExpected = (batch: LedgerAppendBatch, expectedPosition: number) =>
    database.transaction(async (client) => {
      const duplicates = await findDuplicates(batch, client);
      if (duplicates.length > 0) return { duplicates };
      const [first] = batch.rows;
      const key = [first?.scope, first?.session_id];
      let advanced = await database.query(
        advanceFrom,
        [...key, expectedPosition, batch.rows.length],
        client,
      );
      if (advanced.rowCount === 0 && expectedPosition === 0) {
        advanced = await database.query(startHead, [...key, batch.rows.length], client);
      }
      if (advanced.rowCount === 0) {
        const head = await database.query<{ position: string }>(readHead, key, client);
        return { conflict: { lastPosition: Number(head.rows[0]?.position ?? 0) } };
      }
      const result = await database.query<Appended>(
        appendAt,
        [...columnsOf(batch.values), expectedPosition, batch.values.map(vectorOfValues)],
        client,
      );
      return { stored: result.rows };
    });

  const queue = createKeyedQueue();
  const appendRows = (batch: LedgerAppendBatch) =>
    database.guard('append to the ledger', async () => {
      try {
        return batch.expectedPosition === undefined
          ? { stored: await appendUnchecked(batch) }
          : await appendExpected(batch, batch.expectedPosition);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return { duplicates: await findDuplicates(batch) };
      }
    });

  return {
    specificationVersion: 'v1',
    name: 'postgres',
    capabilities: {
      atomicBatch: true,
      crossProcessConflicts: true,
      secureDelete: scrubber.enabled,
      persistent: true,
      search: true,
    },
    append(batch) {
      const [first] = batch.rows;
      // In call order per session within this process (across processes: the head's row lock).
      return queue.run(`${first?.scope}\u0000${first?.session_id}`, () => appendRows(batch));
    },
    getEvents(eventIds) {
      return database.guard('read ledger events', async () => {
        const result = await database.query<SqlLedgerRow>(byEventIds, [eventIds]);
        const byId = new Map(result.rows.map((row) => [row.event_id, row]));
        return eventIds.flatMap((eventId) => {
          const row = byId.get(eventId);
          return row === undefined ? [] : [row];
        });
      });
    },
    eventIdsWithPrefix(scope, range, limit) {
      const { text, values } = buildEventIdPrefixQuery(tables, scope, range, limit);
      return database.guard('find events by id prefix', async () =>
        (await database.query<{ event_id: string }>(database.prepared(text), values)).rows.map(
          (row) => row.event_id,
        ),
      );
    },
    query(plan) {
      return database.guard('query the ledger', async () => {
        const { text, values } = buildLedgerQuery(tables, plan);
        return (await database.query<SqlLedgerRow>(database.prepared(text), values)).rows;
      });
    },
    search(plan) {
      return database.guard('search the ledger', async () => {
        const { text, values } = buildSearchQuery(tables, plan);
        type Found = Omit<LedgerSearchRow, 'snippet'> & {
          summary: string;
          payload_json: string | null;
          refs_json: string | null;
        };
        // Not a named prepared statement: after five runs PostgreSQL would keep a generic plan,
        // blind to how many events hold the words (a common word then took ~6× as long at
        // 100,000 events, a filtered one ~4×); planned per call, the word's frequency picks
        // between the GIN bitmap and the other indexes.
        const rows = (await database.query<Found>(text, values)).rows;
        // Snippets from core's tokens (as the memory ledger and SQLite make them), for the page's
        // rows only: ts_headline's parser splits and folds words otherwise.
        return rows.map(({ summary, payload_json, refs_json, ...row }) => ({
          ...row,
          snippet: searchSnippet(
            searchTextOfLedgerRow({ summary, payload_json, refs_json }),
            plan.match,
          ),
        }));
      });
    },
    redact(plan) {
      return database.guard('redact ledger events', async () => {
        const where: string[] = [];
        const values: unknown[] = [];
        const add = (column: string, value: unknown) => {
          values.push(value);
          where.push(`${column} = $${values.length}`);
        };
        if (plan.eventId !== undefined) add('event_id', plan.eventId);
        if (plan.sessionId !== undefined) add('session_id', plan.sessionId);
        if (plan.scope !== null) add('scope', plan.scope);
        const ids = (
          await database.query<{ id: string }>(
            `SELECT id FROM ${tables.events} WHERE ${where.join(' AND ')} ORDER BY id`,
            values,
          )
        ).rows.map((row) => row.id);
        // The redacted text replaces the old words in the same statement as the row.
        const vector = searchVectorOf({ summary: plan.summary, payload_json: plan.payloadJson });
        let count = 0;
        // Short batches keep each transaction brief even for a session of many thousand events.
        for (let start = 0; start < ids.length; start += batchSize) {
          const result = await database.query(redactBatch, [
            plan.summary,
            plan.payloadJson,
            ids.slice(start, start + batchSize),
            vector,
          ]);
          count += result.rowCount ?? 0;
        }
        if (count > 0) await scrubber.scrub([tables.events]);
        return count;
      });
    },
    gc(plan) {
      return database.guard(
        plan.dryRun ? 'count expired events' : 'delete expired events',
        async () => {
          const scopes: string[] = [];
          if (plan.scope !== null) scopes.push(plan.scope);
          else {
            for (let current = ''; ; ) {
              const next = (await database.query<{ scope: string | null }>(nextScope, [current]))
                .rows[0]?.scope;
              if (next === null || next === undefined) break;
              scopes.push(next);
              current = next;
            }
          }
          // One [type, count] pair per scope and type: core adds them up.
          const counts: Array<[string, number]> = [];
          let changed = 0;
          for (const scope of scopes) {
            for (const [type, cutoff] of Object.entries(plan.cutoffs)) {
              let count = 0;
              if (plan.dryRun) {
                count = Number(
                  (await database.query<{ count: string }>(gcCount, [scope, type, cutoff])).rows[0]
                    ?.count ?? 0,
                );
              } else {
                for (;;) {
                  const deleted =
                    (await database.query(gcDelete, [scope, type, cutoff, batchSize])).rowCount ??
                    0;
                  count += deleted;
                  if (deleted < batchSize) break;
                }
              }
              counts.push([type, count]);
              changed += count;
            }
          }
          if (!plan.dryRun && changed > 0) {
            for (const scope of scopes) {
              // Lock the heads first, then delete in a second statement: its snapshot sees every
              // append that held one of those locks, so a session that just got an event keeps
              // its head (one statement would re-check against its older snapshot).
              await database.transaction(async (client) => {
                const orphans = (
                  await database.query<{ session_id: string }>(lockOrphanHeads, [scope], client)
                ).rows.map((row) => row.session_id);
                if (orphans.length > 0) {
                  await database.query(deleteOrphanHeads, [scope, orphans], client);
                }
              });
            }
            await scrubber.scrub([tables.events, tables.heads]);
          }
          return counts;
        },
      );
    },
  };
}
