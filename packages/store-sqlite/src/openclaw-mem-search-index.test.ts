// A ledger Episodic created and openclaw-mem 1.3.2 or 1.9.32 then opened and wrote (fixtures made
// by `test-support/seed-data/openclaw-mem/generate-search-index.sh`): openclaw-mem added its search
// index to the file, a `search_text` column (summary + payload + refs text) and the external-content
// FTS5 table `episodic_events_fts` kept by triggers; 1.9.32 also embedded each row's search text
// (`episodic_event_embeddings`: a vector and the text's SHA-256). Redaction and GC must erase a
// secret from all of them, down to the bytes of the file and its WAL, and leave an index
// openclaw-mem still searches.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from './sqlite-store.js';

const SEED_DATA = fileURLToPath(
  new URL('../../../test-support/seed-data/openclaw-mem/', import.meta.url),
);
const VERSIONS = ['1.3.2', '1.9.32'] as const;
type Version = (typeof VERSIONS)[number];
const SCOPE = { scope: 'openclaw-mem' } as const;
/** The secrets of the rows redacted or collected: in summaries, payloads and refs. */
const SECRETS = [
  'ZQXSECRETWIBBLE9431',
  'PAYLOADSECRETFROBNITZ77',
  'REFSECRETQUUXBLORP',
  'TOOLSECRETMARZIPAN55',
  'EPSECRETGRAVLAX',
  'EPPAYLOADSECRETKUMQUAT',
];
/** Text of a row no test erases: it must stay searchable. */
const KEPT = 'umbrellas';

const opened: SqliteStore[] = [];
const directories: string[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function openCopy(version: Version): { store: SqliteStore; filename: string } {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-openclaw-fts-'));
  directories.push(directory);
  const filename = join(directory, 'openclaw-mem.sqlite');
  copyFileSync(join(SEED_DATA, `openclaw-mem-${version}-search-index.sqlite`), filename);
  const store = createSqliteStore({ filename });
  opened.push(store);
  return { store, filename };
}

/**
 * The secrets whose bytes are still in the file or its WAL. Case-folded, and by their last eight
 * characters: FTS5 stores terms lower-cased and prefix-compressed against the previous term.
 */
function secretsInBytes(filename: string, secrets: readonly string[] = SECRETS): string[] {
  const text = [filename, `${filename}-wal`]
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString('latin1').toLowerCase())
    .join('\n');
  return secrets.filter((secret) => text.includes(secret.slice(-8).toLowerCase()));
}

/** Event ids openclaw-mem's index finds for a full-text query, through a second connection. */
function ftsMatches(filename: string, query: string): string[] {
  const other = new Database(filename, { readonly: true });
  try {
    return other
      .prepare(
        `SELECT e.event_id FROM episodic_events_fts JOIN episodic_events e ON e.id = episodic_events_fts.rowid
         WHERE episodic_events_fts MATCH ? ORDER BY e.event_id`,
      )
      .pluck()
      .all(`"${query}"`) as string[];
  } finally {
    other.close();
  }
}

/** openclaw-mem's embeddings: row id and the SHA-256 of the search text each vector was made of. */
function embeddings(filename: string): Array<{ event_row_id: number; search_text_hash: string }> {
  const other = new Database(filename, { readonly: true });
  try {
    return other
      .prepare(
        'SELECT event_row_id, search_text_hash FROM episodic_event_embeddings ORDER BY event_row_id',
      )
      .all() as Array<{ event_row_id: number; search_text_hash: string }>;
  } finally {
    other.close();
  }
}

/** The SHA-256 (hex) of each secret row's search text as the fixture holds it: in 1.9.32's embeddings. */
function secretSearchTextHashes(filename: string): string[] {
  const other = new Database(filename, { readonly: true });
  try {
    return (
      other
        .prepare(
          "SELECT search_text FROM episodic_events WHERE event_id IN ('evt-secret-1', 'evt-secret-2', 'evt-episodic-1')",
        )
        .pluck()
        .all() as string[]
    ).map((text) => createHash('sha256').update(text).digest('hex'));
  } finally {
    other.close();
  }
}

