import { type ArtifactStore, type RunStore, scopeRunStore } from '@episodic/core';
import { type EpisodicStores, resolveScope } from '@episodic/home';
import { createScopedArtifactStore } from '@episodic/mcp';
import type { CommandContext } from './command-spec.js';
import { optionalString } from './option-values.js';

/**
 * The scope of a `tasks` or `patterns` command: `--scope`, else `$EPISODIC_SCOPE`, else `default`,
 * normalized like an MCP server's (`"My Project"` → `my-project`; `global` is refused). Checked
 * before any store is opened.
 */
export function taskScope(context: CommandContext): string {
  return resolveScope(optionalString(context.options, 'scope'), context.env, '--scope');
}

/**
 * The runs and artifacts of one scope, exactly as an MCP server bound to it sees them: task
 * episodes of other scopes are NOT_FOUND, new ones are stamped with the scope, and patterns are
 * read and written under the scope's key prefix. Nothing crosses scopes.
 */
export function scopedTaskStores(
  stores: EpisodicStores,
  scope: string,
): { runs: RunStore; artifacts: ArtifactStore } {
  return {
    runs: scopeRunStore(stores.runs, { scope }),
    artifacts: createScopedArtifactStore(stores.artifacts, scope),
  };
}
