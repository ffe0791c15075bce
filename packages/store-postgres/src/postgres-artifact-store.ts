import {
  type ArtifactRecord,
  type ArtifactScan,
  type ArtifactStoreAdapter,
  assertSameArtifactKind,
  type StoredArtifactEpisodeRow,
  type StoredArtifactRow,
  storedArtifactRecord,
  storedEpisodeMetadata,
} from '@episodic/core/adapter';
import type { PostgresDatabase, Queryable, StoreTables } from './postgres-database.js';
import type { Scrubber } from './scrub.js';

/** An artifact's episode row, tagged with the artifact it belongs to (one query reads many). */
interface AssociationRow extends StoredArtifactEpisodeRow {
  artifact_key: string;
}

const ARTIFACT_COLUMNS = 'a.key, a.kind, a.content_json, a.created_at, a.updated_at';

/**
 * The SQL of one `listArtifacts` scan: every variant walks an index in key order (the primary key,
 * `(kind, key)`, or `(episode_ref, artifact_key)`), so a page costs the rows it returns. Keys are
 * compared in the "C" collation, the byte order core's contract asks for. Exported for tests.
 */
export function buildArtifactScan(
  tables: StoreTables,
  scan: ArtifactScan,
): { text: string; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  let from = `${tables.artifacts} a`;
  if (scan.episode !== undefined) {
    from = `${tables.artifactEpisodes} e JOIN ${tables.artifacts} a ON a.key = e.artifact_key`;
    values.push(scan.episode);
    where.push(`e.episode_ref = $${values.length}`);
  }
  if (scan.kind !== undefined) {
    values.push(scan.kind);
    where.push(`a.kind = $${values.length}`);
  }
  if (scan.afterKey !== undefined) {
    values.push(scan.afterKey);
    where.push(`${scan.episode === undefined ? 'a.key' : 'e.artifact_key'} > $${values.length}`);
  }
  const order = scan.episode === undefined ? 'a.key' : 'e.artifact_key';
  values.push(scan.limit);
  return {
    text: `SELECT ${ARTIFACT_COLUMNS} FROM ${from}${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY ${order} LIMIT $${values.length}`,
    values,
  };
}

/**
 * The artifact store adapter over `episodic_artifacts`, `episodic_artifact_episodes` and
 * `episodic_episode_metadata`. An upsert and an episode deletion are each one transaction that
 * locks the artifact rows it changes (an upsert through its `INSERT … ON CONFLICT`, a deletion
 * with `SELECT … FOR UPDATE` in key order), so concurrent writers on several machines never
 * interleave an artifact's associations or delete an artifact another writer is associating.
 */
