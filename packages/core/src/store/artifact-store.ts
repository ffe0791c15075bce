import * as z from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import { type AccessPolicy, compileAccessPolicy } from '../provenance/access-policy.js';
import { type EffectiveMetadata, effectiveMetadata } from '../provenance/effective-metadata.js';
import { compileMetadataFilter } from '../provenance/evaluate-filter.js';
import type { MetadataFilter } from '../provenance/metadata-filter.js';
import {
  artifactKeySchema,
  artifactKindSchema,
  type EpisodeRef,
  episodeRefSchema,
  normalizeEpisodeRef,
  type UpsertArtifactInput,
  upsertArtifactInputSchema,
} from '../schema/artifact.js';
import { type Metadata, metadataSchema } from '../schema/metadata.js';
import { frozenJsonCopy, type JsonValue, safeJsonParse } from '../util/json.js';
import { parseInput } from '../validation/parse-input.js';
import type { MaybePromise } from './maybe-promise.js';
import { callAdapter } from './storage-error.js';
import {
  createStoredRedactor,
  parseStoredRedactionOptions,
  type StoredRedactionOptions,
} from './stored-redaction.js';

/** What an artifact store backend can promise, declared as data. */
export interface ArtifactStoreCapabilities {
  /** Upserts, metadata writes and episode deletions are all-or-nothing, even across a crash. */
  readonly atomicWrites: boolean;
  /** Several processes may share the store (a database file), not only one. */
  readonly crossProcess: boolean;
}

/** An associated episode as an adapter returns it: its reference and current metadata. */
export interface ArtifactEpisodeRecord {
  /** The episode reference (`task:<uuid>`, `session:<uuid>#<id>`, `ledger:<event_id>`). */
  ref: EpisodeRef;
  /** The episode's metadata, or null when none was set. */
  metadata: Metadata | null;
}

/** An artifact as an adapter stores it. */
export interface ArtifactRecord {
  /** The stable key. */
  key: string;
  /** The kind, e.g. `pattern`. */
  kind: string;
  /** The content (JSON). */
  content: JsonValue;
  /** When the key was first upserted (ISO-8601). */
  createdAt: string;
  /** When the key was last upserted (ISO-8601). */
  updatedAt: string;
  /** The associated episodes in association order (first association first), with their metadata. */
  episodes: ArtifactEpisodeRecord[];
}

/** What an adapter's `upsertArtifact` receives (already validated and normalized by core). */
export interface ArtifactUpsert {
  key: string;
  kind: string;
  content: JsonValue;
  /** Normalized, distinct episode references, in the caller's order. */
  episodes: EpisodeRef[];
  /** The time of this write (ISO-8601), from the store's clock. */
  at: string;
}

/** What an adapter's `listArtifacts` receives. */
export interface ArtifactScan {
  /** Only artifacts of this kind. */
  kind?: string | undefined;
  /** Only artifacts associated with this episode. */
  episode?: EpisodeRef | undefined;
  /** Only keys strictly after this one. */
  afterKey?: string | undefined;
  /** At most this many artifacts (1 to 1,000). */
  limit: number;
}

/** The receipt of `deleteEpisode`. */
export interface DeleteEpisodeReceipt {
  /** The episode that was deleted. */
  episode: EpisodeRef;
  /** Artifacts deleted because this was their last associated episode, ascending by key. */
  deletedArtifacts: string[];
  /** Artifacts that lost this episode (and its metadata contribution) but keep others, by key. */
  updatedArtifacts: string[];
  /** Whether metadata was stored for the episode. */
  removedMetadata: boolean;
}

/**
 * The adapter an artifact store backend implements. Small on purpose: core's `createArtifactStore`
 * validates every input first, evaluates metadata filters and access policies with the single
 * provenance evaluator, and translates failures into domain errors.
 */
