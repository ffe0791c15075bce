// openclaw-mem (seed 002's implementation) 1.3.1 to 1.9.x add their search index to a ledger file
// the first time they open it, and up to Episodic schema 12 that failed on a file whose ledger
// already had rows: "database disk image is malformed" (their search_text backfill UPDATE fires
// their trigger, which deletes the row's entry from an FTS5 index they had just made empty; see
// docs/design/openclaw-mem.md). Schema 13 keeps an empty stand-in for that index in the file, which
// openclaw-mem replaces with its own, indexing every row first. Checked three ways: files the real
// openclaw-mem 1.3.2 and 1.9.32 wrote after opening a ledger Episodic had filled (fixtures made by
// `test-support/seed-data/openclaw-mem/generate-opened-with-rows.sh`), the schema step itself, and
// the real openclaw-mem run here when it is installed (OPENCLAW_MEM_DIR names a checkout).

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NewLedgerEvent } from '@episodic/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, SCHEMA_VERSION, schemaVersionOf } from './migrations.js';
import { nodeChainCrypto } from './sqlite-ledger-chain.js';
import { createSqliteStore, type SqliteStore } from './sqlite-store.js';

const SEED_DATA = fileURLToPath(
  new URL('../../../test-support/seed-data/openclaw-mem/', import.meta.url),
);
const VERSIONS = ['1.3.2', '1.9.32'] as const;
const SCOPE = { scope: 'openclaw-mem' } as const;
/** The fixtures' secrets, in the summaries, payloads and refs Episodic appended. */
const SECRETS = [
  'ZQXSECRETWIBBLE9431',
  'PAYLOADSECRETFROBNITZ77',
  'REFSECRETQUUXBLORP',
  'TOOLSECRETMARZIPAN55',
  'EPSECRETGRAVLAX',
  'EPPAYLOADSECRETKUMQUAT',
];

const opened: SqliteStore[] = [];
const directories: string[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function newPath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-openclaw-rows-'));
  directories.push(directory);
  return join(directory, 'openclaw-mem.sqlite');
}

function open(filename: string, chain = false): SqliteStore {
  const store = createSqliteStore({ filename, chain });
  opened.push(store);
  return store;
}

async function close(store: SqliteStore): Promise<void> {
  opened.splice(opened.indexOf(store), 1);
  await store.close();
}

/** Reads with a second connection (read-only): what another tool sees. */
function read<T>(filename: string, query: (database: Database.Database) => T): T {
  const database = new Database(filename, { readonly: true });
  try {
    return query(database);
  } finally {
    database.close();
  }
}

const ftsSql = (filename: string) =>
  read(filename, (database) =>
    database
      .prepare("SELECT sql FROM sqlite_master WHERE name = 'episodic_events_fts'")
      .pluck()
      .get(),
  ) as string | undefined;

/** Event ids openclaw-mem's index finds for a full-text query. */
function ftsMatches(filename: string, query: string): string[] {
  return read(
    filename,
    (database) =>
      database
        .prepare(
          `SELECT e.event_id FROM episodic_events_fts JOIN episodic_events e ON e.id = episodic_events_fts.rowid
           WHERE episodic_events_fts MATCH ? ORDER BY e.event_id`,
        )
        .pluck()
        .all(`"${query}"`) as string[],
  );
}

/** Secrets whose bytes (case-folded, last eight characters) are in the file or its WAL. */
function secretsInBytes(filename: string): string[] {
  const text = [filename, `${filename}-wal`]
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString('latin1').toLowerCase())
    .join('\n');
  return SECRETS.filter((secret) => text.includes(secret.slice(-8).toLowerCase()));
}

function event(
  eventId: string,
  sessionId: string,
  tsMs: number,
  summary: string,
  payload?: object,
) {
  return {
    event_id: eventId,
    ts_ms: tsMs,
    scope: 'openclaw-mem',
    session_id: sessionId,
    agent_id: 'planner',
    type: 'conversation.user',
    summary,
    ...(payload === undefined ? {} : { payload }),
  } satisfies NewLedgerEvent;
}

