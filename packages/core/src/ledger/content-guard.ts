import { EpisodicError } from '../errors/episodic-error.js';
import type { ContentKind } from '../schema/ledger-event.js';
import { formatPath } from '../validation/describe-value.js';
import {
  type ContentRule,
  CREDENTIAL_KEY,
  DEFAULT_CONTENT_RULES,
  looksLikeCredentialValue,
} from './content-rules.js';
import { createHintScanner, type HintScanner } from './hint-scanner.js';

/** One thing a guard found. It never carries the matched text, so it is safe to log and return. */
export interface ContentFinding {
  /** The rule id, e.g. `aws_key`. */
  readonly rule: string;
  readonly kind: ContentKind;
  /** Where it was found, e.g. `summary` or `payload.headers.authorization`. */
  readonly field: string;
}

/** Which detectors run and which kinds pass. */
export interface ContentGuardOptions {
  /** The detectors. @default DEFAULT_CONTENT_RULES */
  readonly rules?: readonly ContentRule[];
  /** Kinds that are stored without complaint. @default [] */
  readonly allow?: readonly ContentKind[];
}

interface Span {
  start: number;
  end: number;
  rule: ContentRule;
  order: number;
}

/**
 * `candidate`, or `candidate#2`, `#3`, … when another key of the object already has it: a key
 * replaced by a placeholder never overwrites another entry.
 */
export function uniqueKey(candidate: string, taken: ReadonlySet<string>): string {
  if (!taken.has(candidate)) return candidate;
  for (let n = 2; ; n++) {
    const next = `${candidate}#${n}`;
    if (!taken.has(next)) return next;
  }
}

/** The placeholder that replaces content found by `rule`, e.g. `[REDACTED:aws_key]`. */
export function placeholderFor(ruleId: string): string {
  return `[REDACTED:${ruleId}]`;
}

/** Object keys seen recently and whether they name a credential (payloads repeat their keys). */
const credentialKeys = new Map<string, boolean>();

function isCredentialKey(key: string): boolean {
  let known = credentialKeys.get(key);
  if (known === undefined) {
    known = CREDENTIAL_KEY.test(key);
    if (credentialKeys.size >= 4096) credentialKeys.clear();
    credentialKeys.set(key, known);
  }
  return known;
}

/** Filtered rule lists, kept per list and allow set so each keeps one hint scanner. */
const filteredRules = new WeakMap<readonly ContentRule[], Map<string, readonly ContentRule[]>>();
const scanners = new WeakMap<readonly ContentRule[], HintScanner>();

function activeRules(options: ContentGuardOptions): readonly ContentRule[] {
  const rules = options.rules ?? DEFAULT_CONTENT_RULES;
  const allow = options.allow;
  if (allow === undefined || allow.length === 0) return rules;
  let byAllow = filteredRules.get(rules);
  if (byAllow === undefined) {
    byAllow = new Map();
    filteredRules.set(rules, byAllow);
  }
  const key = [...allow].sort().join(',');
  let filtered = byAllow.get(key);
  if (filtered === undefined) {
    filtered = rules.filter((rule) => !allow.includes(rule.kind));
    byAllow.set(key, filtered);
  }
  return filtered;
}

function scannerFor(rules: readonly ContentRule[]): HintScanner {
  let scanner = scanners.get(rules);
  if (scanner === undefined) {
    scanner = createHintScanner(rules);
    scanners.set(rules, scanner);
  }
  return scanner;
}

/** Non-overlapping spans of sensitive text, in order (the earliest, then the longest, wins). */
function findSpans(text: string, rules: readonly ContentRule[]): Span[] {
  if (text.length < 3) return [];
  const scanner = scannerFor(rules);
  // Every built-in hint in one pass; a rule with a hint of its own still calls it.
  const hinted = scanner.scan(text);
  if (hinted === null && scanner.coversAll) return [];
  const spans: Span[] = [];
  for (let order = 0; order < rules.length; order++) {
    const rule = rules[order] as ContentRule;
    if (rule.hint !== undefined) {
      if (scanner.covered[order] === 1 ? hinted?.[order] !== 1 : !rule.hint(text)) continue;
    }
    const pattern = rule.pattern;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      if (match[0].length === 0) {
        pattern.lastIndex++;
        continue;
      }
      let start = match.index;
      let end = start + match[0].length;
      if (rule.group !== undefined) {
        const indices = match.indices?.[rule.group];
        if (indices === undefined) continue;
        [start, end] = indices;
      }
      if (rule.accept !== undefined && !rule.accept(text.slice(start, end))) continue;
      spans.push({ start, end, rule, order });
    }
  }
  if (spans.length < 2) return spans;
  spans.sort(
    (left, right) => left.start - right.start || right.end - left.end || left.order - right.order,
  );
  const kept: Span[] = [];
  let reach = -1;
  for (const span of spans) {
    if (span.start < reach) continue;
    kept.push(span);
    reach = span.end;
  }
  return kept;
}

