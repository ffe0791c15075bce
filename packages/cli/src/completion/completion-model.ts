import type { CommandSpec, GroupSpec, OptionSpec } from '../command-spec.js';

/** What a value after an option (or a positional) completes to. */
export type ValueCompletion =
  | { readonly kind: 'choices'; readonly values: readonly string[] }
  | { readonly kind: 'files' }
  | { readonly kind: 'directories' }
  | { readonly kind: 'none' };

/** One option as completion offers it. */
export interface CompletionOption {
  /** The long name without dashes, e.g. `scope`. */
  readonly name: string;
  /** The one-letter alias, e.g. `n`. */
  readonly short?: string | undefined;
  readonly description: string;
  /** Undefined for a flag; what its value completes to otherwise. */
  readonly value?: ValueCompletion | undefined;
}

/** One command as completion offers it. */
export interface CompletionCommand {
  /** Its words joined by a space: `episodes query`, `doctor`. */
  readonly path: string;
  readonly summary: string;
  /** The command's own options, then the global ones. */
  readonly options: readonly CompletionOption[];
  /** What its first positional argument completes to. */
  readonly positional: ValueCompletion;
}

/** Everything a completion script needs, derived from the command table. */
export interface CompletionModel {
  /** The first word: groups, single-word commands and `help`. */
  readonly words: readonly { readonly name: string; readonly summary: string }[];
  /** The second word of each group. */
  readonly groups: readonly {
    readonly name: string;
    readonly commands: readonly { readonly name: string; readonly summary: string }[];
  }[];
  readonly commands: readonly CompletionCommand[];
  /** The options accepted before a command. */
  readonly globals: readonly CompletionOption[];
}

function valueCompletionOf(option: {
  value?: string;
  choices?: readonly string[];
}): ValueCompletion {
  if (option.choices !== undefined) return { kind: 'choices', values: option.choices };
  if (option.value === 'FILE' || option.value === 'PATH') return { kind: 'files' };
  if (option.value === 'DIR') return { kind: 'directories' };
  return { kind: 'none' };
}

function optionsOf(options: Readonly<Record<string, OptionSpec>>): CompletionOption[] {
  return Object.entries(options).map(([name, option]) => ({
    name,
    short: option.short,
    // One line: each script quotes it for its shell.
    description: summary(option.description),
    value: option.type === 'string' ? valueCompletionOf(option) : undefined,
  }));
}

function summary(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= 80 ? line : `${line.slice(0, 79)}…`;
}

/** The completion model of a command table. */
export function completionModel(
  commands: readonly CommandSpec[],
  groups: readonly GroupSpec[],
  globalOptions: Readonly<Record<string, OptionSpec>>,
): CompletionModel {
  const globals = optionsOf(globalOptions);
  return {
    words: [
      ...groups.map((group) => ({ name: group.name, summary: summary(group.summary) })),
      ...commands
        .filter((command) => command.path.length === 1)
        .map((command) => ({ name: command.path[0] as string, summary: summary(command.summary) })),
      { name: 'help', summary: 'help for a command' },
    ],
    groups: groups.map((group) => ({
      name: group.name,
      commands: commands
        .filter((command) => command.path.length === 2 && command.path[0] === group.name)
        .map((command) => ({ name: command.path[1] as string, summary: summary(command.summary) })),
    })),
    commands: commands.map((command) => {
      const first = command.positionals?.[0];
      return {
        path: command.path.join(' '),
        summary: summary(command.summary),
        options: [...optionsOf(command.options), ...globals],
        positional:
          first === undefined
            ? { kind: 'none' }
            : valueCompletionOf({
                value: first.name,
                ...(first.choices ? { choices: first.choices } : {}),
              }),
      };
    }),
    globals,
  };
}