describe.each(VERSIONS)(
  'a ledger Episodic had filled, then opened and written by openclaw-mem %s (fixture)',
  (version) => {
    function openCopy(): { store: SqliteStore; filename: string } {
      const filename = newPath();
      copyFileSync(join(SEED_DATA, `openclaw-mem-${version}-opened-with-rows.sqlite`), filename);
      return { store: open(filename), filename };
    }

    it("holds openclaw-mem's own index in place of the stand-in, over every row Episodic wrote before", () => {
      const { filename } = openCopy();
      expect(ftsSql(filename)).toContain('search_text');
      const rows = read(filename, (database) =>
        database.prepare('SELECT event_id, search_text FROM episodic_events ORDER BY id').all(),
      );
      // openclaw-mem derived each row's search text from the summary, payload and refs Episodic wrote.
      expect(rows).toEqual([
        {
          event_id: 'evt-ep-secret-1',
          search_text:
            'Launch phrase is ZQXSECRETWIBBLE9431\nPAYLOADSECRETFROBNITZ77\nREFSECRETQUUXBLORP',
        },
        { event_id: 'evt-ep-secret-2', search_text: 'tool answered\nTOOLSECRETMARZIPAN55' },
        { event_id: 'evt-ep-plain-1', search_text: 'harmless weather chat\nsunny umbrellas' },
        { event_id: 'evt-ep-plain-2', search_text: 'Keep the rollout' },
        { event_id: 'evt-ocm-1', search_text: 'Bring an umbrella anyway' },
        {
          event_id: 'evt-ep-secret-3',
          search_text: 'noted EPSECRETGRAVLAX\nEPPAYLOADSECRETKUMQUAT',
        },
      ]);
      expect(ftsMatches(filename, 'umbrellas')).toEqual(['evt-ep-plain-1']);
      for (const secret of SECRETS) expect(ftsMatches(filename, secret), secret).toHaveLength(1);
      // FTS5's own check that the index matches the rows (a command, so on a writable connection).
      const database = new Database(filename);
      database.exec(
        "INSERT INTO episodic_events_fts(episodic_events_fts) VALUES ('integrity-check')",
      );
      database.close();
    });

    it("reads every row, openclaw-mem's included, and appends after them", async () => {
      const { store } = openCopy();
      const plain = await store.ledger.replay('sess-plain', SCOPE);
      expect(plain.events.map((row) => [row.event_id, row.position])).toEqual([
        ['evt-ep-plain-1', 1],
        ['evt-ep-plain-2', 2],
        ['evt-ocm-1', 3],
      ]);
      const secret = await store.ledger.replay('sess-secret', { ...SCOPE, includePayload: true });
      expect(secret.events.map((row) => row.event_id)).toEqual([
        'evt-ep-secret-1',
        'evt-ep-secret-2',
        'evt-ep-secret-3',
      ]);
      expect(secret.damaged ?? []).toEqual([]);
      const receipt = await store.ledger.append(
        event('evt-ep-plain-3', 'sess-plain', 1767225703000, 'and one more'),
      );
      expect(receipt.event.position).toBe(4);
    });

    it("with chaining on: the rows before (openclaw-mem's included) are an unchained prefix, what Episodic appends after verifies", async () => {
      const filename = newPath();
      copyFileSync(join(SEED_DATA, `openclaw-mem-${version}-opened-with-rows.sqlite`), filename);
      const store = open(filename, true);
      await store.ledger.append(event('evt-ep-plain-3', 'sess-plain', 1767225703000, 'chained'));
      await store.ledger.append(event('evt-ep-plain-4', 'sess-plain', 1767225704000, 'chained'));
      await store.ledger.redact({ ...SCOPE, eventId: 'evt-ep-plain-4' });
      expect(
        (await store.ledger.redact({ ...SCOPE, sessionId: 'sess-secret' })).redacted_count,
      ).toBe(3);
      const report = await store.ledger.verifyChain({ sha256: nodeChainCrypto().sha256, ...SCOPE });
      expect(report.ok).toBe(true);
      expect(
        report.findings.map((finding) => [
          finding.finding,
          finding.stream.session_id,
          finding.n ?? finding.from,
          finding.verified_from,
        ]),
      ).toEqual([
        ['redacted', 'sess-plain', 5, undefined],
        ['unchained', 'sess-plain', 1, 4],
        ['unchained', 'sess-secret', 1, undefined],
      ]);
      // openclaw-mem's index follows Episodic's chained rows and its redaction.
      expect(ftsMatches(filename, 'umbrellas')).toEqual(['evt-ep-plain-1']);
      for (const secret of SECRETS) expect(ftsMatches(filename, secret), secret).toEqual([]);
    });

    it('redaction erases the secrets from search_text, the index, the file and the WAL', async () => {
      const { store, filename } = openCopy();
      expect(
        (await store.ledger.redact({ ...SCOPE, sessionId: 'sess-secret' })).redacted_count,
      ).toBe(3);
      for (const secret of SECRETS) expect(ftsMatches(filename, secret), secret).toEqual([]);
      expect(ftsMatches(filename, 'umbrellas')).toEqual(['evt-ep-plain-1']);
      expect(secretsInBytes(filename)).toEqual([]);
    });
  },
);

