// The run records' full-text search (migration 7): each `episodic_run_records` row carries its
// line's `type`, `ts_ms` and `search_vector` (core's `searchFieldsOfRunLine`, the text given as
// tsvector input by `renderTsVector`), written by the append's own INSERT and rewritten by a
// redaction's UPDATE of the line; deleting a run's rows takes them. Each `episodic_runs` row
// carries its header's `scope` (`runHeaderScope`), what the scope filter compares.
import {
  type RunSearchPlan,
  type RunSearchRow,
  readRunHeaderLine,
  renderTsQuery,
  renderTsVector,
  runHeaderScope,
  searchFieldsOfRunLine,
  searchSnippet,
} from '@episodic/core/adapter';
import type { PostgresDatabase, SlowQueries, StoreTables } from './postgres-database.js';
import { RANKED_MATCHES, REINDEX_BATCH, rankSql, reindexInBatches } from './search-sql.js';

const decoder = new TextDecoder();
const decode = (bytes: Buffer) => decoder.decode(bytes);

/** What a stored line gives its row's search columns. */
export interface RunLineSearchColumns {
  readonly type: string;
  readonly tsMs: number | null;
  /** tsvector input (core's tokens with positions). */
  readonly vector: string;
}

/**
 * The search columns of one stored line (from its exact text, as every store reads it). A type
 * holding NUL (a line another tool wrote; appended records' types cannot) is stored as `''`, as a
 * damaged line's: a text column refuses NUL, and no search can name such a type.
 */
export function runLineSearchColumns(line: string): RunLineSearchColumns {
  const fields = searchFieldsOfRunLine(line);
  return {
    type: fields.type.includes('\u0000') ? '' : fields.type,
    tsMs: fields.tsMs,
    vector: renderTsVector(fields.text),
  };
}

/** The scope a stored header line names (`runHeaderScope`), or null when it is not a header. */
export function scopeOfHeaderLine(line: string): string | null {
  const header = readRunHeaderLine(line);
  return header === null ? null : runHeaderScope(header);
}

/**
 * The SQL of one run search: the newest `ranked` matching lines inside the filters (newest by
 * the record's `ts`, then run id and position, descending), scored by `ts_rank_cd` with length
 * normalization 1 as `float8`, then the best `limit` of them after the cursor (score descending,
 * run id, position), and only the page's lines joined back for their text. Run, type and time
 * are conditions on the line; session and scope select the runs whose header names them, inside
 * the same query. Exported for the plan tests.
 */
export function buildRunSearchQuery(
  tables: StoreTables,
  plan: RunSearchPlan,
  ranked: number = RANKED_MATCHES,
): { text: string; values: unknown[] } {
  const values: unknown[] = [renderTsQuery(plan.match)];
  const parameter = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = ['l.search_vector @@ $1::tsquery'];
  if (plan.runId !== undefined) where.push(`l.run_id = ${parameter(plan.runId)}`);
  if (plan.types !== undefined) where.push(`l.type = ANY(${parameter(plan.types)}::text[])`);
  if (plan.fromMs !== undefined) where.push(`l.ts_ms >= ${parameter(plan.fromMs)}`);
  if (plan.toMs !== undefined) where.push(`l.ts_ms <= ${parameter(plan.toMs)}`);
  if (plan.sessionId !== undefined)
    where.push(
      `l.run_id IN (SELECT run_id FROM ${tables.runs} WHERE lower(session_id) = ${parameter(plan.sessionId)})`,
    );
  if (plan.scope !== undefined)
    where.push(
      `l.run_id IN (SELECT run_id FROM ${tables.runs} WHERE scope = ${parameter(plan.scope)})`,
    );
  let after = '';
  if (plan.after !== undefined) {
    const score = parameter(plan.after.score);
    const runId = parameter(plan.after.runId);
    after = `WHERE score < ${score}::float8 OR (score = ${score}::float8 AND (run_id > ${runId} OR (run_id = ${runId} AND seq > ${parameter(plan.after.position)})))`;
  }
  const limit = parameter(plan.limit);
  return {
    text: `WITH matches AS (
  SELECT l.run_id, l.seq, ${rankSql('l.search_vector', '$1::tsquery')} AS score FROM ${tables.runRecords} l
  WHERE ${where.join(' AND ')}
  ORDER BY l.ts_ms DESC NULLS LAST, l.run_id DESC, l.seq DESC LIMIT ${Math.trunc(ranked)}
), page AS (
  SELECT run_id, seq, score FROM matches ${after}
  ORDER BY score DESC, run_id, seq LIMIT ${limit}
)
SELECT page.run_id, page.seq AS position, l.type, l.ts_ms, page.score, l.json
FROM page JOIN ${tables.runRecords} l ON l.run_id = page.run_id AND l.seq = page.seq
ORDER BY page.score DESC, page.run_id, page.seq`,
    values,
  };
}

