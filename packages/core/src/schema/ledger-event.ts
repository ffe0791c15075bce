import * as z from 'zod';
import { metadataSchema } from './metadata.js';

/**
 * The six ledger event types (seed 002), in sorted order so error messages list them that way.
 */
export const LEDGER_EVENT_TYPES = [
  'conversation.assistant',
  'conversation.user',
  'ops.alert',
  'ops.decision',
  'tool.call',
  'tool.result',
] as const;
export type LedgerEventType = (typeof LEDGER_EVENT_TYPES)[number];

/** The `schema_version` this package writes on every ledger event. */
export const LEDGER_SCHEMA_VERSION = 'episodic.ledger.v0';

/** How content guards classify what they find. */
export const CONTENT_KINDS = ['pii', 'secret', 'tool_output'] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];

/** The ways `redact` can replace a payload: SQL NULL or the JSON string `"[REDACTED]"`. */
export const REDACTION_REPLACEMENTS = ['null', 'placeholder'] as const;
export type RedactionReplacement = (typeof REDACTION_REPLACEMENTS)[number];

/** The largest `limit` a query or replay accepts. */
export const LEDGER_MAX_LIMIT = 500;

/** An event id: a ULID, a UUID or any id of letters, digits and `.` `_` `:` `-` (at most 128). */
export const ledgerEventIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]*$/,
    'must be letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
  );

/**
 * The longest stored id or session id a read accepts. Rows written by other tools (seed 002's own
 * implementation accepts any id) must stay reachable, so reads are far more lenient than appends.
 */
export const LEDGER_STORED_ID_MAX = 65_536;

/**
 * An event id as reads accept it (`afterId`, redaction by id, the `event_id` of a read): any
 * non-empty text, because rows written by other tools may hold ids Episodic would not write
 * (spaces, non-ASCII letters).
 */
export const storedEventIdSchema = z.string().min(1, 'must not be empty').max(LEDGER_STORED_ID_MAX);

/**
 * A session id as reads accept it (query, replay, redaction): any text that is not blank, at most
 * 65,536 characters, so sessions another tool stored with longer or unusual ids can be read and
 * redacted. Edges are trimmed (as appends trim them).
 */
export const storedSessionIdSchema = z
  .string()
  .trim()
  .min(1, 'must not be blank')
  .max(LEDGER_STORED_ID_MAX);

/**
 * A session or agent id as appends accept it: printable text without control characters (at most
 * 256). The ledger trims both edges before checking (seed 002's normalization).
 */
export const ledgerIdentifierSchema = z
  .string()
  .min(1, 'must not be blank')
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')
  .max(256);

/** A `ts_ms` value: milliseconds since the Unix epoch, a non-negative safe integer. */
export const tsMsSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/**
 * The `ts_ms` of a new event: a positive safe integer. 0 is refused, as seed 002 refuses it: it is
 * what a missing or zeroed clock writes, not an event time.
 */
export const eventTsMsSchema = tsMsSchema.positive(
  'must be after 1970-01-01T00:00:00Z (0 is what an unset clock writes): give the event time in milliseconds, or leave ts_ms out to use now',
);

/** An event type; errors list the allowed values in sorted order. */
export const ledgerEventTypeSchema = z.enum(LEDGER_EVENT_TYPES);

/** A scope as callers pass it (normalized by the ledger before use). */
export const scopeInputSchema = z.string().max(1024);

/**
 * What `append` accepts. The ledger fills in `event_id` (a ULID), `ts_ms` (its clock), and
 * normalizes `scope`. `payload` is any JSON value; `refs` is a JSON object of links (run ids, tool
 * call ids, file paths). Both are stored as canonical JSON and capped in UTF-8 bytes.
 */
export const newLedgerEventSchema = z.strictObject({
  /** Defaults to a new ULID. Giving it makes retries idempotent. */
  event_id: ledgerEventIdSchema.optional(),
  /** Event time (positive). Defaults to the ledger's clock. */
  ts_ms: eventTsMsSchema.optional(),
  /** The isolation key; required (a missing scope is `SCOPE_REQUIRED`). */
  scope: scopeInputSchema.optional(),
  /** The run or conversation the event belongs to; replay reads by it. */
  session_id: ledgerIdentifierSchema,
  /** The logical actor, e.g. `planner`, `worker`, `cron`. */
  agent_id: ledgerIdentifierSchema,
  type: ledgerEventTypeSchema,
  /** A short human-readable description; the only text a default query returns (trimmed). */
  summary: z.string().min(1, 'must not be blank'),
  /** Any JSON value; omitted or null stores no payload. */
  payload: z.unknown().optional(),
  /** A JSON object of links; omitted or null stores none. */
  refs: z.record(z.string(), z.unknown()).nullable().optional(),
  /** Filterable metadata (at most 10 keys). */
  metadata: metadataSchema.optional(),
});
export type NewLedgerEvent = z.input<typeof newLedgerEventSchema>;