export interface ArtifactStoreAdapter {
  /** The contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** A short backend name for messages, e.g. `memory` or `sqlite`. */
  readonly name: string;
  /** What the backend promises. */
  readonly capabilities: ArtifactStoreCapabilities;
  /**
   * Atomically creates the artifact, or for an existing key replaces its content, sets `updatedAt`
   * and appends the episodes not yet associated (keeping the earlier associations and their
   * order). An existing key of another kind throws `CONFLICT` (use `assertSameArtifactKind`) and
   * changes nothing. Returns the stored artifact.
   */
  upsertArtifact(input: ArtifactUpsert): MaybePromise<ArtifactRecord>;
  /** The artifact, or null. */
  getArtifact(key: string): MaybePromise<ArtifactRecord | null>;
  /** Artifacts in ascending key order (keys are ASCII, so byte and code unit order agree). */
  listArtifacts(scan: ArtifactScan): MaybePromise<ArtifactRecord[]>;
  /** Sets (or, with null, clears) an episode's metadata, whether or not it has associations yet. */
  setEpisodeMetadata(ref: EpisodeRef, metadata: Metadata | null): MaybePromise<void>;
  /** An episode's metadata, or null. */
  getEpisodeMetadata(ref: EpisodeRef): MaybePromise<Metadata | null>;
  /**
   * Atomically removes an episode: its metadata and its associations; an artifact is deleted only
   * when no associated episode remains. Deleting an unknown episode is not an error.
   */
  deleteEpisode(ref: EpisodeRef): MaybePromise<DeleteEpisodeReceipt>;
  /**
   * Removes from the backend's files the old bytes of the metadata `setEpisodeMetadata` replaced
   * (optional: a backend that keeps no such copy, like memory, leaves it out). Called after a
   * redaction rewrote metadata (e.g. SQLite: the WAL's page images; PostgreSQL: the dead row
   * versions, with `VACUUM (FULL)`).
   */
  eraseReplaced?(): MaybePromise<void>;
  /** Releases the backend's resources. */
  close?(): MaybePromise<void>;
}

/** An artifact as callers see it. */
export interface Artifact {
  /** The stable key. */
  key: string;
  /** The kind, e.g. `pattern`. */
  kind: string;
  /** The content (JSON). */
  content: JsonValue;
  /** When the key was first upserted. */
  createdAt: string;
  /** When the key was last upserted. */
  updatedAt: string;
  /** The associated episodes, in association order. */
  episodes: EpisodeRef[];
  /** Per key, the distinct metadata values of the associated episodes, first-seen order. */
  effectiveMetadata: EffectiveMetadata;
}

/** A query for `list`. */
export interface ListArtifactsQuery {
  /** Only artifacts of this kind. */
  kind?: string | undefined;
  /** Only artifacts associated with this episode. */
  episode?: EpisodeRef | undefined;
  /** Only artifacts of which ONE associated episode satisfies the whole filter. */
  filter?: MetadataFilter | undefined;
  /** Only artifacts visible under this access policy (by effective metadata). */
  policy?: AccessPolicy | undefined;
  /**
   * At most this many artifacts (1 to 500).
   * @default 100
   */
  limit?: number | undefined;
  /** Continue after this key (the previous page's `nextKey`). */
  afterKey?: string | undefined;
}

/** One page of `list`. */
export interface ArtifactPage {
  /** Matching artifacts in ascending key order. */
  artifacts: Artifact[];
  /** Pass as `afterKey` for the next page; null when this was the last (a next page may be empty). */
  nextKey: string | null;
}

/** Options of `get`. */
export interface GetArtifactOptions {
  /** Returns null unless the artifact is visible under this access policy. */
  policy?: AccessPolicy | undefined;
}

