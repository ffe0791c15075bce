import type { ArtifactRecord, EpisodeRef, JsonValue, Metadata } from '../core-kit.js';
import type { KeyValueStore, KvEntry } from '../kv/key-value-store.js';

/**
 * The artifact store's keys: one value per artifact (`artifacts/item/<key>`) and one per episode
 * that has metadata or associations (`artifacts/episode/<ref>`). An association is written on
 * both sides in the same compare-and-set, so the two never disagree.
 */
export const ITEM_PREFIX = 'artifacts/item/';

export const itemKey = (key: string): string => `${ITEM_PREFIX}${key}`;

export const episodeKey = (ref: EpisodeRef): string => `artifacts/episode/${ref}`;

export interface ItemValue {
  readonly kind: string;
  readonly content: JsonValue;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The associated episodes, in association order. */
  readonly episodes: EpisodeRef[];
}

export interface EpisodeValue {
  readonly metadata: Metadata | null;
  /** The keys of the artifacts associated with the episode. */
  readonly artifacts: string[];
}

/** A value as read, kept raw so a write can check it did not change. */
export interface Read<T> {
  readonly entry: KvEntry;
  readonly parsed: T | undefined;
}

export async function readValue<T>(kv: KeyValueStore, key: string): Promise<Read<T>> {
  const value = await kv.get(key);
  return {
    entry: { key, value },
    parsed: value === undefined ? undefined : (JSON.parse(value) as T),
  };
}

/** The write of an episode's value; an episode without metadata or associations is deleted. */
export function episodeWrite(ref: EpisodeRef, episode: EpisodeValue): KvEntry {
  const empty = episode.metadata === null && episode.artifacts.length === 0;
  return { key: episodeKey(ref), value: empty ? undefined : JSON.stringify(episode) };
}

/** An artifact as the adapter returns it, with each associated episode's current metadata. */
export async function artifactRecord(
  kv: KeyValueStore,
  key: string,
  item: ItemValue,
): Promise<ArtifactRecord> {
  const episodes = [];
  for (const ref of item.episodes) {
    const episode = await readValue<EpisodeValue>(kv, episodeKey(ref));
    episodes.push({ ref, metadata: episode.parsed?.metadata ?? null });
  }
  const { kind, content, createdAt, updatedAt } = item;
  return { key, kind, content, createdAt, updatedAt, episodes };
}