/** A JSON value as stored in `payload` and `refs`. */
export type LedgerJson =
  | string
  | number
  /** An integer beyond 2^53, kept exactly (see `parseJsonExact`). */
  | bigint
  | boolean
  | null
  | LedgerJson[]
  | { [key: string]: LedgerJson };

const jsonValueSchema: z.ZodType<LedgerJson> = z.json() as z.ZodType<LedgerJson>;

/**
 * A stored ledger event as reads return it. `payload` is present only when the read asked for it
 * (`includePayload: true`); `position` is the event's 1-based place in its session within its scope.
 * Events another tool wrote keep what it wrote: any non-empty `event_id`, and `refs` that may be
 * any JSON value (seed 002's own redaction stores the string `"[REDACTED]"` there). The schema
 * checks the JSON form receipts carry; in memory, an integer beyond 2^53 in `payload` or `refs` is
 * a `bigint` (see `parseJsonExact`).
 */
export const ledgerEventSchema = z.object({
  event_id: storedEventIdSchema,
  ts_ms: tsMsSchema,
  scope: z.string().min(1),
  session_id: z.string().min(1),
  agent_id: z.string().min(1),
  type: ledgerEventTypeSchema,
  summary: z.string(),
  payload: jsonValueSchema.optional(),
  refs: jsonValueSchema.nullable(),
  redacted: z.boolean(),
  schema_version: z.string(),
  created_at: z.string(),
  position: z.number().int().positive(),
  metadata: metadataSchema.optional(),
});
export type LedgerEvent = z.infer<typeof ledgerEventSchema>;

/** The options of one `append` or `appendBatch` call. */
export const ledgerAppendOptionsSchema = z.strictObject({
  /**
   * Optimistic concurrency: the session's last position the caller saw (0 for an empty session).
   * When another append landed first the call fails with `CONFLICT` and stores nothing.
   * In a batch, every event must belong to the same session.
   */
  expectedPosition: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  /** Content kinds this call may store although the guards flag them. */
  allow: z.array(z.enum(CONTENT_KINDS)).optional(),
  /** Replace flagged content with typed placeholders instead of rejecting it. */
  redact: z.boolean().optional(),
});
export type LedgerAppendOptions = z.input<typeof ledgerAppendOptionsSchema>;

const limitSchema = z.number().int().min(1).max(LEDGER_MAX_LIMIT);

/** The scope part of every read and maintenance call: a scope, or an explicit `global: true`. */
export const scopeSelectorShape = {
  /** The scope to read (normalized). Required unless `global: true`. */
  scope: scopeInputSchema.optional(),
  /** Read across every scope. Must be asked for explicitly; never a fallback. */
  global: z.literal(true).optional(),
};

/** `query()` input. Results are ordered by `ts_ms`, then insertion order. */
export const ledgerQuerySchema = z.strictObject({
  ...scopeSelectorShape,
  sessionId: storedSessionIdSchema.optional(),
  /** Inclusive lower bound on `ts_ms`. */
  fromTsMs: tsMsSchema.optional(),
  /** Inclusive upper bound on `ts_ms`. */
  toTsMs: tsMsSchema.optional(),
  /** One or more event types. */
  types: z.array(ledgerEventTypeSchema).min(1).optional(),
  /** @default 50 */
  limit: limitSchema.default(50),
  /** Continue after this event (the `next_after_id` of the previous page). */
  afterId: storedEventIdSchema.optional(),
  /** Return payloads too. @default false */
  includePayload: z.boolean().default(false),
  /** A metadata filter evaluated against each event's own metadata. */
  metadata: z.unknown().optional(),
  /**
   * An access policy (`AccessPolicy`, seed 003 ABAC): only events whose own metadata satisfies it
   * are read, and an `afterId` it hides answers exactly like an unknown one (`NOT_FOUND`).
   */
  policy: z.unknown().optional(),
});
export type LedgerQuery = z.input<typeof ledgerQuerySchema>;

/** `replay(sessionId, options)` options. */
export const ledgerReplayOptionsSchema = z.strictObject({
  ...scopeSelectorShape,
  /** @default 200 */
  limit: limitSchema.default(200),
  afterId: storedEventIdSchema.optional(),
  /** @default false */
  includePayload: z.boolean().default(false),
  /** An access policy, as in `query()`: hidden events are skipped; a hidden `afterId` is `NOT_FOUND`. */
  policy: z.unknown().optional(),
});
export type LedgerReplayOptions = z.input<typeof ledgerReplayOptionsSchema>;

/**
 * `redact(target)`: one event (`eventId`) or a whole session (`sessionId`), always within a scope
 * (or an explicit `global: true`). Exactly one of `eventId` and `sessionId`.
 */
export const ledgerRedactTargetSchema = z
  .strictObject({
    ...scopeSelectorShape,
    eventId: storedEventIdSchema.optional(),
    sessionId: storedSessionIdSchema.optional(),
  })
  .superRefine((target, context) => {
    if ((target.eventId === undefined) === (target.sessionId === undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['eventId'],
        message: 'give exactly one of eventId (one event) and sessionId (a whole session)',
      });
    }
  });
