/**
 * The seed's `episodic_events` table and its four indexes, exactly as seed 002 specifies them
 * (a database created by another implementation of the seed opens as it is).
 */
export const SEED_EVENTS_DDL = `CREATE TABLE IF NOT EXISTS episodic_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL,
  ts_ms INTEGER NOT NULL,
  scope TEXT NOT NULL,
  session_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  type TEXT NOT NULL,
  summary TEXT NOT NULL,
  payload_json TEXT,
  refs_json TEXT,
  redacted INTEGER NOT NULL DEFAULT 0,
  schema_version TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_episodic_event_id ON episodic_events(event_id);
CREATE INDEX IF NOT EXISTS idx_episodic_scope_ts ON episodic_events(scope, ts_ms);
CREATE INDEX IF NOT EXISTS idx_episodic_session_ts ON episodic_events(session_id, ts_ms);
CREATE INDEX IF NOT EXISTS idx_episodic_scope_type_ts ON episodic_events(scope, type, ts_ms);`;

/** The seed's four index names. */
export const SEED_INDEXES = [
  'uq_episodic_event_id',
  'idx_episodic_scope_ts',
  'idx_episodic_session_ts',
  'idx_episodic_scope_type_ts',
] as const;
