import {
  type ArtifactScan,
  type ArtifactStoreAdapter,
  type ArtifactUpsert,
  assertSameArtifactKind,
  type EpisodeRef,
  type StoredArtifactEpisodeRow,
  type StoredArtifactRow,
  storedArtifactRecord,
  storedEpisodeMetadata,
} from '@episodic/core/adapter';
import type Database from 'better-sqlite3';
import { truncateWal } from './sqlite-run-store.js';

const ARTIFACT_COLUMNS = 'a.key, a.kind, a.content_json, a.created_at, a.updated_at';

/**
 * The SQL of one `listArtifacts` scan. Every variant walks an index in key order: the primary key
 * alone, `(kind, key)` for a kind, or `(episode_ref, artifact_key)` for an episode, so a page costs
 * the rows it returns, not the size of the table. Exported for the query-plan test.
 */
export function buildArtifactScan(scan: ArtifactScan): { sql: string; parameters: unknown[] } {
  const where: string[] = [];
  const parameters: unknown[] = [];
  let from = 'episodic_artifacts a';
  if (scan.episode !== undefined) {
    from = 'episodic_artifact_episodes e JOIN episodic_artifacts a ON a.key = e.artifact_key';
    where.push('e.episode_ref = ?');
    parameters.push(scan.episode);
  }
  if (scan.kind !== undefined) {
    where.push('a.kind = ?');
    parameters.push(scan.kind);
  }
  if (scan.afterKey !== undefined) {
    where.push(scan.episode === undefined ? 'a.key > ?' : 'e.artifact_key > ?');
    parameters.push(scan.afterKey);
  }
  const order = scan.episode === undefined ? 'a.key' : 'e.artifact_key';
  parameters.push(scan.limit);
  return {
    sql: `SELECT ${ARTIFACT_COLUMNS} FROM ${from}${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY ${order} LIMIT ?`,
    parameters,
  };
}

/**
 * The artifact store adapter over `episodic_artifacts`, `episodic_artifact_episodes` and
 * `episodic_episode_metadata`. Every write is one IMMEDIATE transaction, so an upsert (with its new
 * associations) or an episode deletion (with the artifacts it orphans) is all-or-nothing, also
 * across processes and crashes. Content and metadata are stored as JSON text, so every read returns
 * a fresh copy.
 */
export function createSqliteArtifactStoreAdapter(
  database: Database.Database,
): ArtifactStoreAdapter {
  const selectArtifact = database.prepare(
    `SELECT ${ARTIFACT_COLUMNS} FROM episodic_artifacts a WHERE a.key = ?`,
  );
  const selectKind = database.prepare('SELECT kind FROM episodic_artifacts WHERE key = ?').pluck();
  const selectAssociations = database.prepare(
    `SELECT e.episode_ref, m.metadata_json FROM episodic_artifact_episodes e
     LEFT JOIN episodic_episode_metadata m ON m.episode_ref = e.episode_ref
     WHERE e.artifact_key = ? ORDER BY e.ordinal`,
  );
  const upsertArtifact = database.prepare(
    `INSERT INTO episodic_artifacts (key, kind, content_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET content_json = excluded.content_json, updated_at = excluded.updated_at`,
  );
  const lastOrdinal = database
    .prepare(
      'SELECT coalesce(max(ordinal), 0) FROM episodic_artifact_episodes WHERE artifact_key = ?',
    )
    .pluck();
  const associate = database.prepare(
    `INSERT INTO episodic_artifact_episodes (artifact_key, episode_ref, ordinal) VALUES (?, ?, ?)
     ON CONFLICT (artifact_key, episode_ref) DO NOTHING`,
  );
  const selectMetadata = database
    .prepare('SELECT metadata_json FROM episodic_episode_metadata WHERE episode_ref = ?')
    .pluck();
  const upsertMetadata = database.prepare(
    `INSERT INTO episodic_episode_metadata (episode_ref, metadata_json) VALUES (?, ?)
     ON CONFLICT (episode_ref) DO UPDATE SET metadata_json = excluded.metadata_json`,
  );
  const deleteMetadata = database.prepare(
    'DELETE FROM episodic_episode_metadata WHERE episode_ref = ?',
  );
  const artifactsOfEpisode = database
    .prepare(
      'SELECT artifact_key FROM episodic_artifact_episodes WHERE episode_ref = ? ORDER BY artifact_key',
    )
    .pluck();
  const deleteAssociations = database.prepare(
    'DELETE FROM episodic_artifact_episodes WHERE episode_ref = ?',
  );
  const hasAssociations = database
    .prepare('SELECT 1 FROM episodic_artifact_episodes WHERE artifact_key = ? LIMIT 1')
    .pluck();
  const deleteArtifact = database.prepare('DELETE FROM episodic_artifacts WHERE key = ?');
  const scans = new Map<string, Database.Statement>();

  const recordOf = (row: StoredArtifactRow) =>
    storedArtifactRecord(row, selectAssociations.all(row.key) as StoredArtifactEpisodeRow[]);

  const upsertTransaction = database.transaction((input: ArtifactUpsert) => {
    const storedKind = selectKind.get(input.key) as string | undefined;
    if (storedKind !== undefined) assertSameArtifactKind(input.key, storedKind, input.kind);
    upsertArtifact.run(input.key, input.kind, JSON.stringify(input.content), input.at, input.at);
    let ordinal = lastOrdinal.get(input.key) as number;
    for (const ref of input.episodes) {
      if (associate.run(input.key, ref, ordinal + 1).changes > 0) ordinal += 1;
    }
    return recordOf(selectArtifact.get(input.key) as StoredArtifactRow);
  });

  const deleteEpisodeTransaction = database.transaction((ref: EpisodeRef) => {
    const removedMetadata = deleteMetadata.run(ref).changes > 0;
    const keys = artifactsOfEpisode.all(ref) as string[];
    deleteAssociations.run(ref);
    const deletedArtifacts: string[] = [];
    const updatedArtifacts: string[] = [];
    for (const key of keys) {
      if (hasAssociations.get(key) === undefined) {
        deleteArtifact.run(key);
        deletedArtifacts.push(key);
      } else {
        updatedArtifacts.push(key);
      }
    }
    return { episode: ref, deletedArtifacts, updatedArtifacts, removedMetadata };
  });

  const scanStatement = (sql: string): Database.Statement => {
    let statement = scans.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      scans.set(sql, statement);
    }
    return statement;
  };

  return {
    specificationVersion: 'v1',
    name: 'sqlite',
    capabilities: { atomicWrites: true, crossProcess: true },

    upsertArtifact(input) {
      return upsertTransaction.immediate(input);
    },

    getArtifact(key) {
      const row = selectArtifact.get(key) as StoredArtifactRow | undefined;
      return row === undefined ? null : recordOf(row);
    },

    listArtifacts(scan) {
      const { sql, parameters } = buildArtifactScan(scan);
      return (scanStatement(sql).all(...parameters) as StoredArtifactRow[]).map(recordOf);
    },

    setEpisodeMetadata(ref, metadata) {
      if (metadata === null) deleteMetadata.run(ref);
      else upsertMetadata.run(ref, JSON.stringify(metadata));
    },

    getEpisodeMetadata(ref) {
      return storedEpisodeMetadata(selectMetadata.get(ref) as string | undefined, ref);
    },

    deleteEpisode(ref) {
      return deleteEpisodeTransaction.immediate(ref);
    },

    eraseReplaced() {
      // secure_delete zeroed the replaced metadata in the database file; this removes the WAL's copy.
      truncateWal(database);
    },
  };
}
