import {
  type LedgerEventType,
  parseRetentionDays,
  type RetentionPolicyInput,
} from '@episodic/core';
import { LEDGER_EVENT_TYPES } from '@episodic/core/schemas';
import { foldEventType } from './event-type.js';
import { UsageError } from './usage-error.js';

/**
 * Parses `--policy TYPE=DAYS|forever` entries into a retention policy override. Later entries for
 * the same type win. The type is folded like `--type` (`Tool.Result=7` is `tool.result=7`); the
 * days follow core's one rule (`parseRetentionDays`): 0 to 1000000, fractions allowed, or
 * `forever` / `inf` / `infinite` / `none` to keep the type.
 */
export function parseRetentionPolicy(
  entries: readonly string[] | undefined,
): RetentionPolicyInput | undefined {
  if (entries === undefined) return undefined;
  const policy: Partial<Record<LedgerEventType, number | null>> = {};
  for (const entry of entries) {
    const separator = entry.indexOf('=');
    const type = foldEventType(separator === -1 ? entry : entry.slice(0, separator));
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
    const value = parseRetentionDays(days);
    if (value === undefined) {
      throw new UsageError(
        `Invalid --policy ${JSON.stringify(entry)}: the days must be a number from 0 to 1000000 (fractions allowed: 1.5 is 36 hours; 0 expires every ${type} event older than now), or "forever" (also "inf") to keep ${type} events.`,
        'VALIDATION_ERROR',
      );
    }
    policy[type as LedgerEventType] = value;
  }
  return policy;
}
