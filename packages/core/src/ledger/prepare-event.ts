import * as z from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import {
  CONTENT_KINDS,
  type ContentKind,
  LEDGER_SCHEMA_VERSION,
  ledgerEventIdSchema,
  newLedgerEventSchema,
} from '../schema/ledger-event.js';
import { ledgerIdFields } from '../store/stored-fields.js';
import { lazyCompiled } from '../validation/compiled-schema.js';
import { toInputIssues, validationError } from '../validation/parse-input.js';
import { canonicalJson } from './canonical-json.js';
import {
  assertIdCarriesNoContent,
  type ContentFinding,
  contentRejectedError,
  guardJsonValue,
} from './content-guard.js';
import type { ContentRule } from './content-rules.js';
import type { LedgerRow, NewLedgerRow } from './ledger-row.js';
import { requireScope } from './scope.js';
import { utf8ByteLength } from './utf8.js';

/** Size caps in UTF-8 bytes (of the canonical JSON form for payload, refs and metadata). */
export interface LedgerCaps {
  /** @default 8192 */
  readonly payloadBytes: number;
  /** @default 4096 */
  readonly refsBytes: number;
  /** @default 1024 */
  readonly summaryBytes: number;
  /** @default 2048 */
  readonly metadataBytes: number;
}

/** The default caps: payload 8,192, refs 4,096, summary 1,024, metadata 2,048 bytes. */
export const DEFAULT_LEDGER_CAPS: Readonly<LedgerCaps> = Object.freeze({
  payloadBytes: 8192,
  refsBytes: 4096,
  summaryBytes: 1024,
  metadataBytes: 2048,
});

const capSchema = z.number().int().positive().max(1_000_000_000);

/** Caps as options accept them: any subset, each a positive integer. */
export const ledgerCapsSchema = z.strictObject({
  payloadBytes: capSchema.optional(),
  refsBytes: capSchema.optional(),
  summaryBytes: capSchema.optional(),
  metadataBytes: capSchema.optional(),
});

/** The caps in force: the defaults with `overrides` applied. */
export function resolveLedgerCaps(overrides?: Partial<LedgerCaps>): LedgerCaps {
  return { ...DEFAULT_LEDGER_CAPS, ...overrides };
}

/** How the content guards behave for one ledger. */
export interface ContentGuardPolicy {
  /** The detectors. */
  readonly rules: readonly ContentRule[];
  /** Kinds always stored without complaint. */
  readonly allow: readonly ContentKind[];
  /** `reject` flagged content (the default) or `redact` it with typed placeholders. */
  readonly mode: 'reject' | 'redact';
}

/** Everything `prepareLedgerEvent` needs besides the input. */
export interface PrepareEventContext {
  readonly caps: LedgerCaps;
  readonly guard: ContentGuardPolicy;
  readonly now: () => Date;
  readonly generateId: () => string;
}

/** Per-call choices that widen or change the guard policy. */
export interface PrepareEventCall {
  readonly allow?: readonly ContentKind[] | undefined;
  readonly redact?: boolean | undefined;
}

/** A validated, normalized, capped and guarded event, ready for an adapter. */
export interface PreparedLedgerEvent {
  readonly row: NewLedgerRow;
  /** Whether the caller gave `ts_ms` (an idempotent retry must then match it). */
  readonly tsSupplied: boolean;
  /** What the guards found and redacted (empty unless redaction ran). */
  readonly redactions: readonly ContentFinding[];
}

const CONTENT_FIELDS = new Set(['summary', 'payload', 'refs', 'metadata']);

function withheld(value: unknown): string {
  if (typeof value === 'string') return `a string of ${value.length} characters (withheld)`;
  if (Array.isArray(value)) return `an array of ${value.length} items (withheld)`;
  if (typeof value === 'object' && value !== null) return 'an object (withheld)';
  return `a ${typeof value} (withheld)`;
}

const eventSchema = lazyCompiled(newLedgerEventSchema);
const eventIdSchema = lazyCompiled(ledgerEventIdSchema);

type NewLedgerEventInput = z.output<typeof newLedgerEventSchema>;

let lastTime = Number.NaN;
let lastIso = '';

