import {
  LEDGER_EVENT_TYPES,
  type LedgerEventType,
  RETENTION_MAX_DAYS,
  type RetentionPolicy,
  type RetentionPolicyInput,
} from '../schema/ledger-event.js';

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;

/**
 * The default retention in days per type (`null` = forever): user messages 60, assistant messages
 * 90, tool calls and results 30, alerts 90, decisions forever.
 */
export const DEFAULT_RETENTION_POLICY: Readonly<RetentionPolicy> = Object.freeze({
  'conversation.assistant': 90,
  'conversation.user': 60,
  'ops.alert': 90,
  'ops.decision': null,
  'tool.call': 30,
  'tool.result': 30,
});

/**
 * The effective policy: the defaults, then each set of overrides in turn (a type set to `null`
 * is kept forever; a type left out keeps the value before it).
 */
export function resolveRetentionPolicy(
  ...overrides: Array<RetentionPolicyInput | undefined>
): RetentionPolicy {
  const policy = { ...DEFAULT_RETENTION_POLICY };
  for (const override of overrides) {
    if (override === undefined) continue;
    for (const type of LEDGER_EVENT_TYPES) {
      const days = override[type];
      if (days !== undefined) policy[type] = days;
    }
  }
  return policy;
}

/**
 * Per type, the `ts_ms` below which events are deleted (strictly older: `ts_ms < cutoff`), or
 * `null` for types kept forever.
 */
export function retentionCutoffs(
  policy: RetentionPolicy,
  nowMs: number,
): Record<LedgerEventType, number | null> {
  const cutoffs = {} as Record<LedgerEventType, number | null>;
  for (const type of LEDGER_EVENT_TYPES) {
    const days = policy[type];
    cutoffs[type] = days === null ? null : nowMs - Math.round(days * DAY_MS);
  }
  return cutoffs;
}

/** True when an event of `type` at `tsMs` is past its retention at `nowMs`. */
export function isExpired(
  type: LedgerEventType,
  tsMs: number,
  policy: RetentionPolicy,
  nowMs: number,
): boolean {
  const cutoff = retentionCutoffs(policy, nowMs)[type];
  return cutoff !== null && tsMs < cutoff;
}

/** The words that keep a type forever, as seed 002's `--policy TYPE=forever` takes them. */
export const FOREVER_WORDS: readonly string[] = ['forever', 'inf', 'infinite', 'none'];

const DAYS_TEXT = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;

/**
 * Reads retention days written as text (a `--policy TYPE=DAYS` value), by the one rule every
 * policy follows: a number of days from 0 to 1,000,000, fractions allowed (`1.5` is 36 hours, `0`
 * expires every event older than now), or `forever` / `inf` / `infinite` / `none` (any case) to
 * keep the type forever, which is `null`. Returns `undefined` for anything else.
 */
export function parseRetentionDays(text: string): number | null | undefined {
  const value = text.trim().toLowerCase();
  if (FOREVER_WORDS.includes(value)) return null;
  if (!DAYS_TEXT.test(value)) return undefined;
  const days = Number(value);
  return Number.isFinite(days) && days <= RETENTION_MAX_DAYS ? days : undefined;
}