const pythonProbe = spawnSync('python3', ['-c', 'import sqlite3; print(sqlite3.sqlite_version)'], {
  encoding: 'utf8',
});
const pythonSqlite = pythonProbe.status === 0 ? pythonProbe.stdout.trim() : undefined;

// What openclaw-mem does with the file, through Python's own sqlite3 (an older SQLite than
// Episodic's): the integrity checks, the rows its next open would re-derive search text for
// (empty search_text), and its search: an FTS5 MATCH joined to the events, ranked by bm25, with a
// snippet of the search_text column.
const PYTHON_SEARCH = `
import json, sqlite3, sys
path, queries = json.loads(sys.stdin.read())
c = sqlite3.connect(path)
out = {
  "integrity": c.execute("PRAGMA integrity_check").fetchone()[0],
  "empty_search_text": c.execute("SELECT count(*) FROM episodic_events WHERE COALESCE(search_text, '') = ''").fetchone()[0],
}
c.execute("INSERT INTO episodic_events_fts(episodic_events_fts) VALUES ('integrity-check')")
out["hits"] = {
  q: [list(r) for r in c.execute(
    "SELECT e.event_id, snippet(episodic_events_fts, 1, '[', ']', '...', 16) FROM episodic_events_fts "
    "JOIN episodic_events e ON e.id = episodic_events_fts.rowid "
    "WHERE episodic_events_fts MATCH ? AND e.scope = 'openclaw-mem' ORDER BY bm25(episodic_events_fts), e.id",
    ('"' + q + '"',)).fetchall()]
  for q in queries
}
print(json.dumps(out))
`;

