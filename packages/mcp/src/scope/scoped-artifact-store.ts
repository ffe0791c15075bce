import type {
  Artifact,
  ArtifactPage,
  ArtifactStore,
  ListArtifactsQuery,
  UpsertArtifactInput,
} from '@episodic/core';
import { DEFAULT_SCOPE } from './bound-scope.js';

/** Artifact keys of a scope other than the default start with this marker. */
const SCOPED_KEY_MARKER = 'scope=';

/** An artifact store restricted to one scope's key namespace. */
export interface ScopedArtifactStore extends ArtifactStore {
  /** The key as the scope sees it (without the namespace), or null when the key is not the scope's. */
  localKey(storedKey: string): string | null;
}

/**
 * The stored key prefix of a scope: `scope=<scope>@`, or nothing for the default scope (so
 * artifacts written by a lifecycle without a scope, e.g. the CLI's, belong to the default scope).
 * `@` cannot occur in a normalized scope, so no scope's prefix is a prefix of another's.
 */
export function artifactKeyPrefix(scope: string): string {
  return scope === DEFAULT_SCOPE ? '' : `${SCOPED_KEY_MARKER}${scope}@`;
}

/**
 * The scope a stored artifact key belongs to, and the key as that scope sees it: `scope=<s>@<key>`
 * belongs to `<s>`, any other key to the default scope.
 */
export function scopeOfArtifactKey(storedKey: string): { scope: string; key: string } {
  if (storedKey.startsWith(SCOPED_KEY_MARKER)) {
    const end = storedKey.indexOf('@', SCOPED_KEY_MARKER.length);
    if (end > SCOPED_KEY_MARKER.length) {
      return {
        scope: storedKey.slice(SCOPED_KEY_MARKER.length, end),
        key: storedKey.slice(end + 1),
      };
    }
  }
  return { scope: DEFAULT_SCOPE, key: storedKey };
}

/**
 * A key after every scoped key: normalized scopes are at most 128 characters of `[a-z0-9._:/-]`,
 * all at or below `z`, and each is followed by `@`, which sorts below `z`.
 */
const SCOPED_RANGE_END = `${SCOPED_KEY_MARKER}${'z'.repeat(250)}`;

/**
 * Restricts an artifact store to one scope: every key the scope writes is stored under the scope's
 * prefix, and reads see only keys under it, with the prefix removed. Patterns learned in one scope
 * are therefore separate artifacts from the same patterns learned in another, and their effective
 * metadata only ever comes from the scope's own episodes. Episode-level calls (metadata, its
 * redaction, deleting an episode) pass through: episode references are globally unique ids that
 * the caller has already checked belong to the scope.
 */
export function createScopedArtifactStore(
  artifacts: ArtifactStore,
  scope: string,
): ScopedArtifactStore {
  const prefix = artifactKeyPrefix(scope);
  const owns = (key: string): boolean =>
    prefix === '' ? !key.startsWith(SCOPED_KEY_MARKER) : key.startsWith(prefix);
  const localKey = (key: string): string | null => (owns(key) ? key.slice(prefix.length) : null);
  const local = (artifact: Artifact): Artifact => ({
    ...artifact,
    key: artifact.key.slice(prefix.length),
  });

  return {
    name: artifacts.name,
    capabilities: artifacts.capabilities,
    localKey,

    async upsert(input: UpsertArtifactInput) {
      return local(await artifacts.upsert({ ...input, key: `${prefix}${input.key}` }));
    },

    async get(key, options) {
      const found = await artifacts.get(`${prefix}${key}`, options);
      return found === null ? null : local(found);
    },

    async list(query: ListArtifactsQuery = {}): Promise<ArtifactPage> {
      const limit = query.limit ?? 100;
      const found: Artifact[] = [];
      // Every key of a scoped namespace sorts after the bare prefix.
      let afterKey =
        query.afterKey !== undefined
          ? `${prefix}${query.afterKey}`
          : prefix === ''
            ? undefined
            : prefix;
      for (;;) {
        const page = await artifacts.list({ ...query, limit, afterKey });
        let jumped = false;
        for (const artifact of page.artifacts) {
          if (!owns(artifact.key)) {
            // Keys are sorted: past a scoped namespace nothing of it follows. The default scope
            // skips the block of scoped keys in one step.
            if (prefix !== '') return { artifacts: found, nextKey: null };
            afterKey = SCOPED_RANGE_END;
            jumped = true;
            break;
          }
          found.push(local(artifact));
          if (found.length === limit) {
            return { artifacts: found, nextKey: artifact.key.slice(prefix.length) };
          }
        }
        if (jumped) continue;
        if (page.nextKey === null) return { artifacts: found, nextKey: null };
        afterKey = page.nextKey;
      }
    },

    setEpisodeMetadata: (ref, metadata) => artifacts.setEpisodeMetadata(ref, metadata),
    getEpisodeMetadata: (ref) => artifacts.getEpisodeMetadata(ref),
    redactEpisodeMetadata: (ref, options) => artifacts.redactEpisodeMetadata(ref, options),

    async deleteEpisode(ref) {
      const receipt = await artifacts.deleteEpisode(ref);
      const strip = (keys: string[]) =>
        keys.flatMap((key) => {
          const mine = localKey(key);
          return mine === null ? [] : [mine];
        });
      return {
        ...receipt,
        deletedArtifacts: strip(receipt.deletedArtifacts),
        updatedArtifacts: strip(receipt.updatedArtifacts),
      };
    },

    close: () => artifacts.close(),
  };
}
