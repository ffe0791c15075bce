// The ledger's chain in SQLite (schema 15): the columns and tables it adds, stamping from the head
// row when another connection (or an Episodic with chaining off) appended in between, and what a
// chained file looks like to a reader that names its own columns.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_INDEXES } from './schema-sql.js';
import { nodeChainCrypto } from './sqlite-ledger-chain.js';
import { createSqliteStore, type SqliteStore } from './sqlite-store.js';

const { sha256 } = nodeChainCrypto();
const SCOPE = 'chain';
const directories: string[] = [];
const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});
function newFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-ledger-chain-'));
  directories.push(directory);
  return join(directory, 'episodic.db');
}
function open(filename: string, chain: boolean): SqliteStore {
  const store = createSqliteStore({ filename, chain });
  stores.push(store);
  return store;
}
const event = (id: string, n: number, session = 's-1') => ({
  event_id: id,
  scope: SCOPE,
  session_id: session,
  agent_id: 'agent',
  type: 'conversation.user' as const,
  summary: `event ${id}`,
  ts_ms: 1_767_225_600_000 + n,
  payload: { n },
});

describe('schema 15: the ledger chain', () => {
  it('adds nullable BLOB columns, the heads and erasure tables, and no index: unchained rows keep NULL', async () => {
    const filename = newFile();
    const plain = open(filename, false);
    await plain.ledger.append(event('plain', 0));
    const chained = open(filename, true);
    await chained.ledger.append(event('stamped', 1));
    const database = plain.database;
    const columns = database.pragma('table_info(episodic_events)') as Array<{
      name: string;
      type: string;
      notnull: number;
      dflt_value: unknown;
    }>;
    expect(columns.filter((column) => column.name.startsWith('chain_'))).toEqual([
      {
        cid: expect.any(Number),
        name: 'chain_salt',
        type: 'BLOB',
        notnull: 0,
        dflt_value: null,
        pk: 0,
      },
      {
        cid: expect.any(Number),
        name: 'chain_c',
        type: 'BLOB',
        notnull: 0,
        dflt_value: null,
        pk: 0,
      },
      {
        cid: expect.any(Number),
        name: 'chain_redaction',
        type: 'BLOB',
        notnull: 0,
        dflt_value: null,
        pk: 0,
      },
    ]);
    const indexes = database
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'episodic_events' AND sql IS NOT NULL",
      )
      .pluck()
      .all();
    expect(indexes).toEqual([...SEED_INDEXES]);
    expect(
      database
        .prepare(
          "SELECT name FROM sqlite_master WHERE name IN ('episodic_chain_heads', 'episodic_erasures', 'episodic_erasure_entries') ORDER BY name",
        )
        .pluck()
        .all(),
    ).toEqual(['episodic_chain_heads', 'episodic_erasure_entries', 'episodic_erasures']);
    const rows = database
      .prepare(
        'SELECT event_id, length(chain_salt) AS salt, length(chain_c) AS c, chain_redaction FROM episodic_events ORDER BY id',
      )
      .all();
    expect(rows).toEqual([
      { event_id: 'plain', salt: null, c: null, chain_redaction: null },
      { event_id: 'stamped', salt: 16, c: 32, chain_redaction: null },
    ]);
    const head = database
      .prepare(
        'SELECT position, length(chain_key) AS key, length(chain_tail) AS tail FROM episodic_session_heads',
      )
      .get();
    // The tail: n, the first chained n, the last segment head, and one open commitment.
    expect(head).toEqual({ position: 2, key: 16, tail: 48 + 32 });
  });

  it('two connections appending in turn (each one behind the other) verify clean, a head stored every 64 events', async () => {
    const filename = newFile();
    const left = open(filename, true);
    const right = open(filename, true);
    for (let n = 0; n < 140; n++) {
      const store = n % 3 === 0 ? right : left;
      if (n % 10 === 9)
        await store.ledger.appendBatch([
          event(`b${n}-0`, n),
          event(`b${n}-1`, n),
          event(`b${n}-2`, n),
        ]);
      else await store.ledger.append(event(`e${n}`, n));
    }
    const report = await left.ledger.verifyChain({ sha256, scope: SCOPE });
    expect(report.findings).toEqual([]);
    expect(report.verified.entries).toBe(140 + 14 * 2);
    expect(
      left.database.prepare('SELECT n FROM episodic_chain_heads ORDER BY n').pluck().all(),
    ).toEqual([64, 128]);
  });

  it('an Episodic with chaining off (as schema 14 wrote) appends in the middle: its rows are unchained, the rest verifies', async () => {
    const filename = newFile();
    const chained = open(filename, true);
    const plain = open(filename, false);
    for (let n = 0; n < 70; n++) {
      const store = n === 10 || n === 11 || n === 65 ? plain : chained;
      await store.ledger.append(event(`e${n}`, n));
    }
    const report = await chained.ledger.verifyChain({ sha256, scope: SCOPE, sessionId: 's-1' });
    expect(report.ok).toBe(true);
    expect(report.findings).toMatchObject([
      { finding: 'unchained', from: 11, to: 12 },
      { finding: 'unchained', from: 66, to: 66 },
    ]);
  });

  it("a reader that names its own columns (seed 002's statements) reads and writes a chained file as before", async () => {
    const filename = newFile();
    const store = open(filename, true);
    await store.ledger.append(event('e0', 0));
    await store.ledger.redact({ scope: SCOPE, eventId: 'e0' });
    const other = new Database(filename);
    other
      .prepare(
        `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at)
         VALUES ('theirs', 1, ?, 's-1', 'lyria', 'conversation.user', 'theirs', NULL, NULL, 0, 'v0', '2026-01-01T00:00:00Z')`,
      )
      .run(SCOPE);
    expect(
      other
        .prepare('SELECT event_id, summary, redacted, position FROM episodic_events ORDER BY id')
        .all(),
    ).toEqual([
      { event_id: 'e0', summary: '[REDACTED]', redacted: 1, position: 1 },
      { event_id: 'theirs', summary: 'theirs', redacted: 0, position: 2 },
    ]);
    expect(other.pragma('integrity_check', { simple: true })).toBe('ok');
    other.close();
    await store.ledger.append(event('e2', 2));
    const report = await store.ledger.verifyChain({ sha256, scope: SCOPE });
    expect(report.ok).toBe(true);
    expect(report.findings.map((finding) => [finding.finding, finding.n ?? finding.from])).toEqual([
      ['redacted', 1],
      ['unchained', 2],
    ]);
  });

  it("redacting a session that holds another program's rows (counted by the chain) is Episodic's redaction for all of them", async () => {
    const filename = newFile();
    const store = open(filename, true);
    const foreign = (id: string) =>
      store.database
        .prepare(
          `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at)
           VALUES (?, 1, ?, 's-1', 'lyria', 'conversation.user', 'their secret', NULL, NULL, 0, 'v0', '2026-01-01T00:00:00Z')`,
        )
        .run(id, SCOPE);
    for (let n = 0; n < 70; n++) {
      if (n === 5 || n === 66) foreign(`theirs-${n}`);
      await store.ledger.append(event(`e${n}`, n));
    }
    foreign('theirs-last'); // not counted by the chain yet
    await store.ledger.redact({ scope: SCOPE, sessionId: 's-1' });
    await store.ledger.append(event('after', 99));
    const report = await store.ledger.verifyChain({ sha256, scope: SCOPE });
    expect(report.ok).toBe(true);
    expect(report.counts).toMatchObject({ altered: 0, redacted: 72, unchained: 1 });
    expect(report.findings.filter((finding) => finding.finding === 'unchained')).toMatchObject([
      { from: 73, to: 73 },
    ]);
  });

  it("GC of a session's unchained prefix (and of its first chained row) leaves no error: unchained before, collected after", async () => {
    const filename = newFile();
    const plain = open(filename, false);
    const chained = open(filename, true);
    const old = (id: string, n: number) => ({
      ...event(id, n),
      ts_ms: 1000 + n,
      type: 'tool.result' as const,
    });
    await plain.ledger.append(old('p0', 0));
    await plain.ledger.append(old('p1', 1));
    await chained.ledger.append(old('c0', 2));
    for (let n = 3; n < 6; n++) await chained.ledger.append(event(`c${n}`, n));
    expect(
      (await chained.ledger.gc({ scope: SCOPE, nowMs: 1_767_225_600_000 })).deleted_total,
    ).toBe(3);
    const report = await chained.ledger.verifyChain({ sha256, scope: SCOPE });
    expect(report.ok).toBe(true);
    expect(
      report.findings.map((finding) => [finding.finding, finding.from ?? finding.n, finding.to]),
    ).toEqual([
      ['collected', 3, 3],
      ['unchained', 1, 2],
    ]);
    // The chain's first row (with the stream key) survives here: the prefix before it is gone.
    const second = newFile();
    const plain2 = open(second, false);
    const chained2 = open(second, true);
    await plain2.ledger.append(old('p0', 0));
    for (let n = 1; n < 4; n++) await chained2.ledger.append(event(`c${n}`, n));
    await chained2.ledger.gc({ scope: SCOPE, nowMs: 1_767_225_600_000 });
    const report2 = await chained2.ledger.verifyChain({ sha256, scope: SCOPE });
    expect(report2.ok).toBe(true);
    expect(report2.findings).toMatchObject([
      { finding: 'unchained', from: 1, to: 1, verified_from: 2 },
    ]);
  });

  it('verifyChain is UNSUPPORTED on a ledger that does not chain, and refuses a bad chain option', async () => {
    const store = open(newFile(), false);
    await expect(store.ledger.verifyChain({ sha256, scope: SCOPE })).rejects.toMatchObject({
      code: 'UNSUPPORTED',
    });
    expect(() => createSqliteStore({ filename: newFile(), chain: 'yes' as never })).toThrow(
      /chain/,
    );
  });
});