/** The rule ids found in `text` (one entry per match), without changing anything. */
export function scanText(text: string, options: ContentGuardOptions = {}): string[] {
  return findSpans(text, activeRules(options)).map((span) => span.rule.id);
}

const ID_KIND_WORDS: Record<ContentKind, string> = {
  secret: 'a secret',
  pii: 'personal data',
  tool_output: 'raw tool output',
};

/**
 * Refuses an id (a ledger event's `event_id`, `scope`, `session_id` or `agent_id`, a session
 * commit's `run_id`) that looks like content. Redaction keeps ids (they name rows and files), so
 * an id carrying content could never be scrubbed: it is refused whatever `redact` says, and a
 * secret even when `allow` lists `secret`. A `VALIDATION_ERROR` names the field and the rule, never
 * the value. Anything but a string passes (the schemas check the type).
 */
export function assertIdCarriesNoContent(
  value: unknown,
  field: string,
  subject: string,
  options: ContentGuardOptions = {},
): void {
  if (typeof value !== 'string') return;
  const rules = options.rules ?? DEFAULT_CONTENT_RULES;
  const allow = (options.allow ?? []).filter((kind) => kind !== 'secret');
  const [rule] = scanText(value, { rules, allow });
  if (rule === undefined) return;
  const kind = rules.find((candidate) => candidate.id === rule)?.kind ?? 'secret';
  throw new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid ${subject}: ${field} looks like ${ID_KIND_WORDS[kind]} (rule ${rule}). Ids are kept when records are redacted, so an id that carries content could never be scrubbed: use an opaque id (a ULID, a UUID, a name) and put the content in a content field (a summary, a payload, an episode). Neither { redact: true } nor { allow } stores it. Nothing was changed.`,
    details: {
      subject,
      field,
      rule,
      kind,
      issues: [
        { field, message: `looks like ${ID_KIND_WORDS[kind]} (rule ${rule})`, value: '(withheld)' },
      ],
    },
  });
}

function replaceSpans(text: string, spans: Span[]): string {
  let output = '';
  let cursor = 0;
  for (const span of spans) {
    output += text.slice(cursor, span.start) + placeholderFor(span.rule.id);
    cursor = span.end;
  }
  return output + text.slice(cursor);
}

/** `text` with every match replaced by its typed placeholder, and the rule ids replaced. */
export function redactText(
  text: string,
  options: ContentGuardOptions = {},
): { text: string; rules: string[] } {
  const spans = findSpans(text, activeRules(options));
  if (spans.length === 0) return { text, rules: [] };
  return { text: replaceSpans(text, spans), rules: spans.map((span) => span.rule.id) };
}

/** The result of guarding one value: the (possibly redacted) value and the findings. */
export interface GuardResult<T> {
  readonly value: T;
  readonly findings: ContentFinding[];
}

/** True when `text`, stored under `key`, is a credential as a whole (e.g. `password: "…"`). */
function isCredentialValue(
  credentialRule: ContentRule | undefined,
  text: string,
  key: string | undefined,
): credentialRule is ContentRule {
  return (
    credentialRule !== undefined &&
    key !== undefined &&
    isCredentialKey(key) &&
    looksLikeCredentialValue(text) &&
    !text.startsWith('[REDACTED')
  );
}

/**
 * Chooses the text that replaces one finding: `ruleId` found `original`. The default is the typed
 * placeholder (`[REDACTED:aws_key]`).
 */
export type PlaceholderChooser = (ruleId: string, original: string) => string;

/**
 * Redacts one string value stored under `key` exactly as `guardJsonValue` with `redact` does (a
 * credential under a credential key as a whole, detector matches as spans), each finding replaced
 * by `choose(ruleId, original)`. Returns the text (`text` itself when nothing was found) and the
 * number of findings.
 */
export function redactStringValue(
  text: string,
  key: string | undefined,
  options: ContentGuardOptions,
  choose: PlaceholderChooser = placeholderFor,
): { text: string; findings: number } {
  const rules = activeRules(options);
  const credentialRule = rules.find((rule) => rule.id === 'credential');
  if (isCredentialValue(credentialRule, text, key)) {
    return { text: choose(credentialRule.id, text), findings: 1 };
  }
  const spans = findSpans(text, rules);
  if (spans.length === 0) return { text, findings: 0 };
  let output = '';
  let cursor = 0;
  for (const span of spans) {
    output +=
      text.slice(cursor, span.start) + choose(span.rule.id, text.slice(span.start, span.end));
    cursor = span.end;
  }
  return { text: output + text.slice(cursor), findings: spans.length };
}

/**
 * Scans every string in a JSON value, object keys included (keys name the field; a string under
 * a credential key such as `password` or `api_key` is a `credential` finding; a key holding a
 * secret is reported as `<path> (an object key)`, never by its text). With `redact`, returns a
 * copy in which each finding is replaced by its placeholder (a key by a placeholder key, made
 * unique with `#2`, `#3`, …); otherwise returns the value unchanged.
 */
export function guardJsonValue<T>(
  value: T,
  field: string,
  options: ContentGuardOptions & { redact?: boolean } = {},
): GuardResult<T> {
  const rules = activeRules(options);
  const credentialRule = rules.find((rule) => rule.id === 'credential');
  const findings: ContentFinding[] = [];
  const redact = options.redact === true;

  const visitString = (text: string, path: ReadonlyArray<string | number>, key?: string) => {
    if (isCredentialValue(credentialRule, text, key)) {
      findings.push({
        rule: 'credential',
        kind: credentialRule.kind,
        field: formatPath([...path]),
      });
      return redact ? placeholderFor('credential') : text;
    }
    const spans = findSpans(text, rules);
    if (spans.length === 0) return text;
    const where = formatPath([...path]);
    for (const span of spans)
      findings.push({ rule: span.rule.id, kind: span.rule.kind, field: where });
    return redact ? replaceSpans(text, spans) : text;
  };

  const visit = (node: unknown, path: Array<string | number>, key?: string): unknown => {
    if (typeof node === 'string') return visitString(node, path, key);
    if (typeof node !== 'object' || node === null) return node;
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      for (let index = 0; index < node.length; index++) {
        path.push(index);
        const next = visit(node[index], path, key);
        path.pop();
        if (next !== node[index]) {
          copy ??= [...node];
          copy[index] = next;
        }
      }
      return copy ?? node;
    }
    const entries = Object.entries(node);
    let taken: Set<string> | undefined;
    let changed = false;
    const next = entries.map(([entryKey, entryValue]): [string, unknown] => {
      // A key is content too: one holding a secret is reported (by its object's path, never its
      // text) and, with `redact`, replaced by a placeholder no other key of the object has.
      let key = entryKey;
      const keySpans = findSpans(entryKey, rules);
      if (keySpans.length > 0) {
        const where = `${formatPath([...path]) || '(top level)'} (an object key)`;
        for (const span of keySpans)
          findings.push({ rule: span.rule.id, kind: span.rule.kind, field: where });
        taken ??= new Set(entries.map(([name]) => name));
        key = uniqueKey(replaceSpans(entryKey, keySpans), taken);
        taken.add(key);
      }
      path.push(key);
      const value = visit(entryValue, path, entryKey);
      path.pop();
      const storedKey = redact ? key : entryKey;
      if (value !== entryValue || storedKey !== entryKey) changed = true;
      return [storedKey, value];
    });
    return changed ? Object.fromEntries(next) : node;
  };

  const result = visit(value, field === '' ? [] : [field]) as T;
  return { value: result, findings };
}

