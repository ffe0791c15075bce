import type { CommandHandler, CommandSpec, GroupSpec, OptionSpec } from '../command-spec.js';
import { UsageError } from '../usage-error.js';
import { VERSION } from '../version.js';
import { completionModel } from './completion-model.js';
import { COMPLETION_SHELLS, type CompletionShell, completionScript } from './completion-scripts.js';

/**
 * `completion bash|zsh|fish`: prints the script (with `--json`, a receipt holding it). The command
 * table hands itself in (it lists this command too), so this module never imports it back.
 */
export function completionHandler(
  commands: readonly CommandSpec[],
  groups: readonly GroupSpec[],
  globalOptions: Readonly<Record<string, OptionSpec>>,
): CommandHandler {
  return async (context) => {
    const shell = context.positionals[0] as string;
    if (!(COMPLETION_SHELLS as readonly string[]).includes(shell)) {
      throw new UsageError(
        `Unknown shell ${JSON.stringify(shell)} for "episodic completion": use bash, zsh or fish.`,
        'VALIDATION_ERROR',
      );
    }
    const model = completionModel(commands, groups, globalOptions);
    const script = completionScript(shell as CompletionShell, model, VERSION);
    return { receipt: { shell, script }, render: (write) => write(script) };
  };
}
