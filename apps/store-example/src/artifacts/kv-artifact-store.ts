import { type ArtifactStoreAdapter, assertSameArtifactKind } from '../core-kit.js';
import type { KeyValueStore, KvEntry } from '../kv/key-value-store.js';
import { transact } from '../kv/transact.js';
import {
  artifactRecord,
  type EpisodeValue,
  episodeKey,
  episodeWrite,
  ITEM_PREFIX,
  type ItemValue,
  itemKey,
  readValue,
} from './artifact-values.js';

/** An artifact store adapter over a key-value store (see `artifact-values.ts` for its keys). */
export function createKvArtifactStoreAdapter(kv: KeyValueStore): ArtifactStoreAdapter {
  return {
    specificationVersion: 'v1',
    name: 'kv',
    capabilities: { atomicWrites: true, crossProcess: false },

    upsertArtifact: ({ key, kind, content, episodes, at }) =>
      transact(kv, async () => {
        const read = await readValue<ItemValue>(kv, itemKey(key));
        if (read.parsed !== undefined) assertSameArtifactKind(key, read.parsed.kind, kind);
        const known = read.parsed?.episodes ?? [];
        const added = episodes.filter((ref) => !known.includes(ref));
        const item: ItemValue = {
          kind,
          content,
          createdAt: read.parsed?.createdAt ?? at,
          updatedAt: at,
          episodes: [...known, ...added],
        };
        const checks: KvEntry[] = [read.entry];
        const writes: KvEntry[] = [{ key: itemKey(key), value: JSON.stringify(item) }];
        for (const ref of added) {
          const episode = await readValue<EpisodeValue>(kv, episodeKey(ref));
          checks.push(episode.entry);
          const { metadata = null, artifacts = [] } = episode.parsed ?? {};
          writes.push(episodeWrite(ref, { metadata, artifacts: [...artifacts, key] }));
        }
        return { checks, writes, result: await artifactRecord(kv, key, item) };
      }),

    async getArtifact(key) {
      const read = await readValue<ItemValue>(kv, itemKey(key));
      return read.parsed === undefined ? null : artifactRecord(kv, key, read.parsed);
    },

    async listArtifacts({ kind, episode, afterKey, limit }) {
      const candidates =
        episode === undefined
          ? (await kv.keys(ITEM_PREFIX)).map((key) => key.slice(ITEM_PREFIX.length))
          : ((await readValue<EpisodeValue>(kv, episodeKey(episode))).parsed?.artifacts ?? []);
      const keys = candidates.filter((key) => afterKey === undefined || key > afterKey).sort();
      const records = [];
      for (const key of keys) {
        if (records.length >= limit) break;
        const item = (await readValue<ItemValue>(kv, itemKey(key))).parsed;
        if (item === undefined || (kind !== undefined && item.kind !== kind)) continue;
        records.push(await artifactRecord(kv, key, item));
      }
      return records;
    },

    setEpisodeMetadata: (ref, metadata) =>
      transact(kv, async () => {
        const read = await readValue<EpisodeValue>(kv, episodeKey(ref));
        const artifacts = read.parsed?.artifacts ?? [];
        return {
          checks: [read.entry],
          writes: [episodeWrite(ref, { metadata, artifacts })],
          result: undefined,
        };
      }),

    async getEpisodeMetadata(ref) {
      return (await readValue<EpisodeValue>(kv, episodeKey(ref))).parsed?.metadata ?? null;
    },

    deleteEpisode: (ref) =>
      transact(kv, async () => {
        const read = await readValue<EpisodeValue>(kv, episodeKey(ref));
        const checks: KvEntry[] = [read.entry];
        const writes: KvEntry[] = [{ key: episodeKey(ref), value: undefined }];
        const deletedArtifacts: string[] = [];
        const updatedArtifacts: string[] = [];
        for (const key of [...(read.parsed?.artifacts ?? [])].sort()) {
          const item = await readValue<ItemValue>(kv, itemKey(key));
          if (item.parsed === undefined) continue;
          checks.push(item.entry);
          const episodes = item.parsed.episodes.filter((episode) => episode !== ref);
          if (episodes.length === 0) {
            writes.push({ key: itemKey(key), value: undefined });
            deletedArtifacts.push(key);
          } else {
            writes.push({ key: itemKey(key), value: JSON.stringify({ ...item.parsed, episodes }) });
            updatedArtifacts.push(key);
          }
        }
        const removedMetadata = (read.parsed?.metadata ?? null) !== null;
        const result = { episode: ref, deletedArtifacts, updatedArtifacts, removedMetadata };
        return { checks, writes, result };
      }),
  };
}
