import type { StoreHarness } from '@episodic/core/testing';
import { startWorker } from '../../../../test-support/worker-process.js';
import { dropSchema, testPostgresUrl, uniqueSchema } from '../../test/postgres-test-schema.js';
import { buildWorker } from '../../test/reliability/build-worker.js';
import { createPostgresStore } from '../postgres-store.js';

/** The bundled child of the cross-process cases, built once per test file. */
let child: Promise<string> | undefined;

/**
 * A conformance harness over a fresh PostgreSQL store in a schema of its own on the test server
 * (dropped by `close`). Its damage hooks write straight into the tables; `runInChild` opens the
 * same schema in a real child process with its own pool.
 */
export async function createPostgresHarness(): Promise<StoreHarness> {
  const url = testPostgresUrl();
  const schema = uniqueSchema('conformance');
  const store = await createPostgresStore({ connectionString: url, schema, poolSize: 4 });
  const { pool } = store;
  const table = (name: string) => `"${schema}".${name}`;
  // Raw damage is written straight into the tables: each stored row is one line of a run file.
  const writeLines = async (runId: string, bytes: Uint8Array, replace: boolean) => {
    const buffer = Buffer.from(bytes);
    const lines: Buffer[] = [];
    for (let start = 0; start <= buffer.length; ) {
      let end = buffer.indexOf(0x0a, start);
      if (end === -1) end = buffer.length;
      lines.push(buffer.subarray(start, end));
      start = end + 1;
    }
    if (lines.at(-1)?.length === 0) lines.pop();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      if (replace) {
        await client.query(`DELETE FROM ${table('episodic_run_records')} WHERE run_id = $1`, [
          runId,
        ]);
        await client.query(
          `UPDATE ${table('episodic_runs')} SET header_json = $2, record_count = 0 WHERE run_id = $1`,
          [runId, lines[0] ?? Buffer.alloc(0)],
        );
      }
      for (const line of lines) {
        const { rows } = await client.query(
          `UPDATE ${table('episodic_runs')} SET record_count = record_count + 1 WHERE run_id = $1 RETURNING record_count`,
          [runId],
        );
        await client.query(
          `INSERT INTO ${table('episodic_run_records')} (run_id, seq, json) VALUES ($1, $2, $3)`,
          [runId, rows[0].record_count, line],
        );
      }
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  };
  return {
    ledger: store.ledger,
    sessions: store.sessions,
    runs: store.runs,
    artifacts: store.artifacts,
    damage: {
      appendRawToRun: (runId, bytes) => writeLines(runId.toLowerCase(), bytes, false),
      replaceRawRun: (runId, bytes) => writeLines(runId.toLowerCase(), bytes, true),
      writeRawSnapshot: async (sessionId, bytes) => {
        // The base row as a damaged write would leave it: unreadable text, no summary.
        await pool.query(
          `INSERT INTO ${table('episodic_sessions')} (session_id, revision, updated_at, run_id, message_count, state_json)
           VALUES ($1, 0, '', NULL, 0, $2) ON CONFLICT (session_id) DO UPDATE SET state_json = excluded.state_json,
           revision = 0, updated_at = '', run_id = NULL, message_count = 0, episode_count = NULL,
           last_user_message = NULL`,
          [sessionId, new TextDecoder().decode(bytes)],
        );
      },
    },
    rebuildSearchIndex: async () => {
      // The index as the record would give it again: every vector dropped, then recomputed.
      await pool.query(`UPDATE ${table('episodic_events')} SET search_vector = NULL`);
      await store.rebuildSearchIndex();
    },
    rebuildRunSearchIndex: async () => {
      // The run index as the record would give it again: every line's columns and every run's
      // scope dropped, then recomputed.
      await pool.query(
        `UPDATE ${table('episodic_run_records')} SET type = NULL, ts_ms = NULL, search_vector = NULL`,
      );
      await pool.query(`UPDATE ${table('episodic_runs')} SET scope = NULL`);
      await store.rebuildRunSearchIndex();
    },
    runInChild: async (task) => {
      child ??= buildWorker('conformance-child');
      const worker = startWorker(await child, [JSON.stringify({ url, schema, task })]);
      const { code, stderr } = await worker.exited;
      if (code !== 0) throw new Error(`conformance child exited with ${code}: ${stderr}`);
      return JSON.parse(worker.lines.at(-1) as string);
    },
    close: async () => {
      await store.close();
      await dropSchema(url, schema);
    },
  };
}
