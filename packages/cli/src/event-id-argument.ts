import type { Ledger } from '@episodic/core';
import type { ScopeSelector } from './option-values.js';

// Apart from id-arguments.ts, which loads every store: the `episodes` commands open only the ledger.

/**
 * An event id as people type it (`--event-id`, `--after-id`): a whole stored id, or the one event
 * of the command's scope (of every scope with --all-scopes) whose id starts with the 6 or more
 * characters given. An ambiguous prefix is a `VALIDATION_ERROR` naming the candidates. An id no
 * event of the scope has is returned as given, so the command answers `NOT_FOUND` in its own words
 * (another scope's events are never resolved, named or counted).
 */
export async function eventIdArgument(
  ledger: Ledger,
  selector: ScopeSelector,
  value: string,
  subject: string,
): Promise<string> {
  return ledger.resolveEventId(value, { ...selector, subject, unmatched: 'as-given' });
}