describe("schema 13: the stand-in for openclaw-mem's index", () => {
  const standInColumns = (filename: string) =>
    read(filename, (database) =>
      (database.pragma('table_info(episodic_events_fts)') as Array<{ name: string }>).map(
        (column) => column.name,
      ),
    );

  it('is an empty FTS5 table without a search_text column that appends never write', async () => {
    const filename = newPath();
    const store = open(filename);
    await store.ledger.append(event('evt-1', 'sess-1', 1767225600000, 'hello there'));
    await store.ledger.append(event('evt-2', 'sess-1', 1767225601000, 'general kenobi'));
    expect(schemaVersionOf(store.database)).toBe(SCHEMA_VERSION);
    expect(ftsSql(filename)).toBe(
      "CREATE VIRTUAL TABLE episodic_events_fts USING fts5(summary, content='')",
    );
    expect(standInColumns(filename)).toEqual(['summary']);
    expect(
      read(filename, (database) =>
        database.prepare('SELECT count(*) FROM episodic_events_fts_docsize').pluck().get(),
      ),
    ).toBe(0);
    // Redaction and GC leave it alone (no search_text to rewrite, nothing to merge).
    expect((await store.ledger.redact({ ...SCOPE, eventId: 'evt-1' })).redacted_count).toBe(1);
    expect(standInColumns(filename)).toEqual(['summary']);
  });

  it('is added to a schema-12 ledger that has rows, which keep their positions', async () => {
    const filename = newPath();
    const database = new Database(filename);
    for (const migration of MIGRATIONS.filter((step) => step.version <= 12)) {
      migration.up(database);
      database.pragma(`user_version = ${migration.version}`);
    }
    database
      .prepare(
        `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at, position)
         VALUES ('old-1', 1767225600000, 'openclaw-mem', 'sess-1', 'planner', 'conversation.user', 'before 13', NULL, NULL, 0, 'openclaw-mem.episodic.v0', '2026-01-01T00:00:00Z', 1)`,
      )
      .run();
    database
      .prepare("INSERT INTO episodic_session_heads VALUES ('openclaw-mem', 'sess-1', 1)")
      .run();
    expect(
      database
        .prepare("SELECT count(*) FROM sqlite_master WHERE name = 'episodic_events_fts'")
        .pluck()
        .get(),
    ).toBe(0);
    database.close();
    const store = open(filename);
    expect(schemaVersionOf(store.database)).toBe(SCHEMA_VERSION);
    expect(standInColumns(filename)).toEqual(['summary']);
    const receipt = await store.ledger.append(event('new-1', 'sess-1', 1767225601000, 'after 13'));
    expect(receipt.event.position).toBe(2);
  });

  it('keeps the index openclaw-mem already made in a file (the 1.3.2 search-index fixture, schema 12)', async () => {
    const filename = newPath();
    copyFileSync(join(SEED_DATA, 'openclaw-mem-1.3.2-search-index.sqlite'), filename);
    const before = ftsSql(filename);
    expect(before).toContain('search_text');
    const store = open(filename);
    expect(schemaVersionOf(store.database)).toBe(SCHEMA_VERSION);
    await close(store);
    expect(ftsSql(filename)).toBe(before);
    expect(ftsMatches(filename, 'umbrellas')).toEqual(['evt-plain-1']);
  });
});

