import { normalizeScope } from '@episodic/core';
import type { CommandContext, CommandHandler, CommandResult } from './command-spec.js';
import { forCommandLine } from './ledger-errors.js';

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

/** The scope fields of a ledger receipt. */
export function scopeFields(selector: { scope: string } | { global: true }) {
  return 'global' in selector
    ? { scope: null, global: true }
    : { scope: normalizeScope(selector.scope), global: false };
}
