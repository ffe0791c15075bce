import { EpisodicError, GLOBAL_SCOPE, normalizeScope } from '@episodic/core';

/** The scope a server is bound to when none is configured, and the scope of unscoped runs. */
export const DEFAULT_SCOPE = 'default';

/**
 * The longest scope a server (or token) may be bound to, after normalization. Artifact keys carry
 * the scope (`scope=<scope>@<key>`), and keys are at most 256 characters.
 */
export const BOUND_SCOPE_MAX_LENGTH = 128;

/**
 * Normalizes the scope a server or token is bound to (`"My Project"` → `my-project`). `global` (the
 * scope where openclaw-mem puts untagged events) cannot be bound: a server writes to its scope, and
 * Episodic never writes there.
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
 * Checks a `scope` a client passed in tool arguments: omitted means the bound scope; any other
 * scope (after normalization) is refused, so no call ever reaches another scope's data.
 */
export function checkScopeArgument(given: string | undefined, bound: string, tool: string): void {
  if (given === undefined) return;
  let normalized: string | undefined;
  try {
    normalized = normalizeScope(given);
  } catch {
    normalized = undefined;
  }
  if (normalized === bound) return;
  throw new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid ${tool} arguments: scope is not the scope this server is bound to ("${bound}"). This connection can only read "${bound}"; omit scope or pass "${bound}". Nothing was read.`,
    details: { subject: `${tool} arguments`, field: 'scope' },
  });
}