// --- the real openclaw-mem, when installed -------------------------------------------------------

const toolDirectory = process.env.OPENCLAW_MEM_DIR;
const toolProbe = spawnSync(
  'python3',
  ['-c', 'import openclaw_mem; print(openclaw_mem.__version__)'],
  { encoding: 'utf8', ...(toolDirectory === undefined ? {} : { cwd: toolDirectory }) },
);
const toolVersion = toolProbe.status === 0 ? toolProbe.stdout.trim() : undefined;
const toolMissing =
  toolVersion === undefined
    ? '(skipped: openclaw-mem is not installed; set OPENCLAW_MEM_DIR to a checkout of github.com/phenomenoner/openclaw-mem, e.g. v1.9.32)'
    : undefined;
const [toolMajor = 0, toolMinor = 0, toolPatch = 0] = (toolVersion ?? '').split('.').map(Number);
/** 1.3.1 to 1.9.x add the search index this is about; 2.x refuses the file (below). */
const toolIndexes = toolMajor === 1 && (toolMinor > 3 || (toolMinor === 3 && toolPatch >= 1));
const toolIsTwo = toolMajor >= 2;
const otherTool = (wanted: string) =>
  toolMissing ?? `(skipped: OPENCLAW_MEM_DIR holds openclaw-mem ${toolVersion}, not ${wanted})`;