/** Runs `plan` and makes each hit's snippet from core's tokens of its line (the page's only). */
export async function searchPostgresRuns(
  database: PostgresDatabase,
  plan: RunSearchPlan,
): Promise<RunSearchRow[]> {
  const { text, values } = buildRunSearchQuery(database.tables, plan);
  type Found = Omit<RunSearchRow, 'snippet' | 'type'> & { type: string | null; json: Buffer };
  // Planned per call, as the ledger's search: a generic plan is blind to how many lines hold
  // the words.
  const rows = (await database.query<Found>(text, values)).rows;
  return rows.map(({ json, type, ...row }) => ({
    ...row,
    type: type ?? '',
    snippet: searchSnippet(searchFieldsOfRunLine(decode(json)).text, plan.match),
  }));
}

type StoredLine = { run_id: string; seq: string; json: Buffer };

/** Sets the search columns of `rows` from their lines, in one statement on `client`. */
async function writeColumns(
  query: (text: string, values: unknown[]) => Promise<unknown>,
  tables: StoreTables,
  rows: readonly StoredLine[],
): Promise<void> {
  const columns = rows.map((row) => runLineSearchColumns(decode(row.json)));
  await query(
    `UPDATE ${tables.runRecords} l SET type = v.type, ts_ms = v.ts_ms, search_vector = v.vector::tsvector
FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[]) AS v(run_id, seq, type, ts_ms, vector)
WHERE l.run_id = v.run_id AND l.seq = v.seq`,
    [
      rows.map((row) => row.run_id),
      rows.map((row) => row.seq),
      columns.map((column) => column.type),
      columns.map((column) => column.tsMs),
      columns.map((column) => column.vector),
    ],
  );
}

/** Sets the `scope` of every run from its stored header, in batches of run id. */
export async function indexStoredRunScopes(
  client: SlowQueries,
  tables: StoreTables,
): Promise<number> {
  let after = '';
  let total = 0;
  for (;;) {
    const { rows } = await client.query<{ run_id: string; header_json: Buffer }>(
      `SELECT run_id, header_json FROM ${tables.runs} WHERE run_id > $1 ORDER BY run_id LIMIT ${REINDEX_BATCH}`,
      [after],
    );
    if (rows.length === 0) return total;
    await client.query(
      `UPDATE ${tables.runs} r SET scope = v.scope FROM unnest($1::text[], $2::text[]) AS v(run_id, scope) WHERE r.run_id = v.run_id`,
      [
        rows.map((row) => row.run_id),
        rows.map((row) => scopeOfHeaderLine(decode(row.header_json))),
      ],
    );
    total += rows.length;
    after = rows[rows.length - 1]?.run_id ?? after;
  }
}

/** The next `REINDEX_BATCH` lines after a key, locked for the transaction. */
const linesAfter = (tables: StoreTables) =>
  `SELECT run_id, seq, json FROM ${tables.runRecords} WHERE (run_id, seq) > ($1, $2) ORDER BY run_id, seq LIMIT ${REINDEX_BATCH} FOR UPDATE`;

/**
 * Recomputes the search columns of every stored line and the scope of every run from the stored
 * bytes (core's text), in transactions of 1,000 lines that lock the lines they rewrite (a
 * redaction meanwhile waits, then wins). For lines another tool wrote into the table (found by
 * no search until then), or after a change of core's tokenization. Returns the lines indexed.
 */
export function rebuildPostgresRunSearchIndex(database: PostgresDatabase): Promise<number> {
  const { tables } = database;
  return database.guard('rebuild the run search index', async () => {
    await database.transaction((client) => indexStoredRunScopes(client, tables));
    let after: readonly [string, string] = ['', '0'];
    return reindexInBatches(database, async (client) => {
      const rows = (await database.query<StoredLine>(linesAfter(tables), after, client)).rows;
      const last = rows[rows.length - 1];
      if (last === undefined) return 0;
      await writeColumns((text, values) => database.query(text, values, client), tables, rows);
      after = [last.run_id, last.seq];
      return rows.length;
    });
  });
}

/**
 * Migration 7's data step, after its transaction: the lines stored before it get their search
 * columns in transactions of 1,000, each moving the key kept in `episodic_run_search_backfill`
 * (whose row is locked for the batch, so processes opening the store at once take turns). A
 * process that stops midway leaves the key: the next store opened on the schema goes on from
 * there. The row goes when every line is indexed; with no row this is one read.
 */
export async function finishRunSearchBackfill(database: PostgresDatabase): Promise<number> {
  const { tables } = database;
  const pending = await database.query(`SELECT 1 FROM ${tables.runSearchBackfill}`);
  if (pending.rowCount === 0) return 0;
  return reindexInBatches(database, async (client) => {
    const key = (
      await database.query<{ run_id: string; seq: string }>(
        `SELECT run_id, seq FROM ${tables.runSearchBackfill} FOR UPDATE`,
        [],
        client,
      )
    ).rows[0];
    if (key === undefined) return 0;
    const rows = (
      await database.query<StoredLine>(linesAfter(tables), [key.run_id, key.seq], client)
    ).rows;
    const last = rows[rows.length - 1];
    if (last !== undefined)
      await writeColumns((text, values) => database.query(text, values, client), tables, rows);
    if (last === undefined || rows.length < REINDEX_BATCH)
      await database.query(`DELETE FROM ${tables.runSearchBackfill}`, [], client);
    else
      await database.query(
        `UPDATE ${tables.runSearchBackfill} SET run_id = $1, seq = $2`,
        [last.run_id, last.seq],
        client,
      );
    return rows.length;
  });
}
