// Guarantee: a frozen PostgreSQL server (every process stopped with SIGSTOP: connections stay
// open, nothing answers) turns every call into STORAGE_ERROR within the configured timeouts (an
// in-flight statement, a transaction, a call that needs a new connection), and after SIGCONT the
// same store's next call succeeds: the broken connections were discarded. A server that answers but
// runs a statement too long (a row lock held by another client) cancels it (statement_timeout).
// Source: issue 29 ("with the server frozen for 40 s, an in-flight ledger.append blocks the whole
// 40 s; only connecting has a timeout"). The timeouts here are small (seconds) and given in the URL,
// as the CLI and the MCP server pass them; the test asserts errors, never durations. It starts a
// server of its own: freezing the shared one would stall the other test files.
import { EpisodicError } from '@episodic/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestPostgres,
  type TestPostgresServer,
} from '../../../../test-support/postgres-server.js';
import { createPostgresStore, type PostgresStore } from '../../src/postgres-store.js';
import { uniqueSchema, withClient } from '../postgres-test-schema.js';

const PASSWORD = 'frozen-test-secret-Pw7';
let server: TestPostgresServer;
beforeAll(async () => {
  server = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  server?.thaw();
  await server?.destroy();
});

const event = (summary: string, eventId?: string) => ({
  scope: 'frozen',
  session_id: 'frozen-session',
  agent_id: 'agent',
  type: 'conversation.user' as const,
  summary,
  ...(eventId === undefined ? {} : { event_id: eventId }),
});

/** The error a call ended with (it must end: a hung call fails the test by its own timeout). */
async function failure(call: Promise<unknown>): Promise<EpisodicError> {
  try {
    await call;
  } catch (error) {
    expect(EpisodicError.isInstance(error), String(error)).toBe(true);
    return error as EpisodicError;
  }
  throw new Error('the call succeeded against a frozen server');
}

/** Waits until the server answers a plain client again (SIGCONT, then its own catching up). */
async function answering(url: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; ; ) {
    try {
      await withClient(url, (client) => client.query('SELECT 1'));
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('a frozen PostgreSQL server', () => {
  it('ends every call with STORAGE_ERROR; after SIGCONT the next call succeeds', async () => {
    const schema = uniqueSchema('frozen');
    // Timeouts from the URL (what `--db` / $EPISODIC_DB carry), seconds-long so a loaded machine
    // does not trip them while the server is running.
    const url = `${server.url.replace('postgres@', `postgres:${PASSWORD}@`)}?statement_timeout=2000&query_timeout=3000&connect_timeout=3`;
    const store: PostgresStore = await createPostgresStore({
      connectionString: url,
      schema,
      poolSize: 2,
    });
    const errors: EpisodicError[] = [];
    try {
      // Two idle connections in the pool: the first calls below find one each.
      await Promise.all([
        store.ledger.append(event('before 1')),
        store.ledger.query({ scope: 'frozen' }),
      ]);
      expect(store.pool.totalCount).toBe(2);

      server.freeze();
      try {
        // An append: one statement on a pooled connection, sent and never answered.
        const append = await failure(store.ledger.append(event('while frozen', 'frozen-1')));
        expect(append.code).toBe('STORAGE_ERROR');
        expect(append.details?.timeout).toBe('query');
        errors.push(append);
        // A compare-and-append: a transaction, whose BEGIN is never answered.
        const guarded = await failure(
          store.ledger.append(event('guarded while frozen', 'frozen-2'), { expectedPosition: 1 }),
        );
        expect(guarded.code).toBe('STORAGE_ERROR');
        errors.push(guarded);
        // Both connections were discarded: a read needs a new one, which the frozen server never
        // finishes opening.
        expect(store.pool.totalCount).toBe(0);
        const read = await failure(store.ledger.query({ scope: 'frozen' }));
        expect(read.code).toBe('STORAGE_ERROR');
        expect(read.details?.timeout).toBe('connection');
        errors.push(read);
        // Several at once, more than the pool holds: each ends.
        const together = await Promise.all(
          [1, 2, 3].map((index) => failure(store.ledger.append(event(`burst ${index}`)))),
        );
        for (const error of together) expect(error.code).toBe('STORAGE_ERROR');
        errors.push(...together);
      } finally {
        server.thaw();
      }
      await answering(server.url);

      // The same store, the next call: a new connection, and it succeeds.
      const after = await store.ledger.append(event('after'));
      expect(after.duplicate).toBe(false);
      // The interrupted appends may or may not have landed (the server read them after SIGCONT):
      // retried with the same event ids, each is stored once.
      await store.ledger.append(event('while frozen', 'frozen-1'));
      const page = await store.ledger.query({ scope: 'frozen', sessionId: 'frozen-session' });
      const summaries = page.events.map((stored) => stored.summary);
      expect(summaries.filter((summary) => summary === 'while frozen')).toHaveLength(1);
      expect(summaries).toContain('after');
      const positions = page.events.map((stored) => stored.position);
      expect(positions).toEqual(positions.map((_, index) => index + 1));
      for (const error of errors) {
        expect(error.message).not.toContain(PASSWORD);
        expect(JSON.stringify(error.toJSON())).not.toContain(PASSWORD);
      }
      console.log(
        `[figures] postgres frozen server (SIGSTOP): ${errors.length} calls, ${errors.length} STORAGE_ERRORs (${errors.map((error) => error.details?.timeout).join(', ')}); after SIGCONT the next call succeeded; e.g. ${JSON.stringify(errors[0]?.message)}`,
      );
    } finally {
      server.thaw();
      await store.close();
      await withClient(server.url, (client) =>
        client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`),
      );
    }
  }, 180_000);

  it('a statement past statement_timeout is cancelled by the server; the next call succeeds', async () => {
    const schema = uniqueSchema('slow');
    // A short server-side limit and a long client-side one: the server's cancellation comes first.
    const store = await createPostgresStore({
      connectionString: server.url,
      schema,
      poolSize: 1,
      statementTimeoutMs: 1000,
      queryTimeoutMs: 60_000,
    });
    try {
      await store.ledger.append(event('first'));
      await withClient(server.url, async (client) => {
        // Another client holds the session's head row: the next append waits for it.
        await client.query('BEGIN');
        await client.query(
          `SELECT position FROM "${schema}".episodic_session_heads WHERE session_id = 'frozen-session' FOR UPDATE`,
        );
        const error = await failure(store.ledger.append(event('blocked')));
        expect(error.code).toBe('STORAGE_ERROR');
        expect(error.details?.timeout).toBe('statement');
        expect(error.details?.backendCode).toBe('57014');
        await client.query('ROLLBACK');
      });
      await store.ledger.append(event('second'));
      const page = await store.ledger.query({ scope: 'frozen' });
      expect(page.events.map((stored) => stored.summary)).toEqual(['first', 'second']);
    } finally {
      await store.close();
      await withClient(server.url, (client) =>
        client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`),
      );
    }
  }, 120_000);
});
