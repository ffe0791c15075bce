import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreHarness } from '@episodic/core/testing';
import { startWorker } from '../../../../test-support/worker-process.js';
import { buildWorker } from '../../test/reliability/build-worker.js';
import { rebuildSqliteSearchIndex } from '../sqlite-ledger.js';
import { nodeChainCrypto } from '../sqlite-ledger-chain.js';
import { rebuildSqliteRunSearchIndex } from '../sqlite-run-search.js';
import { createSqliteStore } from '../sqlite-store.js';

/** The bundled child of the cross-process cases, built once per test file. */
let child: Promise<string> | undefined;

/**
 * A conformance harness over a fresh SQLite store in a temporary directory, its ledger chained
 * (`chain: true`; the unchained ledger is what the package's own tests cover). Its damage hooks
 * write straight into the tables; `runInChild` opens the same database in a real child process.
 */
export function createSqliteHarness(): StoreHarness {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-sqlite-'));
  const filename = join(directory, 'episodic.db');
  const store = createSqliteStore({ filename, chain: true });
  // The same file through a second connection with chaining off: an Episodic before chaining.
  let unchained: ReturnType<typeof createSqliteStore> | undefined;
  const database = store.database;
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  // Raw damage is written straight into the tables: each stored row is one line of a run file.
  const writeLines = (runId: string, text: string, replace: boolean) => {
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    database.transaction(() => {
      if (replace) {
        database.prepare('DELETE FROM episodic_run_records WHERE run_id = ?').run(runId);
        database
          .prepare('UPDATE episodic_runs SET header_json = ?, record_count = 0 WHERE run_id = ?')
          .run(lines[0] ?? '', runId);
      }
      for (const line of lines) {
        const { record_count: seq } = database
          .prepare(
            'UPDATE episodic_runs SET record_count = record_count + 1 WHERE run_id = ? RETURNING record_count',
          )
          .get(runId) as { record_count: number };
        database
          .prepare('INSERT INTO episodic_run_records (run_id, seq, json) VALUES (?, ?, ?)')
          .run(runId, seq, line);
      }
    })();
  };
  return {
    ledger: store.ledger,
    get unchainedLedger() {
      unchained ??= createSqliteStore({ filename });
      return unchained.ledger;
    },
    chainSha256: nodeChainCrypto().sha256,
    sessions: store.sessions,
    runs: store.runs,
    artifacts: store.artifacts,
    damage: {
      changeLedgerRow: async (eventId, change) => {
        if (change === 'delete')
          database.prepare('DELETE FROM episodic_events WHERE event_id = ?').run(eventId);
        else if ('session_id' in change)
          database
            .prepare('UPDATE episodic_events SET session_id = ? WHERE event_id = ?')
            .run(change.session_id, eventId);
        else
          database
            .prepare('UPDATE episodic_events SET summary = ? WHERE event_id = ?')
            .run(change.summary, eventId);
      },
      // openclaw-mem's own INSERT: its column list, no position (the schema 5 trigger numbers it).
      insertForeignLedgerRow: async (row) => {
        database
          .prepare(
            `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at)
             VALUES (?, ?, ?, ?, 'openclaw', 'conversation.user', ?, NULL, NULL, 0, 'v0', '2026-01-01T00:00:00Z')`,
          )
          .run(row.event_id, row.ts_ms, row.scope, row.session_id, row.summary);
      },
      appendRawToRun: async (runId, bytes) => writeLines(runId.toLowerCase(), decode(bytes), false),
      replaceRawRun: async (runId, bytes) => writeLines(runId.toLowerCase(), decode(bytes), true),
      writeRawSnapshot: async (sessionId, bytes) => {
        // The bytes as the base's only chunk row, whatever they are.
        database.transaction(() => {
          database
            .prepare(
              `INSERT INTO episodic_sessions (session_id, revision, updated_at, run_id, message_count)
               VALUES (?, 0, '', NULL, 0) ON CONFLICT (session_id) DO UPDATE SET
               revision = 0, updated_at = '', run_id = NULL, message_count = 0`,
            )
            .run(sessionId);
          database
            .prepare('DELETE FROM episodic_session_base_chunks WHERE session_id = ?')
            .run(sessionId);
          database
            .prepare('INSERT INTO episodic_session_base_chunks VALUES (?, 0, 1, ?)')
            .run(sessionId, decode(bytes));
        })();
      },
    },
    rebuildSearchIndex: async () => {
      rebuildSqliteSearchIndex(database);
    },
    rebuildRunSearchIndex: async () => {
      rebuildSqliteRunSearchIndex(database);
    },
    runInChild: async (task) => {
      child ??= buildWorker('conformance-child');
      const worker = startWorker(await child, [JSON.stringify({ filename, task, chain: true })]);
      const { code, stderr } = await worker.exited;
      if (code !== 0) throw new Error(`conformance child exited with ${code}: ${stderr}`);
      return JSON.parse(worker.lines.at(-1) as string);
    },
    close: async () => {
      await unchained?.close();
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
