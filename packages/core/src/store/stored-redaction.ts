import * as z from 'zod';
import { guardJsonValue, redactStringValue, redactText } from '../ledger/content-guard.js';
import type { ContentRule } from '../ledger/content-rules.js';
import { CONTENT_KINDS, type ContentKind } from '../schema/ledger-event.js';
import { safeJsonParse } from '../util/json.js';
import { rewriteJsonStrings } from '../util/json-strings.js';
import { utf8ByteLength } from '../util/utf8.js';
import { parseInput } from '../validation/parse-input.js';

/**
 * How stored runs and snapshots are scrubbed:
 * - `secrets`: every string is run through the content detectors (the ledger's, by default the
 *   `secret` rules) and each finding is replaced by its typed placeholder, e.g.
 *   `[REDACTED:aws_key]`. Everything else stays as it was.
 * - `content`: every string value is replaced by `[REDACTED]`, except the fields that identify and
 *   order a record (`type`, ids, timestamps, sequence numbers, roles, statuses, outcomes and tool
 *   names); numbers and booleans are kept. A line that cannot be read as JSON becomes the JSON
 *   string `"[REDACTED]"` (still a damaged line, so the run keeps its positions).
 *
 * A stored run line is rewritten string by string: numbers, key order and every unchanged string
 * keep their exact bytes.
 */
export type StoredRedactionMode = 'secrets' | 'content';

/** Options of `RunStore.redact` and `SessionStore.redact`. */
export interface StoredRedactionOptions {
  /** What to scrub. @default 'secrets' */
  mode?: StoredRedactionMode;
  /** In `secrets` mode, the kinds of finding that are replaced. @default ['secret'] */
  kinds?: ContentKind[];
  /** The detectors. @default DEFAULT_CONTENT_RULES (the ledger's) */
  rules?: ContentRule[];
}

/** The text every string becomes in `content` mode. */
export const REDACTED_TEXT = '[REDACTED]';

/**
 * Keys whose string values identify or order a record, and which `content` mode keeps so the
 * scrubbed record still reads as what it was (a `tool.output` of `call_1` at 12:00, `completed`).
 */
const STRUCTURAL_KEYS = new Set([
  'type',
  'schema_version',
  'run_id',
  'session_id',
  'id',
  'call_id',
  'tool_call_id',
  'ts',
  'started_at',
  'updated_at',
  'ended_at',
  'role',
  'status',
  'outcome',
  'reason',
  'tool',
  'name',
  'provider',
]);

const optionsSchema = z
  .strictObject({
    mode: z.enum(['secrets', 'content']).optional(),
    kinds: z.array(z.enum(CONTENT_KINDS)).min(1).optional(),
    rules: z
      .array(z.looseObject({ id: z.string().min(1), pattern: z.instanceof(RegExp) }))
      .optional(),
  })
  .optional();

/** Counts of what one redaction changed. */
export interface StoredRedactionCounts {
  /** Detector findings replaced (`secrets` mode) or string values replaced (`content` mode). */
  replacements: number;
}

/**
 * Scrubs stored forms (run lines, snapshots, cached tool outputs) the same way everywhere. Each
 * method returns its input itself (the same string or object) when nothing changed, so a caller
 * can rewrite only what did.
 */
export interface StoredRedactor {
  readonly mode: StoredRedactionMode;
  /** Running totals over every call. */
  readonly counts: StoredRedactionCounts;
  /** A JSON value (a parsed record or snapshot). */
  json<T>(value: T): T;
  /**
   * One stored line of a run (its text without the `\n`): the new text, or `line` itself when
   * unchanged. Never removes the line, and never makes it blank. With `maxBytes`, the result is at
   * most that many UTF-8 bytes (a store rewriting a line in place passes the line's own length):
   * placeholders that would not fit become `[REDACTED]`, or `*` for each replaced character.
   */
  line(line: string, maxBytes?: number): string;
  /** Free text (a cached tool output). */
  text(text: string): string;
}

/** Validates redaction options (`VALIDATION_ERROR` naming the field otherwise). */
export function parseStoredRedactionOptions(
  options: unknown,
  subject = 'redaction options',
): StoredRedactionOptions {
  return (parseInput(optionsSchema, options, subject) ?? {}) as StoredRedactionOptions;
}

