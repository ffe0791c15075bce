import {
  assertExpectedRunHeader,
  assertExpectedRunPosition,
  createKeyedQueue,
  createRunReadCollector,
  createRunTailCollector,
  idPrefixRange,
  planRunAppend,
  type RunHeader,
  type RunReadAfterResult,
  type RunRecordEntry,
  type RunRedactStats,
  type RunStoreAdapter,
} from '@episodic/core/adapter';
import type pg from 'pg';
import type { PostgresDatabase } from './postgres-database.js';
import {
  runLineSearchColumns,
  scopeOfHeaderLine,
  searchPostgresRuns,
} from './postgres-run-search.js';
import type { Scrubber } from './scrub.js';

const decoder = new TextDecoder();
const decode = (bytes: Buffer) => decoder.decode(bytes);
const encode = (text: string) => Buffer.from(text, 'utf8');

interface LineRow {
  seq: string | number;
  json: Buffer;
}

/**
 * The run store adapter over `episodic_runs` and `episodic_run_records`: each record is kept as the
 * exact bytes of its JSON line (one row per line of a run file) and read back through core's
 * tolerant reader. An append locks the run's row (`SELECT … FOR UPDATE`) for its transaction, so
 * appends from any number of processes and machines are serialized per run, and a
 * compare-and-append checks the position under that lock. Reads are one statement: one snapshot.
 */