export type LedgerRedactTarget =
  | { scope?: string; global?: true; eventId: string; sessionId?: undefined }
  | { scope?: string; global?: true; sessionId: string; eventId?: undefined };

/** `redact(target, options)` options. */
export const ledgerRedactOptionsSchema = z.strictObject({
  /** `null` stores no payload; `placeholder` stores the JSON string `"[REDACTED]"`. @default 'placeholder' */
  replacement: z.enum(REDACTION_REPLACEMENTS).default('placeholder'),
});
export type LedgerRedactOptions = z.input<typeof ledgerRedactOptionsSchema>;

/** The most days a retention policy may give a type (larger: keep it forever with `null`). */
export const RETENTION_MAX_DAYS = 1_000_000;

/**
 * Days of retention for one type: a number from 0 to 1,000,000, fractions allowed (1.5 days is 36
 * hours; 0 expires every event older than now), or `null` to keep the type forever.
 */
export const retentionDaysSchema = z
  .number()
  .min(0, 'must be 0 or more days (0 expires every event older than now)')
  .max(
    RETENTION_MAX_DAYS,
    `must be at most ${RETENTION_MAX_DAYS} days; use null to keep the type forever`,
  )
  .nullable();

/** Retention in days per type; `null` keeps events forever. */
export const retentionPolicySchema = z.strictObject(
  Object.fromEntries(
    LEDGER_EVENT_TYPES.map((type) => [type, retentionDaysSchema.optional()]),
  ) as Record<LedgerEventType, z.ZodOptional<typeof retentionDaysSchema>>,
);
export type RetentionPolicyInput = z.input<typeof retentionPolicySchema>;
/** A complete retention policy: days per type, `null` for forever. */
export type RetentionPolicy = Record<LedgerEventType, number | null>;

/** `gc(options)` input. */
export const ledgerGcOptionsSchema = z.strictObject({
  ...scopeSelectorShape,
  /** "Now" for the cutoffs. Defaults to the ledger's clock. */
  nowMs: tsMsSchema.optional(),
  /** Per-type overrides of the ledger's retention policy. */
  policy: retentionPolicySchema.optional(),
  /** Count what would be deleted without deleting. @default false */
  dryRun: z.boolean().default(false),
});
export type LedgerGcOptions = z.input<typeof ledgerGcOptionsSchema>;

/** What `append` returns: the stored event (with payload) and whether it already existed. */
export const ledgerAppendReceiptSchema = z.object({
  event: ledgerEventSchema,
  /** True when this was a retry of an event already stored; `event` is the original. */
  duplicate: z.boolean(),
});
export type LedgerAppendReceipt = z.infer<typeof ledgerAppendReceiptSchema>;

/** A row a read could not turn into an event: which row, which column, and why. */
export const ledgerDamagedRowSchema = z.object({
  event_id: storedEventIdSchema,
  ts_ms: z.number(),
  scope: z.string(),
  session_id: z.string(),
  /** The column that could not be read: `payload_json`, `refs_json` or `metadata_json`. */
  column: z.string(),
  /** What is wrong with it and what to do. */
  error: z.string(),
});
export type LedgerDamagedRow = z.infer<typeof ledgerDamagedRowSchema>;

/** One page of `query` or `replay`. */
export const ledgerPageSchema = z.object({
  events: z.array(ledgerEventSchema),
  /** Pass as `afterId` to read the next page; null when this was the last page. */
  next_after_id: storedEventIdSchema.nullable(),
  /**
   * Rows of this page that could not be read (e.g. a payload another tool stored that is not
   * JSON): each is reported here once instead of failing the read; present only when there are any.
   */
  damaged: z.array(ledgerDamagedRowSchema).optional(),
});
export type LedgerPage = z.infer<typeof ledgerPageSchema>;

/** What `redact` returns. */
export const ledgerRedactReceiptSchema = z.object({
  kind: z.literal('ledger.redact'),
  /** The normalized scope, or null for a `global` redaction. */
  scope: z.string().nullable(),
  event_id: z.string().optional(),
  session_id: z.string().optional(),
  replacement: z.enum(REDACTION_REPLACEMENTS),
  /** How many rows are now redacted by this call (rows are kept). */
  redacted_count: z.number().int().nonnegative(),
});
export type LedgerRedactReceipt = z.infer<typeof ledgerRedactReceiptSchema>;

/** What `gc` returns: aggregate counts only, never event content. */
export const ledgerGcReceiptSchema = z.object({
  kind: z.literal('ledger.gc'),
  scope: z.string().nullable(),
  dry_run: z.boolean(),
  now_ms: tsMsSchema,
  deleted_total: z.number().int().nonnegative(),
  /** A count for every type (0 when nothing was old enough). */
  deleted_by_type: z.record(ledgerEventTypeSchema, z.number().int().nonnegative()),
  /** The policy applied, in days per type (`null` = kept forever). */
  policy_days: z.record(ledgerEventTypeSchema, z.number().nullable()),
});
export type LedgerGcReceipt = z.infer<typeof ledgerGcReceiptSchema>;