function searchWithPython(
  filename: string,
  queries: readonly string[],
): { integrity: string; empty_search_text: number; hits: Record<string, string[][]> } {
  const result = spawnSync('python3', ['-c', PYTHON_SEARCH], {
    input: JSON.stringify([filename, queries]),
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe.each(VERSIONS)('openclaw-mem %s', (version) => {
  describe("the fixture: openclaw-mem's search index holds the secrets", () => {
    it('in search_text, in the FTS5 index and in the bytes of the file', () => {
      const { filename } = openCopy(version);
      const database = new Database(filename, { readonly: true });
      const searchText = database
        .prepare("SELECT search_text FROM episodic_events WHERE event_id = 'evt-episodic-1'")
        .pluck()
        .get();
      database.close();
      // openclaw-mem derived it from the summary and payload Episodic appended.
      expect(searchText).toBe('noted EPSECRETGRAVLAX\nEPPAYLOADSECRETKUMQUAT');
      for (const secret of SECRETS) expect(ftsMatches(filename, secret)).toHaveLength(1);
      expect(secretsInBytes(filename)).toEqual(SECRETS);
      if (version === '1.9.32') {
        // Every row embedded; the hashes of the secret rows' search text are in the file's bytes.
        expect(embeddings(filename).map((row) => row.event_row_id)).toEqual([1, 2, 3, 4, 5]);
        const hashes = secretSearchTextHashes(filename);
        expect(secretsInBytes(filename, hashes)).toEqual(hashes);
      }
    });
  });

  describe("redaction of a file carrying openclaw-mem's search index", () => {
    it('sets search_text to what openclaw-mem stores for a redacted row and erases the old terms from the index, the file and the WAL', async () => {
      const { store, filename } = openCopy(version);
      expect(
        (await store.ledger.redact({ ...SCOPE, sessionId: 'sess-secret' })).redacted_count,
      ).toBe(2);
      expect(
        (
          await store.ledger.redact(
            { ...SCOPE, eventId: 'evt-episodic-1' },
            { replacement: 'null' },
          )
        ).redacted_count,
      ).toBe(1);
      const hashes = version === '1.9.32' ? secretSearchTextHashes(filename) : [];
      // Read while the store is still open: its WAL is there to scan too.
      const database = new Database(filename, { readonly: true });
      const rows = database
        .prepare('SELECT event_id, search_text FROM episodic_events ORDER BY id')
        .all();
      database.close();
      expect(rows).toEqual([
        { event_id: 'evt-secret-1', search_text: '[REDACTED]' },
        { event_id: 'evt-secret-2', search_text: '[REDACTED]' },
        { event_id: 'evt-plain-1', search_text: 'harmless weather chat\nsunny umbrellas' },
        { event_id: 'evt-plain-2', search_text: 'Keep the rollout' },
        { event_id: 'evt-episodic-1', search_text: '[REDACTED]' },
      ]);
      for (const secret of SECRETS) expect(ftsMatches(filename, secret), secret).toEqual([]);
      expect(ftsMatches(filename, KEPT)).toEqual(['evt-plain-1']);
      expect(secretsInBytes(filename)).toEqual([]);
      expect(secretsInBytes(filename, [KEPT])).toEqual([KEPT]);
      if (version === '1.9.32') {
        // The vectors of the old search text and its hashes are gone; the other rows keep theirs.
        expect(embeddings(filename).map((row) => row.event_row_id)).toEqual([3, 4]);
        expect(secretsInBytes(filename, hashes)).toEqual([]);
      }
    });
  });

  describe("GC of a file carrying openclaw-mem's search index", () => {
    it("removes the collected rows' terms from the index, the file and the WAL", async () => {
      const { store, filename } = openCopy(version);
      const hashes = version === '1.9.32' ? secretSearchTextHashes(filename) : [];
      const receipt = await store.ledger.gc({
        ...SCOPE,
        // Cutoff one day before: between the secret rows (…600000 to …602000) and the plain ones.
        nowMs: 1767225650000 + 86_400_000,
        policy: { 'conversation.user': 1, 'conversation.assistant': 1, 'tool.result': 1 },
      });
      expect(receipt.deleted_total).toBe(3);
      for (const secret of SECRETS) expect(ftsMatches(filename, secret), secret).toEqual([]);
      expect(ftsMatches(filename, KEPT)).toEqual(['evt-plain-1']);
      expect(secretsInBytes(filename)).toEqual([]);
      expect(secretsInBytes(filename, [KEPT])).toEqual([KEPT]);
      if (version === '1.9.32') {
        // The embeddings of collected rows go with them (their foreign key cascades).
        expect(embeddings(filename).map((row) => row.event_row_id)).toEqual([3, 4]);
        expect(secretsInBytes(filename, hashes)).toEqual([]);
      }
    });
  });

  describe.skipIf(pythonSqlite === undefined)(
    `the file afterwards, through Python's sqlite3 ${pythonSqlite ?? '(skipped: python3 is missing)'}`,
    () => {
      it("passes both integrity checks; openclaw-mem's search finds no secret, still finds the rest and the redacted rows by their placeholder", async () => {
        const { store, filename } = openCopy(version);
        await store.ledger.redact({ ...SCOPE, sessionId: 'sess-secret' });
        await store.ledger.redact({ ...SCOPE, eventId: 'evt-episodic-1' });
        await store.close();
        opened.splice(opened.indexOf(store), 1);
        const result = searchWithPython(filename, [...SECRETS, KEPT, 'rollout', 'REDACTED']);
        expect(result.integrity).toBe('ok');
        // Nothing for openclaw-mem's next open to re-derive from the redacted rows.
        expect(result.empty_search_text).toBe(0);
        for (const secret of SECRETS) expect(result.hits[secret], secret).toEqual([]);
        expect(result.hits[KEPT]).toEqual([
          ['evt-plain-1', 'harmless weather chat\nsunny [umbrellas]'],
        ]);
        expect(result.hits.rollout?.map(([eventId]) => eventId)).toEqual(['evt-plain-2']);
        expect(result.hits.REDACTED?.map(([eventId]) => eventId)).toEqual([
          'evt-secret-1',
          'evt-secret-2',
          'evt-episodic-1',
        ]);
      });
    },
  );
});