export function createPostgresRunStoreAdapter(
  database: PostgresDatabase,
  scrubber: Scrubber,
): RunStoreAdapter {
  const { tables } = database;
  const lockRun = database.statement(
    'runs_lock',
    `SELECT header_json, record_count FROM ${tables.runs} WHERE run_id = $1 FOR UPDATE`,
  );
  const createRun = database.statement(
    'runs_create',
    `INSERT INTO ${tables.runs} (run_id, header_json, session_id, scope, record_count) VALUES ($1, $2, $3, $4, 0) ON CONFLICT (run_id) DO NOTHING`,
  );
  const bump = database.statement(
    'runs_bump',
    `UPDATE ${tables.runs} SET record_count = record_count + $2 WHERE run_id = $1`,
  );
  // Each line with its search columns (core's text of the line, as tsvector input): the index
  // is written by the append's own statement.
  const insertRecords = database.statement(
    'runs_insert_records',
    `INSERT INTO ${tables.runRecords} (run_id, seq, json, type, ts_ms, search_vector) SELECT $1, $2::bigint + r.ord, r.json, r.type, r.ts_ms, r.vector::tsvector FROM unnest($3::bytea[], $4::text[], $5::bigint[], $6::text[]) WITH ORDINALITY AS r(json, type, ts_ms, vector, ord)`,
  );
  const readAll = database.statement(
    'runs_read',
    `SELECT r.record_count, l.seq, l.json FROM ${tables.runs} r LEFT JOIN ${tables.runRecords} l ON l.run_id = r.run_id WHERE r.run_id = $1 ORDER BY l.seq`,
  );
  const readFrom = database.statement(
    'runs_read_after',
    // The run's row first (its count and header, once), then the records after the position:
    // one statement, so one snapshot.
    `SELECT record_count, header_json, NULL::bigint AS seq, NULL::bytea AS json FROM ${tables.runs} WHERE run_id = $1 UNION ALL SELECT NULL, NULL, seq, json FROM ${tables.runRecords} WHERE run_id = $1 AND seq > $2 ORDER BY seq NULLS FIRST`,
  );
  const exists = database.statement(
    'runs_exists',
    `SELECT 1 FROM ${tables.runs} WHERE run_id = $1`,
  );
  const fromEnd = database.statement(
    'runs_from_end',
    `SELECT seq, json FROM ${tables.runRecords} WHERE run_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`,
  );
  const listAll = database.statement('runs_list', `SELECT run_id, header_json FROM ${tables.runs}`);
  // A range on the primary key (COLLATE "C", see idPrefixRange): an index scan, not a table scan.
  const runIdRange = database.statement(
    'runs_id_range',
    `SELECT run_id FROM ${tables.runs} WHERE run_id >= $1 AND run_id < $2 ORDER BY run_id LIMIT $3`,
  );
  const listSession = database.statement(
    'runs_list_session',
    `SELECT run_id, header_json FROM ${tables.runs} WHERE lower(session_id) = $1`,
  );
  // Given run ids: primary key lookups, whatever the table's size (a scoped store's check).
  const listIds = database.statement(
    'runs_list_ids',
    `SELECT run_id, header_json FROM ${tables.runs} WHERE run_id = ANY($1::text[])`,
  );
  const deleteRecords = database.statement(
    'runs_delete_records',
    `DELETE FROM ${tables.runRecords} WHERE run_id = $1`,
  );
  const deleteRun = database.statement(
    'runs_delete',
    `DELETE FROM ${tables.runs} WHERE run_id = $1`,
  );
  const allLines = database.statement(
    'runs_all_lines',
    `SELECT seq, json FROM ${tables.runRecords} WHERE run_id = $1 ORDER BY seq`,
  );
  const updateLine = database.statement(
    'runs_update_line',
    // The redacted line's search columns in the same UPDATE: its old words leave the index with it.
    `UPDATE ${tables.runRecords} SET json = $3, type = $4, ts_ms = $5, search_vector = $6::tsvector WHERE run_id = $1 AND seq = $2`,
  );
  const updateHeader = database.statement(
    'runs_update_header',
    `UPDATE ${tables.runs} SET header_json = $2, scope = $3 WHERE run_id = $1`,
  );

  const queue = createKeyedQueue();
  const append = (
    runId: string,
    entries: readonly RunRecordEntry[],
    expectedPosition?: number,
    expectedHeaderLine?: string,
  ) => queue.run(runId, () => appendNow(runId, entries, expectedPosition, expectedHeaderLine));
  const appendNow = (
    runId: string,
    entries: readonly RunRecordEntry[],
    expectedPosition?: number,
    expectedHeaderLine?: string,
  ) =>
    database.transaction(async (client) => {
      const lock = () =>
        database.query<{ header_json: Buffer; record_count: string }>(lockRun, [runId], client);
      let locked = (await lock()).rows[0];
      const first = entries[0];
      if (locked === undefined && first?.record.type === 'header') {
        // A new run: create its row (another process may be creating it too), then lock it.
        const sessionId = (first.record as RunHeader).session_id;
        await database.query(
          createRun,
          [
            runId,
            encode(first.json),
            typeof sessionId === 'string' ? sessionId : null,
            scopeOfHeaderLine(first.json),
          ],
          client,
        );
        locked = (await lock()).rows[0];
      }
      const position = locked === undefined ? 0 : Number(locked.record_count);
      if (expectedPosition !== undefined) {
        // Under the row lock: the header checked is the one the records are appended to.
        const storedLine = locked === undefined ? undefined : decode(locked.header_json);
        assertExpectedRunHeader(runId, storedLine, expectedHeaderLine);
        assertExpectedRunPosition(runId, position, expectedPosition);
      }
      // A run row without a record is one this transaction just created: the run is new.
      const stored =
        locked === undefined || position === 0 ? undefined : decode(locked.header_json);
      const toWrite = planRunAppend(runId, stored, entries);
      if (toWrite.length === 0) return { appended: 0, position };
      const columns = toWrite.map((entry) => runLineSearchColumns(entry.json));
      await database.query(
        insertRecords,
        [
          runId,
          position,
          toWrite.map((entry) => encode(entry.json)),
          columns.map((column) => column.type),
          columns.map((column) => column.tsMs),
          columns.map((column) => column.vector),
        ],
        client,
      );
      await database.query(bump, [runId, toWrite.length], client);
      return { appended: toWrite.length, position: position + toWrite.length };
    });

  const lines = async (runId: string, after?: number) => {
    const result = await database.query<{
      record_count: string;
      header_json?: Buffer | null;
      seq: string | null;
      json: Buffer | null;
    }>(after === undefined ? readAll : readFrom, after === undefined ? [runId] : [runId, after]);
    const first = result.rows[0];
    if (first === undefined) return null;
    const headerLine = first.header_json == null ? undefined : decode(first.header_json);
    return { end: Number(first.record_count), rows: result.rows, headerLine };
  };

  return {
    specificationVersion: 'v1',
    name: 'postgres',
    capabilities: {
      crossProcessAppends: true,
      durability: 'always',
      toolOutputCache: false,
      redaction: true,
      headerLine: true,
      search: true,
    },
    append(runId, entries) {
      return database.guard(
        `append to run ${runId}`,
        async () => (await append(runId, entries)).appended,
      );
    },
    appendAt(runId, entries, expectedPosition, expectedHeaderLine) {
      return database.guard(`append to run ${runId}`, () =>
        append(runId, entries, expectedPosition, expectedHeaderLine),
      );
    },
    read(runId) {
      return database.guard(`read run ${runId}`, async () => {
        const read = await lines(runId);
        if (read === null) return null;
        const collector = createRunReadCollector(runId);
        for (const row of read.rows) {
          if (row.json !== null) collector.line(decode(row.json), Number(row.seq));
        }
        return { ...collector.result(), position: read.end };
      });
    },
    readAfter(runId, position) {
      return database.guard(`read run ${runId}`, async () => {
        const read = await lines(runId, position);
        if (read === null) return null;
        const collector = createRunReadCollector(runId, position, read.end);
        for (const row of read.rows) {
          if (row.json !== null) collector.line(decode(row.json), Number(row.seq));
        }
        const result: RunReadAfterResult = { ...collector.resultAfter(), position: read.end };
        if (read.headerLine !== undefined) result.headerLine = read.headerLine;
        return result;
      });
    },
    tail(runId, count) {
      return database.guard(`read run ${runId}`, async () => {
        if ((await database.query(exists, [runId])).rowCount === 0) return null;
        const collector = createRunTailCollector(runId, count);
        // Pages from the end until enough readable records are collected.
        let before = Number.MAX_SAFE_INTEGER;
        const page = Math.max(count, 16);
        for (;;) {
          const rows = (await database.query<LineRow>(fromEnd, [runId, before, page])).rows;
          for (const row of rows) {
            const seq = Number(row.seq);
            if (collector.lineFromEnd(decode(row.json), seq === 1, { line: seq })) {
              return collector.result();
            }
            before = seq;
          }
          if (rows.length < page) return collector.result();
        }
      });
    },
    search(plan) {
      return database.guard('search the runs', () => searchPostgresRuns(database, plan));
    },
    runIdsWithPrefix(prefix, limit) {
      const { from, to } = idPrefixRange(prefix);
      return database.guard('find runs by id prefix', async () =>
        (await database.query<{ run_id: string }>(runIdRange, [from, to, limit])).rows.map(
          (row) => row.run_id,
        ),
      );
    },
    list(filter) {
      return database.guard('list runs', async () => {
        const rows = (
          await database.query<{ run_id: string; header_json: Buffer }>(
            ...((filter.runIds !== undefined
              ? [listIds, [[...filter.runIds]]]
              : filter.sessionId === undefined
                ? [listAll, []]
                : [listSession, [filter.sessionId]]) as [typeof listAll, unknown[]]),
          )
        ).rows;
        return {
          rows: rows.map((row) => ({ runId: row.run_id, header: decode(row.header_json) })),
        };
      });
    },
    delete(runId) {
      return database.guard(`delete run ${runId}`, () =>
        database.transaction(async (client) => {
          // Under the run's lock: an append in flight finishes first, and none lands after.
          await database.query(lockRun, [runId], client);
          await database.query(deleteRecords, [runId], client);
          return ((await database.query(deleteRun, [runId], client)).rowCount ?? 0) > 0;
        }),
      );
    },
    redact(runId, redactor) {
      return database.guard(`redact run ${runId}`, async () => {
        const stats = await database.transaction(
          async (client: pg.PoolClient): Promise<RunRedactStats | null> => {
            // The run's row lock holds appends back while its lines are rewritten.
            const locked = (await database.query<{ header_json: Buffer }>(lockRun, [runId], client))
              .rows[0];
            if (locked === undefined) return null;
            const storedHeader = decode(locked.header_json);
            const stats: RunRedactStats = { changedLines: 0, changedToolOutputs: 0 };
            const rows = (await database.query<LineRow>(allLines, [runId], client)).rows;
            let nextHeader = storedHeader;
            let headerAmongLines = false;
            for (const row of rows) {
              const text = decode(row.json);
              const next = redactor.line(text);
              // The header is stored twice (its record row and header_json): redacted alike.
              if (text === storedHeader) {
                headerAmongLines = true;
                nextHeader = next;
              }
              if (next === text) continue;
              const columns = runLineSearchColumns(next);
              await database.query(
                updateLine,
                [runId, row.seq, encode(next), columns.type, columns.tsMs, columns.vector],
                client,
              );
              stats.changedLines++;
            }
            if (!headerAmongLines) nextHeader = redactor.line(storedHeader);
            if (nextHeader !== storedHeader) {
              await database.query(
                updateHeader,
                [runId, encode(nextHeader), scopeOfHeaderLine(nextHeader)],
                client,
              );
            }
            return stats;
          },
        );
        if (stats !== null && stats.changedLines > 0) {
          await scrubber.scrub([tables.runRecords, tables.runs]);
        }
        return stats;
      });
    },
  };
}