/** The artifact store callers use: always promises, validated input, domain errors. */
export interface ArtifactStore {
  /** The backend name. */
  readonly name: string;
  /** What the backend promises. */
  readonly capabilities: ArtifactStoreCapabilities;
  /**
   * Creates or updates the artifact `key` and associates it with `episodes`. Upserting an existing
   * key replaces the content and adds the new associations; it never duplicates one.
   */
  upsert(input: UpsertArtifactInput): Promise<Artifact>;
  /** The artifact, or null when it does not exist (or is not visible under `options.policy`). */
  get(key: string, options?: GetArtifactOptions): Promise<Artifact | null>;
  /** Lists (searches) artifacts by kind, episode, metadata filter and access policy. */
  list(query?: ListArtifactsQuery): Promise<ArtifactPage>;
  /** Sets an episode's metadata (at most 10 keys); null clears it. */
  setEpisodeMetadata(ref: EpisodeRef, metadata: Metadata | null): Promise<void>;
  /** An episode's metadata, or null. */
  getEpisodeMetadata(ref: EpisodeRef): Promise<Metadata | null>;
  /** Deletes an episode's metadata and associations, garbage-collecting orphaned artifacts. */
  deleteEpisode(ref: EpisodeRef): Promise<DeleteEpisodeReceipt>;
  /**
   * Scrubs an episode's metadata in place with the rules of a run's copy of it (`run.start`'s
   * `task.metadata`: values and keys, see `StoredRedactionOptions`), then removes the old bytes
   * from the backend's files. Use `redactRun` to scrub a run with its task's metadata.
   */
  redactEpisodeMetadata(
    ref: EpisodeRef,
    options?: StoredRedactionOptions,
  ): Promise<EpisodeMetadataRedactReceipt>;
  /** Closes the backend. */
  close(): Promise<void>;
}

/** What `ArtifactStore.redactEpisodeMetadata()` did. */
export interface EpisodeMetadataRedactReceipt {
  /** The episode (normalized). */
  episode: EpisodeRef;
  /** True when the stored metadata was rewritten (false: none stored, or nothing to replace). */
  changed: boolean;
  /** Detector findings (`secrets`) or string values and keys (`content`) replaced. */
  replacements: number;
}

/**
 * Metadata scrubbed with the rules of a run's copy of it (`run.start`'s `task.metadata`, keys and
 * values): it is redacted as that line, so one implementation decides both copies. Null when
 * nothing changes.
 */
function redactTaskMetadata(
  metadata: Metadata,
  options: StoredRedactionOptions,
): { metadata: Metadata; replacements: number } | null {
  const redactor = createStoredRedactor(options);
  const line = JSON.stringify({ type: 'run.start', task: { metadata } });
  const next = redactor.line(line);
  if (next === line) return null;
  // Still metadata: strings stay strings, keys stay unique and within the key limit.
  const redacted = parseInput(
    metadataSchema,
    (JSON.parse(next) as { task: { metadata: unknown } }).task.metadata,
    'redacted metadata',
  );
  return { metadata: redacted, replacements: redactor.counts.replacements };
}

/** Options of `createArtifactStore`. */
export interface ArtifactStoreOptions {
  /**
   * The clock that stamps `createdAt` and `updatedAt`.
   * @default () => new Date()
   */
  now?: () => Date;
}

/**
 * A JSON column an artifact backend stored (an artifact's content, an episode's metadata), parsed;
 * `CORRUPT_DATA` naming `what` when it is not JSON.
 */
export function parseStoredArtifactJson(text: string, what: string): unknown {
  const parsed = safeJsonParse(text);
  if (parsed.success) return parsed.value;
  throw new EpisodicError({
    code: 'CORRUPT_DATA',
    message: `The stored ${what} is unreadable (${parsed.error}). Upsert it again, or delete the episodes it came from.`,
    details: { what },
  });
}

/** An artifact as a SQL backend stores it: content as JSON text. */
export interface StoredArtifactRow {
  readonly key: string;
  readonly kind: string;
  readonly content_json: string;
  readonly created_at: string;
  readonly updated_at: string;
}

/** One of an artifact's episodes as a SQL backend stores it, with the episode's metadata JSON. */
export interface StoredArtifactEpisodeRow {
  readonly episode_ref: string;
  readonly metadata_json: string | null;
}

/** An episode's stored metadata JSON as the contract returns it (null when it has none). */
export function storedEpisodeMetadata(
  text: string | null | undefined,
  ref: EpisodeRef,
): Metadata | null {
  return text === null || text === undefined
    ? null
    : (parseStoredArtifactJson(text, `metadata of ${ref}`) as Metadata);
}

