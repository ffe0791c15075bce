import * as z from 'zod';
import { type ErasureBy, erasureBySchema } from '../chain/schemas.js';
import { redactStringValue, redactText, uniqueKey } from '../ledger/content-guard.js';
import type { ContentRule } from '../ledger/content-rules.js';
import { CONTENT_KINDS, type ContentKind } from '../schema/ledger-event.js';
import { METADATA_KEY_MAX_LENGTH } from '../schema/metadata.js';
import { safeJsonParse } from '../util/json.js';
import { type JsonPath, rewriteJsonText } from '../util/json-strings.js';
import { utf8ByteLength } from '../util/utf8.js';
import { parseInput } from '../validation/parse-input.js';
import { isCallerKeyPosition, runRecordInventoryName, storedStringClass } from './stored-fields.js';

/**
 * How stored runs and snapshots are scrubbed:
 * - `secrets`: every string is run through the content detectors (the ledger's, by default the
 *   `secret` rules) and each finding is replaced by its typed placeholder, e.g.
 *   `[REDACTED:aws_key]`. Everything else stays as it was.
 * - `content`: every string the stored-field inventory (`storedFieldInventory`) classifies as
 *   content is replaced by `[REDACTED]`; ids and system fields (`type`, ids, timestamps, roles,
 *   statuses, outcomes, tool and model names) are kept, and so are numbers and booleans. A line
 *   that cannot be read as JSON becomes the JSON string `"[REDACTED]"` (still a damaged line, so
 *   the run keeps its positions).
 *
 * Object keys are scrubbed too. In both modes a key holding a detector finding is replaced like a
 * value (`[REDACTED:aws_key]`); in `content` mode every caller key (of parameters, metadata,
 * payloads, `meta`, `context`: JSON a schema leaves open) becomes `[REDACTED]`. Keys stay unique:
 * a replacement that another key of the object already has gets `#2`, `#3`, … appended, so no
 * entry is lost. A replaced key is never longer than 64 characters (the metadata key limit) unless
 * the key itself was: where a placeholder would make it longer, the key becomes `*` per character.
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
  /**
   * Who asks, recorded as the `by` of the erasure entry a chained store writes (a command and its
   * flag names, never their values: `{ command: 'episodic runs redact', flags: ['--mode'] }`).
   * @default the library call, e.g. `{ api: 'RunStore.redact' }`
   */
  by?: ErasureBy;
}

/** The text every string becomes in `content` mode. */
export const REDACTED_TEXT = '[REDACTED]';

