// Guarantee: "kill -9 during session commits and delta folding → the last acknowledged revision
// loads; 0 unreadable, 0 older, 0 mixed" (QUALITY.md reliability table, issue 15), on
// PostgreSQL: a real child process with its own pool runs turns on one session (a delta row per
// commit, a fold every 1–5 commits) and is killed at random. After each kill, the stored rows are
// checked too: the sizes row's revision is the loaded one, and the delta rows continue the base
// without a gap. RELIABILITY_FULL=1 runs 400 kills.
import { createSession, loadSession, type SessionStore } from '@episodic/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killCommitters } from '../../../../test-support/session-commit-kills.js';
import type { SessionApi } from '../../../../test-support/session-commit-steps.js';
import { createPostgresStore, type PostgresStore } from '../../src/postgres-store.js';
import { connectionsGone, FULL, useWorkers } from './worker-setup.js';

const KILLS = FULL ? 400 : 30;
const SESSION_ID = '5e6f7081-92a3-4c4d-9e5f-60718293a4b5';
const api = { createSession, loadSession } as unknown as SessionApi<SessionStore>;
const workers = useWorkers('session_kill');
let store: PostgresStore;
beforeAll(async () => {
  store = await createPostgresStore({ connectionString: workers.url(), schema: workers.schema });
});
afterAll(() => store.close());

describe('session committer killed mid-commit and mid-fold (PostgreSQL)', () => {
  it(`survives ${KILLS} kills: the last acknowledged revision or a newer one loads, never a mix`, async () => {
    const table = (name: string) => `"${workers.schema}".${name}`;
    const { lastRevision, foldsSeen } = await killCommitters({
      kills: KILLS,
      api,
      sessionId: SESSION_ID,
      start: (foldEvery) => workers.worker('session-commit', [SESSION_ID, String(foldEvery)]),
      afterKill: connectionsGone,
      async inspect(round) {
        const { revision, baseRevision } = await round(store.sessions);
        const sizes = await store.pool.query(
          `SELECT revision::integer AS revision, delta_count::integer AS deltas FROM ${table('episodic_session_sizes')} WHERE session_id = $1`,
          [SESSION_ID],
        );
        const deltas = await store.pool.query(
          `SELECT revision::integer AS revision FROM ${table('episodic_session_deltas')} WHERE session_id = $1 ORDER BY revision`,
          [SESSION_ID],
        );
        expect(sizes.rows[0]).toEqual({ revision, deltas: deltas.rowCount });
        expect(deltas.rows.map((row) => row.revision)).toEqual(
          Array.from({ length: revision - baseRevision }, (_, index) => baseRevision + index + 1),
        );
      },
    });
    console.log(
      `[figures] session kill -9 (postgres): ${KILLS} kills during commits and folds, 0 unreadable, 0 older, 0 mixed, sizes row and delta rows consistent; last revision ${lastRevision}; base moved by a fold between ${foldsSeen} kills`,
    );
  }, 900_000);
});