/** `toISOString()`, shared by the events of one millisecond (it costs more than a cached read). */
function isoTimestamp(date: Date): string {
  const time = date.getTime();
  if (time !== lastTime) {
    lastIso = date.toISOString();
    lastTime = time;
  }
  return lastIso;
}

function overCap(subject: string, field: string, bytes: number, cap: number, fix: string) {
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid ${subject}: ${field} is ${bytes} bytes${field === 'summary' ? '' : ' as canonical JSON'}, over the cap of ${cap} bytes. ${fix} Nothing was changed.`,
    details: {
      subject,
      field,
      bytes,
      cap,
      issues: [
        { field, message: `is ${bytes} bytes, over the cap of ${cap}`, value: `${bytes} bytes` },
      ],
    },
  });
}

const EDGE_SPACE = /^\s|\s$/;
const TRIMMED_FIELDS = ['session_id', 'agent_id', 'summary'] as const;

/**
 * Seed 002's input normalization: `session_id`, `agent_id` and `summary` lose surrounding
 * whitespace before they are checked (so a blank one is refused as empty). The input is copied
 * only when a field needs it.
 */
function trimmedInput(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const record = input as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const field of TRIMMED_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' && EDGE_SPACE.test(value)) {
      copy ??= { ...record };
      copy[field] = value.trim();
    }
  }
  return copy ?? input;
}

let idFields: readonly string[] | undefined;

/**
 * Ids (`event_id`, `scope`, `session_id`, `agent_id`: the fields the stored-field inventory
 * classifies as ids) go through the content guard like a summary, but redaction keeps ids, so
 * one that looks like content is refused whatever `redact` says, and a secret even when `allow`
 * lists `secret`: it could never be scrubbed.
 */
function checkIds(
  event: NewLedgerEventInput,
  allow: readonly ContentKind[],
  rules: readonly ContentRule[],
  subject: string,
): void {
  idFields ??= ledgerIdFields();
  for (const field of idFields) {
    assertIdCarriesNoContent((event as Record<string, unknown>)[field], field, subject, {
      rules,
      allow,
    });
  }
}

/**
 * The pure append pipeline every ledger backend shares: trim the session id, agent id and summary, validate (without echoing content in
 * errors), require and normalize the scope, canonicalize payload, refs and metadata, enforce the
 * byte caps, run the content guards (reject, or redact with typed placeholders), then fill in
 * the id, time and schema version. Throws `SCOPE_REQUIRED` or `VALIDATION_ERROR`; never returns
 * a partly valid row.
 */
export function prepareLedgerEvent(
  given: unknown,
  context: PrepareEventContext,
  call: PrepareEventCall = {},
  subject = 'ledger event',
): PreparedLedgerEvent {
  const input = trimmedInput(given);
  const schema = eventSchema();
  // The compiled check accepts the common case without building a parsed copy (the schema has
  // no defaults or transforms, so the input is what a parse would return); the full parse runs
  // only to explain a failure.
  let event: NewLedgerEventInput;
  if (schema.validate(input)) event = input as NewLedgerEventInput;
  else {
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      const issues = toInputIssues(parsed.error.issues, input).map((issue) => {
        const root = issue.field.split(/[.[]/)[0] ?? '';
        if (!CONTENT_FIELDS.has(root)) return issue;
        const given = (input as Record<string, unknown>)[root];
        return { ...issue, value: withheld(given) };
      });
      throw validationError(subject, issues);
    }
    event = parsed.data;
  }
  const scope = requireScope(event.scope, 'append');
  const { caps } = context;

  const measure = (value: unknown, field: string, cap: number, fix: string): string | null => {
    if (value === undefined || value === null) return null;
    const text = canonicalJson(value, `${subject} ${field}`);
    // A UTF-16 code unit is at most 3 UTF-8 bytes: short text needs no count.
    if (text.length * 3 > cap) {
      const bytes = utf8ByteLength(text);
      if (bytes > cap) throw overCap(subject, field, bytes, cap, fix);
    }
    return text;
  };
  const capSummary = (summary: string) => {
    if (summary.length * 3 <= caps.summaryBytes) return;
    const bytes = utf8ByteLength(summary);
    if (bytes > caps.summaryBytes) {
      throw overCap(
        subject,
        'summary',
        bytes,
        caps.summaryBytes,
        'Shorten it (the payload holds detail).',
      );
    }
  };
  const payloadFix =
    'Store large content elsewhere and link it in refs, or raise caps.payloadBytes.';
  const refsFix = 'Link fewer or shorter references, or raise caps.refsBytes.';
  const metadataFix = 'Move detail into the payload, or raise caps.metadataBytes.';

  // Caps first, so the detectors never run over unbounded text.
  capSummary(event.summary);
  let payloadJson = measure(event.payload, 'payload', caps.payloadBytes, payloadFix);
  let refsJson = measure(event.refs, 'refs', caps.refsBytes, refsFix);
  let metadataJson = measure(event.metadata, 'metadata', caps.metadataBytes, metadataFix);

  const guard = context.guard;
  const allow =
    call.allow === undefined || call.allow.length === 0
      ? guard.allow
      : [...new Set([...guard.allow, ...call.allow])];
  let summary = event.summary;
  let redactions: ContentFinding[] = [];
  if (allow.length < CONTENT_KINDS.length) {
    const redact = call.redact ?? guard.mode === 'redact';
    const options = { rules: guard.rules, allow, redact };
    const guardedSummary = guardJsonValue(summary, 'summary', options);
    const guardedPayload =
      payloadJson === null ? null : guardJsonValue(event.payload, 'payload', options);
    const guardedRefs = refsJson === null ? null : guardJsonValue(event.refs, 'refs', options);
    const guardedMetadata =
      metadataJson === null ? null : guardJsonValue(event.metadata, 'metadata', options);
    const findings = [
      ...guardedSummary.findings,
      ...(guardedPayload?.findings ?? []),
      ...(guardedRefs?.findings ?? []),
      ...(guardedMetadata?.findings ?? []),
    ];
    if (findings.length > 0) {
      if (!redact) throw contentRejectedError(subject, findings);
      redactions = findings;
      summary = guardedSummary.value;
      capSummary(summary);
      if (guardedPayload !== null) {
        payloadJson = measure(guardedPayload.value, 'payload', caps.payloadBytes, payloadFix);
      }
      if (guardedRefs !== null) {
        refsJson = measure(guardedRefs.value, 'refs', caps.refsBytes, refsFix);
      }
      if (guardedMetadata !== null) {
        metadataJson = measure(guardedMetadata.value, 'metadata', caps.metadataBytes, metadataFix);
      }
    }
  }

  checkIds(event, allow, guard.rules, subject);

  let eventId = event.event_id;
  if (eventId === undefined) {
    const generated = context.generateId();
    if (!eventIdSchema().validate(generated)) {
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `The ledger's generateId returned an unusable event id ${JSON.stringify(String(generated)).slice(0, 80)}. Return letters, digits, ".", "_", ":" or "-" (at most 128); nothing was changed.`,
        details: { subject, field: 'event_id' },
      });
    }
    eventId = generated;
  }
  const now = context.now();
  return {
    row: {
      event_id: eventId,
      ts_ms: event.ts_ms ?? now.getTime(),
      scope,
      session_id: event.session_id,
      agent_id: event.agent_id,
      type: event.type,
      summary,
      payload_json: payloadJson,
      refs_json: refsJson,
      redacted: false,
      schema_version: LEDGER_SCHEMA_VERSION,
      created_at: isoTimestamp(now),
      metadata_json: metadataJson,
    },
    tsSupplied: event.ts_ms !== undefined,
    redactions,
  };
}

/**
 * True when `existing` (a stored row, payload selected) is the event `incoming` describes, so an
 * append with the same event id is a retry and returns the original. A row redacted since is
 * matched on its identity (scope, session, agent, type, time) because its content is gone.
 */
export function isSameLedgerEvent(existing: LedgerRow, incoming: PreparedLedgerEvent): boolean {
  const row = incoming.row;
  if (
    existing.scope !== row.scope ||
    existing.session_id !== row.session_id ||
    existing.agent_id !== row.agent_id ||
    existing.type !== row.type ||
    (incoming.tsSupplied && existing.ts_ms !== row.ts_ms)
  ) {
    return false;
  }
  if (existing.redacted) return true;
  return (
    existing.summary === row.summary &&
    (existing.payload_json ?? null) === row.payload_json &&
    existing.refs_json === row.refs_json &&
    existing.metadata_json === row.metadata_json
  );
}