const optionsSchema = z
  .strictObject({
    mode: z.enum(['secrets', 'content']).optional(),
    kinds: z.array(z.enum(CONTENT_KINDS)).min(1).optional(),
    rules: z
      .array(z.looseObject({ id: z.string().min(1), pattern: z.instanceof(RegExp) }))
      .optional(),
    by: erasureBySchema.optional(),
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
  /** Who asks (`StoredRedactionOptions.by`): what a chained store records in its erasure log. */
  readonly by?: ErasureBy;
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

  const anything = () => true;

  /** A key already written by a redaction (kept as it is, so redacting twice changes nothing). */
  const isPlaceholderKey = (key: string) =>
    /^\[REDACTED(?::[A-Za-z0-9_-]+)?\](?:#\d+)?$/.test(key) || /^\*+\d*$/.test(key);

  /** A mask of `length` characters no other key has: `*` with a counter at its end if needed. */
  const uniqueMask = (length: number, taken: ReadonlySet<string>): string => {
    const mask = '*'.repeat(Math.max(1, length));
    if (!taken.has(mask)) return mask;
    for (let n = 2; ; n++) {
      const digits = String(n);
      const next = mask.slice(0, Math.max(1, mask.length - digits.length)) + digits;
      if (!taken.has(next)) return next;
    }
  };

  /**
   * The replacement of one object key (`key` itself when it stays): a caller key in `content`
   * mode becomes `[REDACTED]`; any key with a detector finding is redacted like a value.
   */
  const replaceKey = (
    key: string,
    callerKey: boolean,
    taken: ReadonlySet<string>,
    fits: (candidate: string) => boolean,
  ): { text: string; replacements: number } => {
    if (isPlaceholderKey(key)) return { text: key, replacements: 0 };
    // A key a schema limits (metadata: 64 characters) stays within that limit.
    const fitsKey = (candidate: string) =>
      candidate.length <= Math.max(key.length, METADATA_KEY_MAX_LENGTH) && fits(candidate);
    let candidates: string[];
    let replacements: number;
    if (mode === 'content' && callerKey) {
      candidates = [REDACTED_TEXT];
      replacements = 1;
    } else {
      const typed = redactStringValue(key, undefined, guard);
      if (typed.findings === 0) return { text: key, replacements: 0 };
      const plain = redactStringValue(key, undefined, guard, () => REDACTED_TEXT);
      candidates = [typed.text, plain.text];
      replacements = typed.findings;
    }
    for (const candidate of candidates) {
      const next = uniqueKey(candidate, taken);
      if (fitsKey(next)) return { text: next, replacements };
    }
    return { text: uniqueMask(key.length, taken), replacements };
  };

  /** Whether `content` mode blanks the string at `path` of `root` (a record of `record`). */
  const blanks = (record: string, root: unknown, path: JsonPath, value: string) =>
    value !== REDACTED_TEXT && storedStringClass(record, root, path) === 'content';

  /** A parsed stored value (a session snapshot: inventory record `record`), scrubbed. */
  const scrubValue = (record: string, root: unknown): unknown => {
    const path: Array<string | number> = [];
    const visit = (node: unknown): unknown => {
      if (typeof node === 'string') {
        if (mode === 'content') {
          if (!blanks(record, root, path, node)) return node;
          counts.replacements++;
          return REDACTED_TEXT;
        }
        const key = [...path].reverse().find((part) => typeof part === 'string') as
          | string
          | undefined;
        const redacted = redactStringValue(node, key, guard);
        counts.replacements += redacted.findings;
        return redacted.text;
      }
      if (typeof node !== 'object' || node === null) return node;
      if (Array.isArray(node)) {
        let copy: unknown[] | undefined;
        node.forEach((item, index) => {
          path.push(index);
          const next = visit(item);
          path.pop();
          if (next !== item) {
            copy ??= [...node];
            copy[index] = next;
          }
        });
        return copy ?? node;
      }
      const entries = Object.entries(node);
      const taken = new Set(entries.map(([key]) => key));
      const callerKeys = mode === 'content' && isCallerKeyPosition(record, root, path);
      let changed = false;
      const next: Array<[string, unknown]> = entries.map(([key, value]) => {
        path.push(key);
        const scrubbed = visit(value);
        path.pop();
        const renamed = replaceKey(key, callerKeys, taken, anything);
        if (renamed.text !== key) {
          taken.add(renamed.text);
          counts.replacements += renamed.replacements;
        }
        if (scrubbed !== value || renamed.text !== key) changed = true;
        return [renamed.text, scrubbed];
      });
      return changed ? Object.fromEntries(next) : node;
    };
    return visit(root);
  };

  const json = <T>(value: T): T => scrubValue('session.snapshot', value) as T;

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
    blank = true,
  ): { text: string; replacements: number } => {
    if (mode === 'content') {
      if (!blank || value === REDACTED_TEXT) return { text: value, replacements: 0 };
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

  const line = (raw: string, maxBytes?: number): string => {
    // The same tolerance as the reader: a BOM, a trailing CR and NUL padding around a record.
    const trimmed = raw
      .replace(/^\uFEFF/, '')
      .replace(/\r$/, '')
      .replace(/^\0+|\0+$/g, '')
      .trim();
    if (trimmed === '') return raw;
    let replaced = 0;
    const parsed = safeJsonParse(trimmed);
    if (parsed.success) {
      const root = parsed.value;
      const record = runRecordInventoryName(root);
      const fitsIn = (encodedBytes: number) =>
        maxBytes === undefined
          ? anything
          : (candidate: string) => utf8ByteLength(JSON.stringify(candidate)) <= encodedBytes;
      const next = rewriteJsonText(trimmed, {
        value(value, path, encodedBytes) {
          const key = [...path].reverse().find((part) => typeof part === 'string') as
            | string
            | undefined;
          const blank = mode === 'content' && blanks(record, root, path, value);
          const result = replaceString(value, key, fitsIn(encodedBytes), blank);
          replaced += result.replacements;
          return result.text;
        },
        key(key, parent, encodedBytes, taken) {
          const callerKeys = mode === 'content' && isCallerKeyPosition(record, root, parent);
          const result = replaceKey(key, callerKeys, taken, fitsIn(encodedBytes));
          replaced += result.replacements;
          return result.text;
        },
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

  return {
    mode,
    ...(options.by === undefined ? {} : { by: options.by }),
    counts,
    json,
    line,
    text,
  };
}