/** The `ArtifactRecord` of a stored row and its episodes (in association order). */
export function storedArtifactRecord(
  row: StoredArtifactRow,
  episodes: readonly StoredArtifactEpisodeRow[],
): ArtifactRecord {
  return {
    key: row.key,
    kind: row.kind,
    content: parseStoredArtifactJson(
      row.content_json,
      `content of artifact ${row.key}`,
    ) as JsonValue,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    episodes: episodes.map(
      (episode): ArtifactEpisodeRecord => ({
        ref: episode.episode_ref,
        metadata: storedEpisodeMetadata(episode.metadata_json, episode.episode_ref),
      }),
    ),
  };
}

/** Throws `CONFLICT` when an existing artifact `key` has another kind than the upsert's. */
export function assertSameArtifactKind(key: string, storedKind: string, kind: string): void {
  if (storedKind === kind) return;
  throw new EpisodicError({
    code: 'CONFLICT',
    message: `Artifact ${key} already exists with kind "${storedKind}", not "${kind}". Use another key for a ${kind}, or upsert it with kind "${storedKind}"; nothing was changed.`,
    details: { key, storedKind, kind },
  });
}

const LIST_DEFAULT_LIMIT = 100;
const LIST_MAX_LIMIT = 500;
const SCAN_BATCH = 200;

/** The error of an adapter whose `listArtifacts` returned more artifacts than `limit` allows. */
function scanOverLimit(name: string, returned: number): EpisodicError {
  return new EpisodicError({
    code: 'STORAGE_ERROR',
    message: `The ${name} artifact store returned ${returned} artifacts to a scan limited to ${SCAN_BATCH}: its listArtifacts ignores ArtifactScan.limit. Fix the store adapter (stop after limit artifacts).`,
    details: { store: name, returned, limit: SCAN_BATCH },
  });
}

const listQuerySchema = z
  .strictObject({
    kind: artifactKindSchema.optional(),
    episode: episodeRefSchema.optional(),
    filter: z.unknown().optional(),
    policy: z.unknown().optional(),
    limit: z.number().int().min(1).max(LIST_MAX_LIMIT).optional(),
    afterKey: artifactKeySchema.optional(),
  })
  .optional();

const getOptionsSchema = z.strictObject({ policy: z.unknown().optional() }).optional();

function checkAdapter(adapter: ArtifactStoreAdapter): void {
  if (adapter?.specificationVersion !== 'v1') {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: `This artifact store adapter implements specification ${String(adapter?.specificationVersion)}, but @episodic/core needs 'v1'. Upgrade the store package to match @episodic/core.`,
      details: { specificationVersion: adapter?.specificationVersion },
    });
  }
}

function episodeRef(value: unknown, field: string): EpisodeRef {
  const ref = parseInput(episodeRefSchema, value, field);
  return normalizeEpisodeRef(ref) as EpisodeRef;
}

/** The caller's view of a stored artifact: references plus the projected effective metadata. */
export function toArtifact(record: ArtifactRecord): Artifact {
  return {
    key: record.key,
    kind: record.kind,
    content: record.content,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    episodes: record.episodes.map((episode) => episode.ref),
    effectiveMetadata: effectiveMetadata(record.episodes.map((episode) => episode.metadata)),
  };
}

