import {
  artifactContentSchema,
  artifactKeySchema,
  artifactKindSchema,
  chainMemberSchema,
  episodeRefSchema,
  erasureEntrySchema,
  LEDGER_EVENT_TYPES,
  ledgerEventIdSchema,
  ledgerIdentifierSchema,
  metadataSchema,
  sessionStateSchema,
  tsMsSchema,
  uuidSchema,
} from '@episodic/core/schemas';
import * as z from 'zod';

/**
 * The format name written in the first line of an export of a home whose runs are chained
 * (docs/design/verify.md 2.6): v3 adds the proofs, a `chain` member on `run.record` lines and
 * `erasure` lines. v2 added learned artifacts (patterns, reflections, checkpoint summaries) and
 * episode metadata. v1, v2 and v3 files import.
 */
export const EXPORT_FORMAT = 'episodic.export.v3';
/**
 * What an export of a home whose runs are not chained writes: it has no proofs to carry, and stays
 * readable by Episodic versions that know no v3.
 */
export const EXPORT_FORMAT_UNCHAINED = 'episodic.export.v2';
const READABLE_FORMATS = ['episodic.export.v1', EXPORT_FORMAT_UNCHAINED, EXPORT_FORMAT] as const;
export type ExportFormat = (typeof READABLE_FORMATS)[number];

/** What an export holds (the command line that made it, normalized). */
export const exportSelectionSchema = z.strictObject({
  session_id: z.string().nullable(),
  run_ids: z.array(uuidSchema).nullable(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  all: z.boolean(),
  /**
   * The ledger part: events of the exported sessions in one scope (`scope`; `"global"` after
   * `--global`), or in every scope (`scope: null, global: true`, written by `--all-scopes`); null
   * for none. `global` here keeps the format's older name for every scope.
   */
  ledger: z.strictObject({ scope: z.string().nullable(), global: z.boolean() }).nullable(),
});
export type ExportSelection = z.infer<typeof exportSelectionSchema>;

/** The first line. */
export const exportHeaderLineSchema = z.strictObject({
  type: z.literal('export.header'),
  format: z.enum(READABLE_FORMATS),
  selection: exportSelectionSchema,
});

/** A session snapshot. */
export const sessionLineSchema = z.strictObject({
  type: z.literal('session'),
  session_id: uuidSchema,
  state: sessionStateSchema,
});

/**
 * One record of a run, in order; a run's records are consecutive and start with its header. In
 * v3, `chain` is the stored line's chain member (its commitment, salt or redaction mark, position,
 * stream key on the first chained line, head where stored): the stored line is the record's own
 * JSON text with this member last, so an importer rebuilds it byte for byte.
 */
export const runRecordLineSchema = z.strictObject({
  type: z.literal('run.record'),
  run_id: uuidSchema,
  record: z.looseObject({ type: z.string().min(1) }),
  chain: chainMemberSchema.optional(),
});

/**
 * An entry of the source home's erasure log about an exported run (v3): a redaction (the redacted
 * lines name it by its id) or a collection, without the log's own chain member (its numbering is
 * the home's). A home's `import` entries are its own and are not exported.
 */
export const erasureLineSchema = z.strictObject({
  type: z.literal('erasure'),
  entry: erasureEntrySchema,
});

const jsonValue = z.json();

/**
 * A ledger event as exported: every stored field except `position`, which the ledger assigns
 * again on import (the same numbers, unless retention had deleted a session's first events).
 */
export const exportedLedgerEventSchema = z.strictObject({
  event_id: ledgerEventIdSchema,
  ts_ms: tsMsSchema,
  scope: z.string().min(1),
  session_id: ledgerIdentifierSchema,
  agent_id: ledgerIdentifierSchema,
  type: z.enum(LEDGER_EVENT_TYPES),
  summary: z.string().min(1),
  payload: jsonValue.nullable(),
  refs: z.record(z.string(), jsonValue).nullable(),
  redacted: z.boolean(),
  schema_version: z.string(),
  created_at: z.iso.datetime(),
  metadata: metadataSchema.optional(),
});
export type ExportedLedgerEvent = z.infer<typeof exportedLedgerEventSchema>;

/** A ledger event. */
export const ledgerEventLineSchema = z.strictObject({
  type: z.literal('ledger.event'),
  event: exportedLedgerEventSchema,
});

/**
 * An artifact (a pattern, a reflection, a checkpoint summary) with its associations, as stored:
 * `key` keeps its scope prefix (`scope=<scope>@…`), `episodes` their association order.
 */
export const exportedArtifactSchema = z.strictObject({
  key: artifactKeySchema,
  kind: artifactKindSchema,
  content: artifactContentSchema,
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  episodes: z.array(episodeRefSchema).min(1),
});
export type ExportedArtifact = z.infer<typeof exportedArtifactSchema>;

/** An artifact, after the ledger events. */
export const artifactLineSchema = z.strictObject({
  type: z.literal('artifact'),
  artifact: exportedArtifactSchema,
});

/** The metadata of an episode (a task episode, a session episode, a ledger event). */
export const episodeMetadataLineSchema = z.strictObject({
  type: z.literal('episode.metadata'),
  episode: episodeRefSchema,
  metadata: metadataSchema,
});

const count = z.number().int().nonnegative();

/** How many objects of each kind an export holds (v1 files have no artifacts or metadata). */
export const exportCountsSchema = z.strictObject({
  sessions: count,
  runs: count,
  records: count,
  events: count,
  artifacts: count.default(0),
  episode_metadata: count.default(0),
  /** Erasure log entries (v3 only). */
  erasures: count.optional(),
});
export type ExportCounts = z.infer<typeof exportCountsSchema>;

/** The last line: the counts, so a truncated file is detected before anything is imported. */
export const exportEndLineSchema = z.strictObject({
  type: z.literal('export.end'),
  counts: exportCountsSchema,
});

/** Any line after the header. */
export const exportBodyLineSchema = z.discriminatedUnion('type', [
  sessionLineSchema,
  runRecordLineSchema,
  erasureLineSchema,
  ledgerEventLineSchema,
  episodeMetadataLineSchema,
  artifactLineSchema,
  exportEndLineSchema,
]);

/** Any line of an export file: the header, then body lines, then `export.end`. */
export const exportLineSchema = z.discriminatedUnion('type', [
  exportHeaderLineSchema,
  ...exportBodyLineSchema.options,
]);
