import { EpisodicError, normalizeScope } from '@episodic/core';

// Binding a scope (validation, normalization, the default) is @episodic/home's; the server adds the
// check of a `scope` a client passes in tool arguments.
export { BOUND_SCOPE_MAX_LENGTH, bindScope, DEFAULT_SCOPE } from '@episodic/home';

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
