import {
  LEDGER_EVENT_TYPES,
  type LedgerEventType,
  type RetentionPolicyInput,
} from '@episodic/core';
import { UsageError } from './usage-error.js';

const DAYS = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;

/**
 * Parses `--policy TYPE=DAYS|forever` entries into a retention policy override. Later entries for
 * the same type win. Days are positive (fractions allowed); `forever` keeps the type.
 */
export function parseRetentionPolicy(
  entries: readonly string[] | undefined,
): RetentionPolicyInput | undefined {
  if (entries === undefined) return undefined;
  const policy: Partial<Record<LedgerEventType, number | null>> = {};
  for (const entry of entries) {
    const separator = entry.indexOf('=');
    const type = (separator === -1 ? entry : entry.slice(0, separator)).trim().toLowerCase();
    const days =
      separator === -1
        ? ''
        : entry
            .slice(separator + 1)
            .trim()
            .toLowerCase();
    if (separator === -1 || days === '') {
      throw new UsageError(
        `Invalid --policy ${JSON.stringify(entry)}: write TYPE=DAYS or TYPE=forever, e.g. --policy tool.result=7.`,
        'VALIDATION_ERROR',
      );
    }
    if (!(LEDGER_EVENT_TYPES as readonly string[]).includes(type)) {
      throw new UsageError(
        `Invalid --policy ${JSON.stringify(entry)}: ${JSON.stringify(type)} is not an event type; use one of ${LEDGER_EVENT_TYPES.join(', ')}.`,
        'VALIDATION_ERROR',
      );
    }
    if (days === 'forever') {
      policy[type as LedgerEventType] = null;
      continue;
    }
    const value = DAYS.test(days) ? Number(days) : Number.NaN;
    if (!Number.isFinite(value) || value <= 0 || value > 1_000_000) {
      throw new UsageError(
        `Invalid --policy ${JSON.stringify(entry)}: the days must be a positive number up to 1000000, or "forever" to keep ${type} events.`,
        'VALIDATION_ERROR',
      );
    }
    policy[type as LedgerEventType] = value;
  }
  return policy;
}
