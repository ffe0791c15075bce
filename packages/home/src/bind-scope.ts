import { EpisodicError, GLOBAL_SCOPE, normalizeScope } from '@episodic/core';

/** The scope a home is bound to when none is given, and the scope of unscoped runs. */
export const DEFAULT_SCOPE = 'default';

/**
 * The longest scope a home (a server, a token) may be bound to, after normalization. Artifact keys
 * carry the scope (`scope=<scope>@<key>`), and keys are at most 256 characters.
 */
export const BOUND_SCOPE_MAX_LENGTH = 128;

/**
 * Validates and normalizes the scope to bind (`"My Project"` → `my-project`; omitted: `default`).
 * `global` (the scope where openclaw-mem puts untagged events) cannot be bound: Episodic never
 * writes there. `field` names the option in the error (`--scope`, `EPISODIC_SCOPE`).
 */
export function bindScope(scope: string | undefined, field = 'scope'): string {
  const normalized = normalizeScope(scope ?? DEFAULT_SCOPE);
  if (normalized === GLOBAL_SCOPE) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid ${field} "global": it is reserved, for events another tool (openclaw-mem) stored without a scope; Episodic never writes there. Use a project, tenant or team name.`,
      details: { field, value: scope },
    });
  }
  if (normalized.length > BOUND_SCOPE_MAX_LENGTH) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid ${field}: an MCP server's scope must be at most ${BOUND_SCOPE_MAX_LENGTH} characters after normalization (got ${normalized.length}). Use a shorter name.`,
      details: { field, length: normalized.length },
    });
  }
  return normalized;
}

/**
 * The scope to bind: `given` (named `field` in errors), else `EPISODIC_SCOPE` from `env`, else
 * `default`; validated and normalized by `bindScope`.
 */
export function resolveScope(
  given: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
  field = 'scope',
): string {
  if (given !== undefined) return bindScope(given, field);
  const fromEnv = env.EPISODIC_SCOPE;
  return bindScope(fromEnv === undefined || fromEnv === '' ? undefined : fromEnv, 'EPISODIC_SCOPE');
}