/** Wraps an adapter into the `ArtifactStore` callers use. */
export function createArtifactStore(
  adapter: ArtifactStoreAdapter,
  options: ArtifactStoreOptions = {},
): ArtifactStore {
  checkAdapter(adapter);
  const name = adapter.name;
  const now = options.now ?? (() => new Date());
  const policyTest = (policy: unknown) =>
    policy === undefined ? undefined : compileAccessPolicy(policy);

  return {
    name,
    capabilities: adapter.capabilities,

    async upsert(input) {
      const checked = parseInput(upsertArtifactInputSchema, input, 'artifact');
      const content = frozenJsonCopy(checked.content, 'artifact content') as JsonValue;
      const episodes = [
        ...new Set(checked.episodes.map((ref) => normalizeEpisodeRef(ref) as EpisodeRef)),
      ];
      const at = now().toISOString();
      const record = await callAdapter(name, `upsert artifact ${checked.key}`, () =>
        adapter.upsertArtifact({
          key: checked.key,
          kind: checked.kind,
          content,
          episodes,
          at,
        }),
      );
      return toArtifact(record);
    },

    async get(key, getOptions) {
      const checked = parseInput(artifactKeySchema, key, 'artifact key');
      const { policy } = parseInput(getOptionsSchema, getOptions, 'get options') ?? {};
      const visible = policyTest(policy);
      const record = await callAdapter(name, `read artifact ${checked}`, () =>
        adapter.getArtifact(checked),
      );
      if (record === null) return null;
      const artifact = toArtifact(record);
      return visible === undefined || visible(artifact.effectiveMetadata) ? artifact : null;
    },

    async list(query) {
      const checked = parseInput(listQuerySchema, query, 'artifact query') ?? {};
      const matches =
        checked.filter === undefined ? undefined : compileMetadataFilter(checked.filter).predicate;
      const visible = policyTest(checked.policy);
      const episode =
        checked.episode === undefined ? undefined : episodeRef(checked.episode, 'episode');
      const limit = checked.limit ?? LIST_DEFAULT_LIMIT;
      const artifacts: Artifact[] = [];
      let afterKey = checked.afterKey;
      for (;;) {
        const batch = await callAdapter(name, 'list artifacts', () =>
          adapter.listArtifacts({ kind: checked.kind, episode, afterKey, limit: SCAN_BATCH }),
        );
        if (batch.length > SCAN_BATCH) throw scanOverLimit(name, batch.length);
        for (const record of batch) {
          afterKey = record.key;
          // One evaluator, per episode: an artifact matches when ONE associated episode does.
          if (matches !== undefined && !record.episodes.some((item) => matches(item.metadata))) {
            continue;
          }
          const artifact = toArtifact(record);
          if (visible !== undefined && !visible(artifact.effectiveMetadata)) continue;
          artifacts.push(artifact);
          if (artifacts.length === limit) return { artifacts, nextKey: artifact.key };
        }
        if (batch.length < SCAN_BATCH) return { artifacts, nextKey: null };
      }
    },

    async setEpisodeMetadata(ref, metadata) {
      const checked = episodeRef(ref, 'episode reference');
      const value =
        metadata === null
          ? null
          : (frozenJsonCopy(
              parseInput(metadataSchema, metadata, 'episode metadata'),
              'episode metadata',
            ) as Metadata);
      await callAdapter(name, `set the metadata of ${checked}`, () =>
        adapter.setEpisodeMetadata(checked, value),
      );
    },

    async getEpisodeMetadata(ref) {
      const checked = episodeRef(ref, 'episode reference');
      return callAdapter(name, `read the metadata of ${checked}`, () =>
        adapter.getEpisodeMetadata(checked),
      );
    },

    async deleteEpisode(ref) {
      const checked = episodeRef(ref, 'episode reference');
      return callAdapter(name, `delete episode ${checked}`, () => adapter.deleteEpisode(checked));
    },

    async redactEpisodeMetadata(ref, redactOptions) {
      const checked = episodeRef(ref, 'episode reference');
      const options = parseStoredRedactionOptions(redactOptions, 'metadata redaction options');
      const metadata = await callAdapter(name, `read the metadata of ${checked}`, () =>
        adapter.getEpisodeMetadata(checked),
      );
      const redacted = metadata === null ? null : redactTaskMetadata(metadata, options);
      if (redacted === null) return { episode: checked, changed: false, replacements: 0 };
      await callAdapter(name, `redact the metadata of ${checked}`, async () => {
        await adapter.setEpisodeMetadata(checked, redacted.metadata);
        await adapter.eraseReplaced?.();
      });
      return { episode: checked, changed: true, replacements: redacted.replacements };
    },

    async close() {
      await callAdapter(name, 'close', () => adapter.close?.());
    },
  };
}