/** Runs openclaw-mem on the file as its CLI, with a home of its own. */
function openclawMem(filename: string, args: readonly string[]) {
  const home = mkdtempSync(join(tmpdir(), 'episodic-openclaw-home-'));
  directories.push(home);
  const result = spawnSync('python3', ['-m', 'openclaw_mem', '--db', filename, ...args], {
    encoding: 'utf8',
    env: { ...process.env, HOME: home },
    ...(toolDirectory === undefined ? {} : { cwd: toolDirectory }),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function ledgerWithRows(): Promise<string> {
  const filename = newPath();
  const store = open(filename);
  await store.ledger.append(
    event('evt-1', 'sess-1', 1767225600000, 'harmless weather chat', { text: 'sunny umbrellas' }),
  );
  await store.ledger.append(event('evt-2', 'sess-1', 1767225601000, 'Keep the rollout'));
  await close(store);
  return filename;
}

describe.skipIf(!toolIndexes)(
  toolIndexes
    ? `openclaw-mem ${toolVersion}`
    : `openclaw-mem 1.3.1 to 1.9.x ${otherTool('1.3.1 to 1.9.x')}`,
  () => {
    it('opens a ledger Episodic filled, searches it, and Episodic reads what it wrote', {
      timeout: 60_000,
    }, async () => {
      const filename = await ledgerWithRows();
      const search = openclawMem(filename, [
        'episodes',
        'search',
        'umbrellas',
        '--scope',
        'openclaw-mem',
        '--json',
      ]);
      expect(search.stderr).not.toContain('malformed');
      expect(search.status, search.stderr).toBe(0);
      const answer = JSON.parse(search.stdout) as { ok: boolean; result: { count: number } };
      expect(answer.ok).toBe(true);
      expect(answer.result.count).toBe(1);
      expect(ftsSql(filename)).toContain('search_text');
      const append = openclawMem(filename, [
        'episodes',
        'append',
        '--json',
        '--scope',
        'openclaw-mem',
        '--session-id',
        'sess-1',
        '--agent-id',
        'lyria',
        '--type',
        'conversation.assistant',
        '--summary',
        'Bring an umbrella',
        '--event-id',
        'evt-ocm',
        '--ts-ms',
        '1767225602000',
      ]);
      expect(append.status, append.stderr).toBe(0);
      const store = open(filename);
      const page = await store.ledger.replay('sess-1', SCOPE);
      expect(page.events.map((row) => [row.event_id, row.position])).toEqual([
        ['evt-1', 1],
        ['evt-2', 2],
        ['evt-ocm', 3],
      ]);
    });

    it("opens a chained ledger (schema 15's columns), searches and appends; its row is unchained, Episodic's verify", {
      timeout: 60_000,
    }, async () => {
      const filename = newPath();
      const store = open(filename, true);
      await store.ledger.append(
        event('evt-1', 'sess-1', 1767225600000, 'harmless weather chat', {
          text: 'sunny umbrellas',
        }),
      );
      await store.ledger.append(event('evt-2', 'sess-1', 1767225601000, 'Keep the rollout'));
      await close(store);
      const search = openclawMem(filename, [
        'episodes',
        'search',
        'umbrellas',
        '--scope',
        'openclaw-mem',
        '--json',
      ]);
      expect(search.status, search.stderr).toBe(0);
      expect((JSON.parse(search.stdout) as { result: { count: number } }).result.count).toBe(1);
      const append = openclawMem(filename, [
        'episodes',
        'append',
        '--json',
        '--scope',
        'openclaw-mem',
        '--session-id',
        'sess-1',
        '--agent-id',
        'lyria',
        '--type',
        'conversation.assistant',
        '--summary',
        'Bring an umbrella',
        '--event-id',
        'evt-ocm',
        '--ts-ms',
        '1767225602000',
      ]);
      expect(append.status, append.stderr).toBe(0);
      const again = open(filename, true);
      await again.ledger.append(event('evt-3', 'sess-1', 1767225603000, 'after theirs'));
      const report = await again.ledger.verifyChain({ sha256: nodeChainCrypto().sha256, ...SCOPE });
      expect(report.ok).toBe(true);
      expect(report.findings).toMatchObject([{ finding: 'unchained', from: 3, to: 3 }]);
      expect(
        read(filename, (database) =>
          database
            .prepare(
              "SELECT chain_c IS NULL AS unchained FROM episodic_events WHERE event_id = 'evt-ocm'",
            )
            .get(),
        ),
      ).toEqual({ unchained: 1 });
    });

    it('fails as before without the stand-in ("database disk image is malformed"): the cause', {
      timeout: 60_000,
    }, async () => {
      const filename = await ledgerWithRows();
      const database = new Database(filename);
      database.exec('DROP TABLE episodic_events_fts');
      database.close();
      const search = openclawMem(filename, [
        'episodes',
        'search',
        'umbrellas',
        '--scope',
        'openclaw-mem',
        '--json',
      ]);
      expect(search.status).not.toBe(0);
      expect(search.stderr).toContain('database disk image is malformed');
    });
  },
);

describe.skipIf(!toolIsTwo)(
  toolIsTwo ? `openclaw-mem ${toolVersion}` : `openclaw-mem 2.x ${otherTool('2.x')}`,
  () => {
    it("refuses Episodic's user_version, changing nothing (docs/design/openclaw-mem.md)", {
      timeout: 60_000,
    }, async () => {
      const filename = await ledgerWithRows();
      const search = openclawMem(filename, [
        'episodes',
        'search',
        'umbrellas',
        '--scope',
        'openclaw-mem',
        '--json',
      ]);
      expect(search.status).not.toBe(0);
      expect(search.stderr).toContain(
        `database user_version ${SCHEMA_VERSION} is newer than supported`,
      );
      expect(ftsSql(filename)).not.toContain('search_text');
    });
  },
);
