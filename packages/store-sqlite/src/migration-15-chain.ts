import type Database from 'better-sqlite3';

/**
 * Schema 15: the ledger's chain (docs/design/verify.md section 2.3), additive only. Three nullable
 * BLOB columns on `episodic_events` (the salt, the commitment, the erasure id of a redaction: NULL
 * on rows nobody chained, openclaw-mem's included), the stream key and the open segment of each
 * session on its head row, a table of segment heads, and the store's erasure log (an entry per
 * redaction or collection, its per-row lists as blobs). No index, no trigger, no default: seed
 * 002's table and indexes are untouched, and readers that name their columns (openclaw-mem, an
 * Episodic of schema 14 or older reading a file opened read-only) never see them.
 */
export const CHAIN_MIGRATION = {
  version: 15,
  description: 'the ledger chain: commitment columns, segment heads and the erasure log',
  up(database: Database.Database): void {
    const columnsOf = (table: string) =>
      new Set(
        (database.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map(
          (row) => row.name,
        ),
      );
    const events = columnsOf('episodic_events');
    for (const column of ['chain_salt', 'chain_c', 'chain_redaction'])
      if (!events.has(column))
        database.exec(`ALTER TABLE episodic_events ADD COLUMN ${column} BLOB`);
    const heads = columnsOf('episodic_session_heads');
    for (const column of ['chain_key', 'chain_tail'])
      if (!heads.has(column))
        database.exec(`ALTER TABLE episodic_session_heads ADD COLUMN ${column} BLOB`);
    database.exec(`CREATE TABLE IF NOT EXISTS episodic_chain_heads (
  stream_key BLOB NOT NULL,
  n INTEGER NOT NULL,
  h BLOB NOT NULL,
  PRIMARY KEY (stream_key, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS episodic_erasures (
  n INTEGER PRIMARY KEY,
  id BLOB UNIQUE NOT NULL,
  entry_json TEXT NOT NULL,
  chain_salt BLOB,
  chain_c BLOB,
  chain_redaction BLOB
);
CREATE TABLE IF NOT EXISTS episodic_erasure_entries (
  erasure_n INTEGER NOT NULL,
  stream_key BLOB NOT NULL,
  n INTEGER NOT NULL,
  c BLOB NOT NULL,
  after BLOB,
  PRIMARY KEY (erasure_n, n)
) WITHOUT ROWID;`);
  },
} as const;
