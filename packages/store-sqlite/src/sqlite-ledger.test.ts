import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idPrefixRange, type LedgerQueryPlan } from '@episodic/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from './open-database.js';
import { buildEventIdPrefixQuery, buildLedgerQuery } from './sqlite-ledger.js';
import { nodeChainCrypto } from './sqlite-ledger-chain.js';
import { createSqliteStore } from './sqlite-store.js';

const { sha256: sha256Of } = nodeChainCrypto();
const directories: string[] = [];
function temporaryFile(name: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-ledger-'));
  directories.push(directory);
  return join(directory, name);
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function planOf(plan: LedgerQueryPlan): string[] {
  const database = openSqliteDatabase(':memory:');
  const { sql, parameters } = buildLedgerQuery(plan);
  const rows = database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{
    detail: string;
  }>;
  database.close();
  return rows.map((row) => row.detail);
}

describe('ledger query plans (EXPLAIN QUERY PLAN)', () => {
  it('finds event ids by prefix through the unique event id index, in scope or not, never a scan of the scope', () => {
    const database = openSqliteDatabase(':memory:');
    // A scope of many events and few ids in the range: the planner must still take the id range.
    const insert = database.prepare(
      `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, schema_version, created_at)
       VALUES (?, 1, 'a', 's', 'x', 'tool.call', 'e', 'v1', 'now')`,
    );
    for (let index = 0; index < 2000; index++) insert.run(`evt-${index}`);
    // No ANALYZE (a fresh home has none): the planner's default would read the whole scope.
    for (const scope of [null, 'a']) {
      const { sql, parameters } = buildEventIdPrefixQuery(scope, idPrefixRange('evt-12'), 101);
      const details = (
        database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{
          detail: string;
        }>
      ).map((row) => row.detail);
      expect(details.join('\n')).toMatch(
        /^SEARCH episodic_events USING (COVERING )?INDEX uq_episodic_event_id \(event_id>\? AND event_id<\?\)$/,
      );
      expect(details).toHaveLength(1);
      expect(
        (
          database
            .prepare(sql)
            .pluck()
            .all(...parameters) as string[]
        ).slice(0, 3),
      ).toEqual(['evt-12', 'evt-120', 'evt-1200']);
    }
    database.close();
  });

  it('reads several types through the (scope, type, ts_ms) index, one range per type, never a scan', () => {
    const details = planOf({
      scope: 'a',
      types: ['ops.alert', 'tool.call', 'tool.result'],
      fromTsMs: 1,
      toTsMs: 2,
      after: { tsMs: 1, sequence: 5 },
      limit: 51,
      includePayload: false,
    });
    const searches = details.filter((detail) =>
      detail.includes('USING INDEX idx_episodic_scope_type_ts'),
    );
    expect(searches, details.join('\n')).toHaveLength(3);
    expect(
      details.some((detail) => /^SCAN episodic_events/.test(detail)),
      details.join('\n'),
    ).toBe(false);
    expect(
      details.some((detail) => detail.includes('TEMP B-TREE')),
      details.join('\n'),
    ).toBe(false);
  });

  it('reads a scope through (scope, ts_ms) and a session through (session_id, ts_ms), without sorting', () => {
    const scope = planOf({ scope: 'a', limit: 51, includePayload: true });
    expect(scope.join('\n')).toContain(
      'SEARCH episodic_events USING INDEX idx_episodic_scope_ts (scope=?)',
    );
    expect(scope.join('\n')).not.toContain('TEMP B-TREE');
    const session = planOf({
      scope: 'a',
      sessionId: 's',
      types: ['tool.call', 'tool.result'],
      limit: 51,
      includePayload: false,
    });
    expect(session.join('\n')).toContain('USING INDEX idx_episodic_session_ts (session_id=?)');
    expect(session.join('\n')).not.toContain('TEMP B-TREE');
    const single = planOf({
      scope: 'a',
      types: ['tool.call'],
      fromTsMs: 5,
      limit: 51,
      includePayload: false,
    });
    expect(single.join('\n')).toContain(
      'USING INDEX idx_episodic_scope_type_ts (scope=? AND type=? AND ts_ms>?)',
    );
  });
});

describe('ledger on SQLite', () => {
  it('GC deletes in short batches and reports the same counts as its dry run', async () => {
    const store = createSqliteStore({ filename: ':memory:', batchSize: 7 });
    const events = Array.from({ length: 40 }, (_, index) => ({
      scope: 'gc',
      session_id: `s${index % 3}`,
      agent_id: 'agent',
      type: (index % 2 === 0 ? 'tool.result' : 'conversation.user') as
        | 'tool.result'
        | 'conversation.user',
      summary: `event ${index}`,
      ts_ms: index * 86_400_000 + 1,
    }));
    await store.ledger.appendBatch(events);
    const now = 70 * 86_400_000;
    const dry = await store.ledger.gc({ scope: 'gc', nowMs: now, dryRun: true });
    const real = await store.ledger.gc({ scope: 'gc', nowMs: now });
    expect(real.deleted_by_type).toEqual(dry.deleted_by_type);
    expect(real.deleted_total).toBe(20 + 5);
    expect((await store.ledger.query({ scope: 'gc', limit: 500 })).events).toHaveLength(15);
    await store.close();
  });

  it('GC and session redaction stay exact across batches of every size', async () => {
    // A lock budget this small makes the sizer shrink and grow batches from one to the next.
    for (const maxLockMs of [0.001, 0.05, 8]) {
      const store = createSqliteStore({ filename: temporaryFile('batches.db'), maxLockMs });
      const events = Array.from({ length: 2000 }, (_, index) => ({
        scope: 'batches',
        session_id: index % 2 === 0 ? 'long-session' : `other-${index % 7}`,
        agent_id: 'agent',
        type: (index % 3 === 0 ? 'tool.result' : 'conversation.user') as
          | 'tool.result'
          | 'conversation.user',
        summary: `event ${index}`,
        payload: { index },
        ts_ms: index * 1000 + 1,
      }));
      for (let start = 0; start < events.length; start += 500)
        await store.ledger.appendBatch(events.slice(start, start + 500));
      const redaction = await store.ledger.redact({ scope: 'batches', sessionId: 'long-session' });
      expect(redaction.redacted_count).toBe(1000);
      const session = await store.ledger.replay('long-session', {
        scope: 'batches',
        limit: 500,
        includePayload: true,
      });
      expect(session.events).toHaveLength(500);
      expect(
        session.events.every((event) => event.redacted && event.summary === '[REDACTED]'),
      ).toBe(true);
      const now = 30 * 86_400_000 + 2000 * 1000;
      const dry = await store.ledger.gc({ scope: 'batches', nowMs: now, dryRun: true });
      const real = await store.ledger.gc({ scope: 'batches', nowMs: now });
      expect(real.deleted_by_type).toEqual(dry.deleted_by_type);
      expect(real.deleted_by_type['tool.result']).toBe(667);
      expect(
        (await store.ledger.gc({ scope: 'batches', nowMs: now, dryRun: true })).deleted_total,
      ).toBe(0);
      await store.close();
    }
  });

  it.each([
    ['unchained', false],
    ['chained', true],
  ] as const)(
    'leaves no copy of a redacted or collected secret in the .db or -wal files (%s; chained: their salts neither)',
    async (_name, chain) => {
      const filename = temporaryFile('residue.db');
      const store = createSqliteStore({ filename, chain });
      const secrets = Array.from(
        { length: 10 },
        (_, index) => `sk-proj-RESIDUE${index}x${'Ab9Cd8Ef7Gh6'.repeat(4)}`,
      );
      // The guards would reject these; a caller who explicitly allows secrets stores them.
      for (const [index, secret] of secrets.entries()) {
        await store.ledger.append(
          {
            scope: 'residue',
            session_id: index < 5 ? 'redact-me' : 'keep',
            agent_id: 'agent',
            type: index < 5 ? 'conversation.user' : 'tool.result',
            summary: `summary with ${secret}`,
            payload: { secret, padding: 'p'.repeat(6000) },
            refs: { secret },
            ts_ms: index < 5 ? Date.now() : 1,
          },
          { allow: ['secret'] },
        );
      }
      const bytes = () =>
        ['', '-wal']
          .map((suffix) =>
            existsSync(filename + suffix) ? readFileSync(filename + suffix).toString('latin1') : '',
          )
          .join('');
      // The check can see them before they are erased.
      expect(secrets.filter((secret) => bytes().includes(secret)).length).toBeGreaterThan(0);
      // Searched once, so the search index (FTS5 shadow tables) holds them too: its terms are
      // folded to lower case and prefix-compressed, so the scan looks for each secret's folded
      // tail (what follows the shared "residue" prefix) in the folded bytes.
      const folded = secrets.map((_, index) => `${index}x${'ab9cd8ef7gh6'.repeat(4)}`);
      for (const index of [0, 9]) {
        const hits = await store.ledger.search({
          scope: 'residue',
          text: secrets[index] as string,
        });
        expect(hits.hits).toHaveLength(1);
      }
      const indexRows = store.database
        .prepare("SELECT count(*) FROM sqlite_master WHERE name LIKE 'episodic_search%'")
        .pluck()
        .get() as number;
      expect(indexRows).toBeGreaterThanOrEqual(5);
      expect(folded.filter((tail) => bytes().toLowerCase().includes(tail)).length).toBe(10);

      // A chained row's salt is what made its commitment unguessable: redaction and GC erase it too.
      const salts = (
        store.database
          .prepare('SELECT chain_salt FROM episodic_events WHERE chain_salt IS NOT NULL')
          .pluck()
          .all() as Buffer[]
      ).map((salt) => salt.toString('latin1'));
      expect(salts).toHaveLength(chain ? 10 : 0);
      expect(salts.filter((salt) => bytes().includes(salt))).toHaveLength(salts.length);
      expect(
        (await store.ledger.redact({ scope: 'residue', sessionId: 'redact-me' })).redacted_count,
      ).toBe(5);
      expect((await store.ledger.gc({ scope: 'residue', nowMs: Date.now() })).deleted_total).toBe(
        5,
      );
      const after = bytes();
      expect(secrets.filter((secret) => after.includes(secret))).toEqual([]);
      expect(salts.filter((salt) => after.includes(salt))).toEqual([]);
      if (chain) {
        const report = await store.ledger.verifyChain({ sha256: sha256Of, scope: 'residue' });
        expect(report.ok).toBe(true);
        expect(report.counts).toMatchObject({ redacted: 5, collected: 1, altered: 0, deleted: 0 });
      }
      expect(folded.filter((tail) => after.toLowerCase().includes(tail))).toEqual([]);
      for (const secret of secrets) {
        expect((await store.ledger.search({ scope: 'residue', text: secret })).hits).toEqual([]);
      }
      await store.close();
      const closed = bytes();
      expect(secrets.filter((secret) => closed.includes(secret))).toEqual([]);
      expect(salts.filter((salt) => closed.includes(salt))).toEqual([]);
      expect(folded.filter((tail) => closed.toLowerCase().includes(tail))).toEqual([]);
      expect(
        (await createSqliteStore({ filename }).ledger.query({ scope: 'residue' })).events.map(
          (event) => event.summary,
        ),
      ).toEqual(Array(5).fill('[REDACTED]'));
    },
  );
});