const KIND_WORDS: Record<ContentKind, string> = {
  secret: 'a secret',
  pii: 'personal data',
  tool_output: 'raw tool output',
};

/**
 * The `VALIDATION_ERROR` for content the guards rejected. It names the fields and rules but never
 * the matched text, so the secret is not echoed into logs or model context.
 */
export function contentRejectedError(subject: string, findings: ContentFinding[]): EpisodicError {
  const [first] = findings;
  const firstText = first
    ? `${first.field} looks like ${KIND_WORDS[first.kind]} (rule ${first.rule})`
    : 'the content was flagged';
  const more =
    findings.length > 1
      ? ` (and ${findings.length - 1} more finding${findings.length > 2 ? 's' : ''})`
      : '';
  const kinds = [...new Set(findings.map((finding) => finding.kind))].sort();
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid ${subject}: ${firstText}${more}. Remove it or store a reference to it instead, pass { redact: true } to replace it with ${placeholderFor(first?.rule ?? 'rule')}, or pass { allow: [${kinds.map((kind) => `'${kind}'`).join(', ')}] } if it must be stored. Nothing was changed.`,
    details: {
      subject,
      issues: findings.slice(0, 10).map((finding) => ({
        field: finding.field,
        message: `looks like ${KIND_WORDS[finding.kind]} (rule ${finding.rule})`,
        value: '(withheld)',
      })),
      findings: findings.map((finding) => ({ ...finding })),
    },
  });
}
