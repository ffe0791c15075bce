import * as z from 'zod';
import { utf8ByteLength } from '../util/utf8.js';
import { metadataScalarSchema } from './metadata.js';

/**
 * Artifacts (seed 003): anything derived from episodes — a pattern, a reflection, a checkpoint
 * summary — with associations to the episodes it came from. Its effective metadata is projected
 * from those episodes' metadata.
 */

/** The artifact kinds Episodic itself writes. Other kinds (lowercase snake_case) are allowed. */
export const ARTIFACT_KINDS = ['pattern', 'reflection', 'checkpoint_summary'] as const;
export type KnownArtifactKind = (typeof ARTIFACT_KINDS)[number];

/** The largest artifact content, in UTF-8 bytes of its JSON. */
export const ARTIFACT_CONTENT_MAX_BYTES = 65_536;
/** The most episodes one upsert may associate. */
export const ARTIFACT_MAX_EPISODES_PER_UPSERT = 1_000;

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const TASK_REF = new RegExp(`^task:(${UUID})$`);
const SESSION_REF = new RegExp(`^session:(${UUID})#([1-9][0-9]{0,15})$`);
const LEDGER_REF = /^ledger:([A-Za-z0-9][A-Za-z0-9._:-]{0,127})$/;
const ARTIFACT_KEY = /^[A-Za-z0-9][A-Za-z0-9._:@/+=-]*$/;
const ARTIFACT_KIND = /^[a-z][a-z0-9_]*$/;

/**
 * A reference to the episode an artifact was derived from, in one documented string form:
 *
 * - `task:<uuid>`: a task episode (seed 004), by its id (the run id);
 * - `session:<uuid>#<id>`: episode `<id>` (an integer from 1) of a session's episodic log;
 * - `ledger:<event_id>`: a ledger event (seed 002), by its event id.
 *
 * UUIDs are compared case-insensitively (stores keep them lowercase).
 */
export type EpisodeRef = string;

/** The parts of an episode reference. */
export type ParsedEpisodeRef =
  | { kind: 'task'; taskId: string }
  | { kind: 'session'; sessionId: string; episodeId: number }
  | { kind: 'ledger'; eventId: string };

/** Parses an episode reference; null when it is not one of the documented forms. */
export function parseEpisodeRef(ref: string): ParsedEpisodeRef | null {
  const task = TASK_REF.exec(ref);
  if (task !== null) return { kind: 'task', taskId: (task[1] as string).toLowerCase() };
  const session = SESSION_REF.exec(ref);
  if (session !== null) {
    const episodeId = Number(session[2]);
    if (!Number.isSafeInteger(episodeId)) return null;
    return { kind: 'session', sessionId: (session[1] as string).toLowerCase(), episodeId };
  }
  const ledger = LEDGER_REF.exec(ref);
  if (ledger !== null) return { kind: 'ledger', eventId: ledger[1] as string };
  return null;
}

/** The canonical form of a reference (lowercase UUIDs), or null when it is not a reference. */
export function normalizeEpisodeRef(ref: string): EpisodeRef | null {
  const parsed = parseEpisodeRef(ref);
  if (parsed === null) return null;
  switch (parsed.kind) {
    case 'task':
      return `task:${parsed.taskId}`;
    case 'session':
      return `session:${parsed.sessionId}#${parsed.episodeId}`;
    case 'ledger':
      return `ledger:${parsed.eventId}`;
  }
}

/** The reference of a task episode. */
export function taskEpisodeRef(taskId: string): EpisodeRef {
  return `task:${taskId.toLowerCase()}`;
}

/** The reference of episode `episodeId` of a session's log. */
export function sessionEpisodeRef(sessionId: string, episodeId: number): EpisodeRef {
  return `session:${sessionId.toLowerCase()}#${episodeId}`;
}

/** The reference of a ledger event. */
export function ledgerEpisodeRef(eventId: string): EpisodeRef {
  return `ledger:${eventId}`;
}

/** An episode reference: `task:<uuid>`, `session:<uuid>#<id>` or `ledger:<event_id>`. */
export const episodeRefSchema = z
  .string()
  .max(200)
  .refine((ref) => parseEpisodeRef(ref) !== null, {
    message:
      'must be an episode reference: "task:<uuid>", "session:<uuid>#<episode id>" or "ledger:<event id>"',
  })
  .describe(
    'The episode an artifact was derived from: "task:<uuid>", "session:<uuid>#<episode id>" or "ledger:<event id>".',
  );

/** An artifact key: stable, content-derived where possible (e.g. `tool_sequence:<hex>`). */
export const artifactKeySchema = z
  .string()
  .min(1)
  .max(256)
  .refine((key) => ARTIFACT_KEY.test(key), {
    message:
      'must start with a letter or digit and contain only letters, digits and . _ : @ / + = -',
  })
  .describe('The artifact key, e.g. "tool_sequence:651c551c8b261de85d2d182223b0c924".');

/** An artifact kind: lowercase snake_case, e.g. `pattern`, `reflection`, `checkpoint_summary`. */
export const artifactKindSchema = z
  .string()
  .min(1)
  .max(64)
  .refine((kind) => ARTIFACT_KIND.test(kind), {
    message: 'must be lowercase snake_case, e.g. "pattern" or "checkpoint_summary"',
  })
  .describe('The artifact kind, e.g. "pattern", "reflection" or "checkpoint_summary".');

/** Artifact content: any JSON value of at most 64 KB. */
export const artifactContentSchema = z
  .unknown()
  .refine(
    (content) => {
      if (content === undefined) return false;
      try {
        const text = JSON.stringify(content);
        return text !== undefined && utf8ByteLength(text) <= ARTIFACT_CONTENT_MAX_BYTES;
      } catch {
        return false;
      }
    },
    { message: `must be a JSON value of at most ${ARTIFACT_CONTENT_MAX_BYTES} bytes` },
  )
  .describe('The artifact content (any JSON value, at most 64 KB).');

/** What `ArtifactStore.upsert` accepts. */
export const upsertArtifactInputSchema = z.strictObject({
  /** The artifact key; upserting an existing key updates that artifact. */
  key: artifactKeySchema,
  /** The kind; must match the stored kind of an existing key. */
  kind: artifactKindSchema,
  /** The content; replaces the stored content (last write wins). */
  content: artifactContentSchema,
  /** Episodes the artifact was derived from; added to its associations, never duplicated. */
  episodes: z.array(episodeRefSchema).min(1).max(ARTIFACT_MAX_EPISODES_PER_UPSERT),
});
export type UpsertArtifactInput = z.input<typeof upsertArtifactInputSchema>;

/** An artifact as stores return it (`ArtifactStore.get`, `list`, `upsert`). */
export const artifactSchema = z.object({
  key: artifactKeySchema,
  kind: artifactKindSchema,
  /** Any JSON value. */
  content: z.json(),
  /** When the key was first upserted (ISO 8601). */
  createdAt: z.string(),
  /** When the key was last upserted (ISO 8601). */
  updatedAt: z.string(),
  /** The associated episodes, in association order. */
  episodes: z.array(episodeRefSchema),
  /** Per metadata key, the distinct values of the associated episodes, first-seen order. */
  effectiveMetadata: z.record(z.string(), z.array(metadataScalarSchema)),
});
