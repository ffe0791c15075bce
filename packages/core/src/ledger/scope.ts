import { EpisodicError } from '../errors/episodic-error.js';
import { describeValue } from '../validation/describe-value.js';

/** The longest scope accepted, after normalization. */
export const SCOPE_MAX_LENGTH = 256;

/**
 * The scope name seed 002's own implementation gives events that carry no scope (its ingest puts
 * untagged events there). Episodic never writes to it: an append naming it is refused. Reads,
 * redactions and GC may name it (`scope: 'global'`, `--scope global`) to reach exactly those
 * events; reaching every scope is `global: true` (`--global`), a different thing.
 */
export const GLOBAL_SCOPE = 'global';

/** Scopes seen recently and their normalized form: an application uses a handful, every append normalizes one. */
const normalizedScopes = new Map<string, string>();
const NORMALIZED_SCOPES_KEPT = 1024;

function invalidScope(value: unknown, reason: string): EpisodicError {
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid scope: ${reason} (got ${describeValue(value)}). Use a project, tenant or team name such as "my-project"; nothing was changed.`,
    details: {
      subject: 'scope',
      issues: [
        { field: 'scope', message: `invalid scope: ${reason}`, value: describeValue(value) },
      ],
    },
  });
}

/**
 * Normalizes a scope: NFKC, trim, lowercase, whitespace runs → `-`, runs of characters outside
 * `[a-z0-9._:/-]` → `-`, repeated `-` collapsed, leading and trailing `-` `.` `/` `:` `_` stripped.
 * The result only contains `[a-z0-9._:/-]`, and normalizing it again changes nothing. A scope that
 * normalizes to nothing, or to more than 256 characters, is a `VALIDATION_ERROR` ("invalid scope").
 */
export function normalizeScope(scope: string): string {
  if (typeof scope !== 'string') throw invalidScope(scope, 'a scope must be a string');
  const known = normalizedScopes.get(scope);
  if (known !== undefined) return known;
  const normalized = scope
    .normalize('NFKC')
    .trim()
    .toLowerCase()
    .replace(/\s+/gu, '-')
    .replace(/[^a-z0-9._:/-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-./:_]+|[-./:_]+$/g, '');
  if (normalized === '') throw invalidScope(scope, 'it is empty after normalization');
  if (normalized.length > SCOPE_MAX_LENGTH) {
    throw invalidScope(scope, `it is longer than ${SCOPE_MAX_LENGTH} characters`);
  }
  if (normalizedScopes.size >= NORMALIZED_SCOPES_KEPT) normalizedScopes.clear();
  normalizedScopes.set(scope, normalized);
  return normalized;
}

/** What a scope selector resolves to: one normalized scope, or every scope (`null`). */
export interface ResolvedScope {
  /** The normalized scope, or null when the caller asked for `global: true`. */
  readonly scope: string | null;
}

/**
 * Resolves `{ scope }` or `{ global: true }` for a read or maintenance call. Neither is
 * `SCOPE_REQUIRED` (there is never a fallback to unscoped); both at once is a `VALIDATION_ERROR`.
 * `{ scope: 'global' }` is the literal scope named `global` (where seed 002's implementation puts
 * untagged events), never every scope.
 */
export function resolveScopeSelector(
  selector: { scope?: string | undefined; global?: true | undefined },
  operation: string,
): ResolvedScope {
  if (selector.global === true) {
    if (selector.scope !== undefined) {
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `Invalid ${operation}: give either scope or global: true, not both. Nothing was changed.`,
        details: {
          subject: operation,
          issues: [{ field: 'global', message: 'conflicts with scope', value: 'true' }],
        },
      });
    }
    return { scope: null };
  }
  return { scope: requireScope(selector.scope, operation) };
}

/**
 * Normalizes a scope that must be present: missing is `SCOPE_REQUIRED`. An append naming the
 * scope `global` is refused (Episodic never writes there); any other operation may read it.
 */
export function requireScope(scope: string | undefined, operation: string): string {
  if (scope === undefined) {
    throw new EpisodicError({
      code: 'SCOPE_REQUIRED',
      message: `The ${operation} needs a scope: pass scope (a project, tenant or team name)${operation === 'append' ? '' : ', or global: true to cover every scope'}. The ledger never falls back to unscoped access; nothing was changed.`,
      details: { operation },
    });
  }
  const normalized = normalizeScope(scope);
  if (normalized === GLOBAL_SCOPE && operation === 'append') {
    throw invalidScope(
      scope,
      '"global" holds only events another tool stored without a scope; Episodic does not write there',
    );
  }
  return normalized;
}
