import { normalizeScope } from '@episodic/core';
import type { CommandContext, CommandHandler, CommandResult } from './command-spec.js';
import { forCommandLine } from './ledger-errors.js';
import { isEveryScope, type ScopeSelector } from './option-values.js';

/** `episodic <group> <command>`, as error messages name the command. */
export function commandName(context: CommandContext): string {
  return `episodic ${context.path.join(' ')}`;
}

/** Runs a ledger command, phrasing core's errors for the command line. */
export function ledgerCommand(
  run: (context: CommandContext) => Promise<CommandResult>,
): CommandHandler {
  return async (context) => {
    try {
      return await run(context);
    } catch (error) {
      throw forCommandLine(error);
    }
  };
}

/**
 * The scope fields of a ledger receipt: `scope` (null for every scope), `all_scopes`, and `global`,
 * the older name of `all_scopes` kept for readers of v1 receipts (it never means the scope named
 * global: that one is `scope: "global"`).
 */
export function scopeFields(selector: ScopeSelector) {
  return isEveryScope(selector)
    ? { scope: null, all_scopes: true, global: true }
    : { scope: normalizeScope(selector.scope), all_scopes: false, global: false };
}