/** Creates the redactor for `options` (validated with `parseStoredRedactionOptions`). */
export function createStoredRedactor(options: StoredRedactionOptions = {}): StoredRedactor {
  const mode = options.mode ?? 'secrets';
  const kinds = options.kinds ?? ['secret'];
  const guard = {
    ...(options.rules === undefined ? {} : { rules: options.rules }),
    allow: CONTENT_KINDS.filter((kind) => !kinds.includes(kind)),
  };
  const counts: StoredRedactionCounts = { replacements: 0 };

  const blank = (node: unknown, key: string | undefined): unknown => {
    if (typeof node === 'string') {
      if ((key !== undefined && STRUCTURAL_KEYS.has(key)) || node === REDACTED_TEXT) return node;
      counts.replacements++;
      return REDACTED_TEXT;
    }
    if (typeof node !== 'object' || node === null) return node;
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      node.forEach((item, index) => {
        // Array items carry their parent's key: `content: ["a", "b"]` is content.
        const next = blank(item, key);
        if (next !== item) {
          copy ??= [...node];
          copy[index] = next;
        }
      });
      return copy ?? node;
    }
    let copy: Record<string, unknown> | undefined;
    for (const [entryKey, value] of Object.entries(node)) {
      const next = blank(value, entryKey);
      if (next !== value) {
        copy ??= { ...(node as Record<string, unknown>) };
        copy[entryKey] = next;
      }
    }
    return copy ?? node;
  };

  const json = <T>(value: T): T => {
    if (mode === 'content') return blank(value, undefined) as T;
    const { value: redacted, findings } = guardJsonValue(value, '', { ...guard, redact: true });
    counts.replacements += findings.length;
    return redacted;
  };

  const text = (input: string): string => {
    if (mode === 'content') {
      if (input === REDACTED_TEXT) return input;
      counts.replacements++;
      return REDACTED_TEXT;
    }
    const redacted = redactText(input, guard);
    counts.replacements += redacted.rules.length;
    return redacted.rules.length === 0 ? input : redacted.text;
  };

  /**
   * The replacement of one string: its redaction when that `fits` the room the stored form has,
   * else with shorter placeholders, else `*` per replaced character (which always fits: every
   * stored character takes at least one byte).
   */
  const replaceString = (
    value: string,
    key: string | undefined,
    fits: (candidate: string) => boolean,
  ): { text: string; replacements: number } => {
    if (mode === 'content') {
      if ((key !== undefined && STRUCTURAL_KEYS.has(key)) || value === REDACTED_TEXT) {
        return { text: value, replacements: 0 };
      }
      return {
        text: fits(REDACTED_TEXT) ? REDACTED_TEXT : '*'.repeat(value.length),
        replacements: 1,
      };
    }
    const typed = redactStringValue(value, key, guard);
    if (typed.findings === 0 || fits(typed.text)) {
      return { text: typed.text, replacements: typed.findings };
    }
    const plain = redactStringValue(value, key, guard, () => REDACTED_TEXT);
    if (fits(plain.text)) return { text: plain.text, replacements: plain.findings };
    const masked = redactStringValue(value, key, guard, (_rule, original) =>
      '*'.repeat(original.length),
    );
    return { text: masked.text, replacements: masked.findings };
  };

  const anything = () => true;

  const line = (raw: string, maxBytes?: number): string => {
    // The same tolerance as the reader: a BOM, a trailing CR and NUL padding around a record.
    const trimmed = raw
      .replace(/^\uFEFF/, '')
      .replace(/\r$/, '')
      .replace(/^\0+|\0+$/g, '')
      .trim();
    if (trimmed === '') return raw;
    let replaced = 0;
    if (safeJsonParse(trimmed).success) {
      const next = rewriteJsonStrings(trimmed, (value, key, encodedBytes) => {
        const fits =
          maxBytes === undefined
            ? anything
            : (candidate: string) => utf8ByteLength(JSON.stringify(candidate)) <= encodedBytes;
        const result = replaceString(value, key, fits);
        replaced += result.replacements;
        return result.text;
      });
      counts.replacements += replaced;
      return next === trimmed ? raw : next;
    }
    // A damaged line (a torn write, bytes of another file) can still hold a secret. It stays a
    // line (never dropped) so the run keeps its positions.
    const rawBytes = maxBytes ?? Number.POSITIVE_INFINITY;
    if (mode === 'content') {
      if (trimmed === JSON.stringify(REDACTED_TEXT) || /^\*+$/.test(trimmed)) return raw;
      counts.replacements++;
      const placeholder = JSON.stringify(REDACTED_TEXT);
      return placeholder.length <= rawBytes ? placeholder : '*'.repeat(Math.max(1, rawBytes));
    }
    const result = replaceString(
      raw,
      undefined,
      (candidate) => utf8ByteLength(candidate) <= rawBytes,
    );
    counts.replacements += result.replacements;
    return result.text;
  };

  return { mode, counts, json, line, text };
}