export function createPostgresArtifactStoreAdapter(
  database: PostgresDatabase,
  scrubber: Scrubber,
): ArtifactStoreAdapter {
  const { tables } = database;
  const selectArtifact = database.statement(
    'artifacts_get',
    `SELECT ${ARTIFACT_COLUMNS} FROM ${tables.artifacts} a WHERE a.key = $1`,
  );
  const selectAssociations = database.statement(
    'artifacts_associations',
    `SELECT e.artifact_key, e.episode_ref, m.metadata_json FROM ${tables.artifactEpisodes} e
LEFT JOIN ${tables.episodeMetadata} m ON m.episode_ref = e.episode_ref
WHERE e.artifact_key = ANY($1::text[]) ORDER BY e.artifact_key, e.ordinal`,
  );
  // Inserts, or replaces content and updated_at when the kind matches; a row comes back either way
  // only when it was written, so a kind mismatch returns nothing and changes nothing.
  const upsertArtifact = database.statement(
    'artifacts_upsert',
    `INSERT INTO ${tables.artifacts} AS a (key, kind, content_json, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
ON CONFLICT (key) DO UPDATE SET content_json = excluded.content_json, updated_at = excluded.updated_at
WHERE a.kind = excluded.kind
RETURNING a.key`,
  );
  const selectKind = database.statement(
    'artifacts_kind',
    `SELECT kind FROM ${tables.artifacts} WHERE key = $1`,
  );
  const associate = database.statement(
    'artifacts_associate',
    `INSERT INTO ${tables.artifactEpisodes} (artifact_key, episode_ref, ordinal)
SELECT $1, r.ref, (SELECT coalesce(max(ordinal), 0) FROM ${tables.artifactEpisodes} WHERE artifact_key = $1) + r.n
FROM (
  SELECT ref, row_number() OVER (ORDER BY ord) AS n
  FROM unnest($2::text[]) WITH ORDINALITY AS u(ref, ord)
  WHERE NOT EXISTS (SELECT 1 FROM ${tables.artifactEpisodes} x WHERE x.artifact_key = $1 AND x.episode_ref = u.ref)
) r`,
  );
  const selectMetadata = database.statement(
    'artifacts_metadata',
    `SELECT metadata_json FROM ${tables.episodeMetadata} WHERE episode_ref = $1`,
  );
  const upsertMetadata = database.statement(
    'artifacts_set_metadata',
    `INSERT INTO ${tables.episodeMetadata} (episode_ref, metadata_json) VALUES ($1, $2)
ON CONFLICT (episode_ref) DO UPDATE SET metadata_json = excluded.metadata_json`,
  );
  const deleteMetadata = database.statement(
    'artifacts_delete_metadata',
    `DELETE FROM ${tables.episodeMetadata} WHERE episode_ref = $1`,
  );
  const lockArtifactsOfEpisode = database.statement(
    'artifacts_lock_of_episode',
    `SELECT a.key FROM ${tables.artifacts} a WHERE a.key IN (SELECT artifact_key FROM ${tables.artifactEpisodes} WHERE episode_ref = $1) ORDER BY a.key FOR UPDATE`,
  );
  const deleteAssociations = database.statement(
    'artifacts_delete_associations',
    `DELETE FROM ${tables.artifactEpisodes} WHERE episode_ref = $1`,
  );
  const deleteOrphans = database.statement(
    'artifacts_delete_orphans',
    `DELETE FROM ${tables.artifacts} a WHERE a.key = ANY($1::text[])
AND NOT EXISTS (SELECT 1 FROM ${tables.artifactEpisodes} e WHERE e.artifact_key = a.key) RETURNING a.key`,
  );

  const recordsOf = async (rows: StoredArtifactRow[], on?: Queryable) => {
    if (rows.length === 0) return [];
    const associations = (
      await database.query<AssociationRow>(selectAssociations, [rows.map((row) => row.key)], on)
    ).rows;
    const byKey = new Map<string, AssociationRow[]>();
    for (const association of associations) {
      const list = byKey.get(association.artifact_key) ?? [];
      list.push(association);
      byKey.set(association.artifact_key, list);
    }
    return rows.map((row) => storedArtifactRecord(row, byKey.get(row.key) ?? []));
  };

  return {
    specificationVersion: 'v1',
    name: 'postgres',
    capabilities: { atomicWrites: true, crossProcess: true },

    upsertArtifact(input) {
      return database.guard(`upsert artifact ${input.key}`, () =>
        database.transaction(async (client) => {
          const written = await database.query(
            upsertArtifact,
            [input.key, input.kind, JSON.stringify(input.content), input.at],
            client,
          );
          if (written.rowCount === 0) {
            const stored = (await database.query<{ kind: string }>(selectKind, [input.key], client))
              .rows[0];
            assertSameArtifactKind(input.key, stored?.kind ?? input.kind, input.kind);
          }
          // The artifact's row is locked now: no other writer numbers its associations meanwhile.
          if (input.episodes.length > 0) {
            await database.query(associate, [input.key, input.episodes], client);
          }
          const row = (await database.query<StoredArtifactRow>(selectArtifact, [input.key], client))
            .rows[0] as StoredArtifactRow;
          return (await recordsOf([row], client))[0] as ArtifactRecord;
        }),
      );
    },

    getArtifact(key) {
      return database.guard(`read artifact ${key}`, async () => {
        const rows = (await database.query<StoredArtifactRow>(selectArtifact, [key])).rows;
        return rows.length === 0 ? null : ((await recordsOf(rows))[0] as ArtifactRecord);
      });
    },

    listArtifacts(scan) {
      return database.guard('list artifacts', async () => {
        const { text, values } = buildArtifactScan(tables, scan);
        return recordsOf(
          (await database.query<StoredArtifactRow>(database.prepared(text), values)).rows,
        );
      });
    },

    setEpisodeMetadata(ref, metadata) {
      return database.guard(`set the metadata of ${ref}`, async () => {
        if (metadata === null) await database.query(deleteMetadata, [ref]);
        else await database.query(upsertMetadata, [ref, JSON.stringify(metadata)]);
      });
    },

    getEpisodeMetadata(ref) {
      return database.guard(`read the metadata of ${ref}`, async () =>
        storedEpisodeMetadata(
          (await database.query<{ metadata_json: string }>(selectMetadata, [ref])).rows[0]
            ?.metadata_json,
          ref,
        ),
      );
    },

    deleteEpisode(ref) {
      return database.guard(`delete episode ${ref}`, () =>
        database.transaction(async (client) => {
          const removedMetadata =
            ((await database.query(deleteMetadata, [ref], client)).rowCount ?? 0) > 0;
          const keys = (
            await database.query<{ key: string }>(lockArtifactsOfEpisode, [ref], client)
          ).rows.map((row) => row.key);
          await database.query(deleteAssociations, [ref], client);
          const deleted = new Set(
            (await database.query<{ key: string }>(deleteOrphans, [keys], client)).rows.map(
              (row) => row.key,
            ),
          );
          return {
            episode: ref,
            deletedArtifacts: keys.filter((key) => deleted.has(key)),
            updatedArtifacts: keys.filter((key) => !deleted.has(key)),
            removedMetadata,
          };
        }),
      );
    },

    eraseReplaced() {
      // The old row versions stay in the table file until it is rewritten (when the store scrubs).
      return scrubber.scrub([tables.episodeMetadata]);
    },
  };
}
