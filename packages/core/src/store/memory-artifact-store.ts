import type { EpisodeRef } from '../schema/artifact.js';
import type { Metadata } from '../schema/metadata.js';
import type { JsonValue } from '../util/json.js';
import {
  type ArtifactRecord,
  type ArtifactStore,
  type ArtifactStoreAdapter,
  type ArtifactStoreOptions,
  assertSameArtifactKind,
  createArtifactStore,
  type DeleteEpisodeReceipt,
} from './artifact-store.js';

interface StoredArtifact {
  kind: string;
  /** The content as JSON text, so every read returns a fresh copy. */
  content: string;
  createdAt: string;
  updatedAt: string;
  /** Associated episodes in association order. */
  episodes: EpisodeRef[];
}

/**
 * The in-memory reference artifact store. Content and metadata are kept as JSON text, so what a
 * caller reads back is always a fresh copy. Every operation runs synchronously, so each one is
 * atomic with respect to the others.
 */
export function createMemoryArtifactStoreAdapter(): ArtifactStoreAdapter {
  const artifacts = new Map<string, StoredArtifact>();
  const metadata = new Map<EpisodeRef, string>();
  const artifactsOfEpisode = new Map<EpisodeRef, Set<string>>();

  const metadataOf = (ref: EpisodeRef): Metadata | null => {
    const text = metadata.get(ref);
    return text === undefined ? null : (JSON.parse(text) as Metadata);
  };
  const recordOf = (key: string, stored: StoredArtifact): ArtifactRecord => ({
    key,
    kind: stored.kind,
    content: JSON.parse(stored.content) as JsonValue,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    episodes: stored.episodes.map((ref) => ({ ref, metadata: metadataOf(ref) })),
  });

  return {
    specificationVersion: 'v1',
    name: 'memory',
    capabilities: { atomicWrites: true, crossProcess: false },

    upsertArtifact({ key, kind, content, episodes, at }) {
      const existing = artifacts.get(key);
      if (existing !== undefined) assertSameArtifactKind(key, existing.kind, kind);
      const stored: StoredArtifact = existing ?? {
        kind,
        content: '',
        createdAt: at,
        updatedAt: at,
        episodes: [],
      };
      stored.content = JSON.stringify(content);
      stored.updatedAt = at;
      for (const ref of episodes) {
        if (stored.episodes.includes(ref)) continue;
        stored.episodes.push(ref);
        let keys = artifactsOfEpisode.get(ref);
        if (keys === undefined) {
          keys = new Set();
          artifactsOfEpisode.set(ref, keys);
        }
        keys.add(key);
      }
      artifacts.set(key, stored);
      return recordOf(key, stored);
    },

    getArtifact(key) {
      const stored = artifacts.get(key);
      return stored === undefined ? null : recordOf(key, stored);
    },

    listArtifacts({ kind, episode, afterKey, limit }) {
      const candidates =
        episode === undefined
          ? [...artifacts.keys()]
          : [...(artifactsOfEpisode.get(episode) ?? [])];
      const keys = candidates
        .filter((key) => afterKey === undefined || key > afterKey)
        .filter((key) => kind === undefined || artifacts.get(key)?.kind === kind)
        .sort()
        .slice(0, limit);
      return keys.map((key) => recordOf(key, artifacts.get(key) as StoredArtifact));
    },

    setEpisodeMetadata(ref, value) {
      if (value === null) metadata.delete(ref);
      else metadata.set(ref, JSON.stringify(value));
    },

    getEpisodeMetadata(ref) {
      return metadataOf(ref);
    },

    deleteEpisode(ref): DeleteEpisodeReceipt {
      const removedMetadata = metadata.delete(ref);
      const deletedArtifacts: string[] = [];
      const updatedArtifacts: string[] = [];
      for (const key of [...(artifactsOfEpisode.get(ref) ?? [])].sort()) {
        const stored = artifacts.get(key);
        if (stored === undefined) continue;
        stored.episodes = stored.episodes.filter((episode) => episode !== ref);
        if (stored.episodes.length === 0) {
          artifacts.delete(key);
          deletedArtifacts.push(key);
        } else {
          updatedArtifacts.push(key);
        }
      }
      artifactsOfEpisode.delete(ref);
      return { episode: ref, deletedArtifacts, updatedArtifacts, removedMetadata };
    },
  };
}

/** An in-memory `ArtifactStore` (for tests, examples and short-lived agents). */
export function createMemoryArtifactStore(options?: ArtifactStoreOptions): ArtifactStore {
  return createArtifactStore(createMemoryArtifactStoreAdapter(), options);
}
