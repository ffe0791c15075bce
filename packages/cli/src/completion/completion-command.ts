import type { CommandHandler } from '../command-spec.js';
import { COMMANDS, GLOBAL_OPTIONS, GROUPS } from '../command-table.js';
import { UsageError } from '../usage-error.js';
import { VERSION } from '../version.js';
import { completionModel } from './completion-model.js';
import { COMPLETION_SHELLS, type CompletionShell, completionScript } from './completion-scripts.js';

/** `completion bash|zsh|fish`: prints the script (with `--json`, a receipt holding it). */
export const completion: CommandHandler = async (context) => {
  const shell = context.positionals[0] as string;
  if (!(COMPLETION_SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(
      `Unknown shell ${JSON.stringify(shell)} for "episodic completion": use bash, zsh or fish.`,
      'VALIDATION_ERROR',
    );
  }
  const model = completionModel(COMMANDS, GROUPS, GLOBAL_OPTIONS);
  const script = completionScript(shell as CompletionShell, model, VERSION);
  return { receipt: { shell, script }, render: (write) => write(script) };
};
