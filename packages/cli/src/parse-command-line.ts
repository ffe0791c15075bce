import { parseArgs } from 'node:util';
import type { CommandSpec, GroupSpec, OptionSpec, OptionValues } from './command-spec.js';
import { COMMANDS, GLOBAL_OPTIONS, GROUPS } from './command-table.js';
import { didYouMean, UsageError } from './usage-error.js';

/** What a command line asks for. */
export type ParsedCommandLine =
  | { readonly action: 'version' }
  | { readonly action: 'help'; readonly target: CommandSpec | GroupSpec | null }
  | {
      readonly action: 'run';
      readonly spec: CommandSpec;
      readonly options: OptionValues;
      readonly positionals: readonly string[];
    };

/** The receipt kind of a command path: `episodic.episodes.query.v1`, `episodic.v1` for none. */
export function kindOf(path: readonly string[]): string {
  return ['episodic', ...path, 'v1'].join('.');
}

/** True when `first` is a command of its own that also has subcommands (`import`, `import codex`). */
function hasSubcommands(first: string | undefined): boolean {
  return COMMANDS.some((command) => command.path.length === 2 && command.path[0] === first);
}

/** The two-word command `first second`, if there is one. */
function subcommand(first: string, second: string | undefined): CommandSpec | undefined {
  return second === undefined
    ? undefined
    : COMMANDS.find((command) => command.path[0] === first && command.path[1] === second);
}

/** The command words a command line names so far (for the kind of an error receipt). */
export function commandPathOf(argv: readonly string[]): string[] {
  const words = commandWords(argv).map(({ word }) => word);
  const [first, second] = words;
  if (first === undefined) return [];
  if (COMMANDS.some((command) => command.path.length === 1 && command.path[0] === first)) {
    return subcommand(first, second) === undefined ? [first] : [first, second as string];
  }
  if (!GROUPS.some((group) => group.name === first)) return [];
  const known = COMMANDS.some((command) => command.path[0] === first && command.path[1] === second);
  return known && second !== undefined ? [first, second] : [first];
}

const GLOBAL_WITH_VALUE = new Set(
  Object.entries(GLOBAL_OPTIONS)
    .filter(([, spec]) => spec.type === 'string')
    .map(([name]) => `--${name}`),
);

/** Every spelling of a global option: `--home`, `-q`… */
const GLOBAL_TOKENS = new Set(
  Object.entries(GLOBAL_OPTIONS).flatMap(([name, spec]) => [
    `--${name}`,
    ...(spec.short === undefined ? [] : [`-${spec.short}`]),
  ]),
);

/**
 * The options among `argv[from..to)` that are not global options (a global option's value is
 * skipped), up to a `--`, each with its name without `=value`.
 */
function* nonGlobalOptions(
  argv: readonly string[],
  from: number,
  to: number,
): Generator<{ token: string; bare: string; index: number }> {
  for (let index = from; index < to; index++) {
    const token = argv[index] as string;
    if (token === '--') return;
    if (!token.startsWith('-') || token === '-') continue;
    const bare = token.split('=')[0] as string;
    if (!GLOBAL_TOKENS.has(bare)) yield { token, bare, index };
    else if (GLOBAL_WITH_VALUE.has(token)) index++;
  }
}

/**
 * Refuses an option among `argv[from..to)` that is not a global option (the ones a command line
 * may hold before its command, or beside a group's name), suggesting the nearest global option.
 */
function checkGlobalOptions(
  argv: readonly string[],
  from: number,
  to: number,
  where: string,
  path: readonly string[],
): void {
  for (const { token, bare } of nonGlobalOptions(argv, from, to)) {
    throw new UsageError(
      `Unknown option ${token}${where}.${didYouMean(bare.replace(/^-+/, ''), Object.keys(GLOBAL_OPTIONS), '--')} ${usageHint(path)}`,
    );
  }
}

/** The first command of `group` named at or after `from` (the command an earlier option was meant for). */
function commandNamedFrom(
  argv: readonly string[],
  from: number,
  group: GroupSpec,
): CommandSpec | undefined {
  for (let index = from; index < argv.length; index++) {
    const token = argv[index] as string;
    if (token === '--') return undefined;
    const command = COMMANDS.find(
      (candidate) => candidate.path[0] === group.name && candidate.path[1] === token,
    );
    if (command !== undefined) return command;
  }
  return undefined;
}

/**
 * Refuses an option among `argv[from..to)`, between a group's name and its command, that is not a
 * global option (`episodic runs --limt 3 list`). Its value cannot be told from the command word,
 * so it is refused before the command is looked up: an option of the command typed after it is
 * told to go after the command, any other gets the nearest option of that command (or of the
 * group's commands, when none is named).
 */
function checkOptionsBesideGroup(
  argv: readonly string[],
  group: GroupSpec,
  from: number,
  to: number,
): void {
  for (const { token, bare, index } of nonGlobalOptions(argv, from, to)) {
    const command = commandNamedFrom(argv, index + 1, group);
    const path = command?.path ?? [group.name];
    const name = bare.replace(/^-+/, '');
    const owned =
      command !== undefined &&
      (bare.startsWith('--')
        ? Object.hasOwn(command.options, name)
        : Object.values(command.options).some((option) => option.short === name));
    if (owned) {
      throw new UsageError(
        `Option ${bare} of "episodic ${path.join(' ')}" goes after the command: "episodic ${path.join(' ')} ${bare} …". ${usageHint(path)}`,
      );
    }
    const commands =
      command === undefined ? COMMANDS.filter((c) => c.path[0] === group.name) : [command];
    const known = [
      ...new Set([
        ...Object.keys(GLOBAL_OPTIONS),
        ...commands.flatMap((candidate) => Object.keys(candidate.options)),
      ]),
    ];
    throw new UsageError(
      `Unknown option ${token} for "episodic ${path.join(' ')}".${didYouMean(name, known, '--')} ${usageHint(path)}`,
    );
  }
}

/** The words before options (up to two), skipping global options placed before the command. */
function commandWords(argv: readonly string[]): { word: string; index: number }[] {
  const words: { word: string; index: number }[] = [];
  for (let index = 0; index < argv.length && words.length < 2; index++) {
    const token = argv[index] as string;
    if (token === '--') break;
    if (token.startsWith('-') && token !== '-') {
      if (GLOBAL_WITH_VALUE.has(token)) index++;
      continue;
    }
    // A group takes one more word, and so does a command with subcommands (the word may be its
    // positional instead); any other single-word command takes none.
    if (words.length === 1) {
      const first = words[0]?.word;
      if (!GROUPS.some((group) => group.name === first) && !hasSubcommands(first)) break;
    }
    words.push({ word: token, index });
  }
  return words;
}

function optionsFor(spec: CommandSpec): Record<string, OptionSpec> {
  return { ...GLOBAL_OPTIONS, ...spec.options };
}

function usageHint(path: readonly string[]): string {
  const what =
    path.length === 0
      ? 'the commands'
      : GROUPS.some((group) => group.name === path[0]) && path.length === 1
        ? 'its commands'
        : 'its options';
  return `Run "episodic ${[...path, '--help'].join(' ')}" to see ${what}.`;
}

/** Turns a `parseArgs` error into a message that names the command and how to get help. */
function describeParseError(error: unknown, spec: CommandSpec): UsageError {
  const command = `episodic ${spec.path.join(' ')}`;
  const known = Object.keys(optionsFor(spec));
  const { code, message } = error as { code?: string; message: string };
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'([^']+)'/.exec(message)?.[1] ?? message;
    const name = option.replace(/^-+/, '').split('=')[0] ?? option;
    return new UsageError(
      `Unknown option ${option} for "${command}".${didYouMean(name, known, '--')} ${usageHint(spec.path)}`,
    );
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /'(--?[^' ]+)/.exec(message)?.[1] ?? 'an option';
    if (message.includes('does not take an argument')) {
      return new UsageError(
        `Option ${option} of "${command}" is a flag and takes no value. ${usageHint(spec.path)}`,
      );
    }
    if (message.includes('ambiguous')) {
      return new UsageError(
        `Option ${option} of "${command}" needs a value, but the next word starts with "-". Write ${option}=VALUE for a value that starts with a dash. ${usageHint(spec.path)}`,
      );
    }
    return new UsageError(
      `Option ${option} of "${command}" needs a value. ${usageHint(spec.path)}`,
    );
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return new UsageError(
      `Unexpected argument for "${command}": ${message}. ${usageHint(spec.path)}`,
    );
  }
  return new UsageError(`${message} ${usageHint(spec.path)}`);
}

function parseFor(spec: CommandSpec, args: string[]) {
  const options = optionsFor(spec);
  const config: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> =
    {};
  for (const [name, option] of Object.entries(options)) {
    config[name] = {
      type: option.type,
      ...(option.multiple === true ? { multiple: true } : {}),
      ...(option.short === undefined ? {} : { short: option.short }),
    };
  }
  try {
    return parseArgs({ args, options: config, strict: true, allowPositionals: true });
  } catch (error) {
    throw describeParseError(error, spec);
  }
}

/** Parses a command line (without `node` and the script). Throws `UsageError` for a bad one. */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const words = commandWords(argv);
  const [first, second] = words;
  const flags = new Set(argv);
  const wantsHelp = flags.has('--help') || flags.has('-h');
  if (first === undefined) {
    if (!wantsHelp && (flags.has('--version') || flags.has('-v'))) return { action: 'version' };
    // Global options alone (`--home DIR`) show the help; any other option is a typo of one.
    if (!wantsHelp) checkGlobalOptions(argv, 0, argv.length, ': give a command first', []);
    return { action: 'help', target: null };
  }
  // An option before the command must be a global one (`--hom` would otherwise take the next word
  // as the command).
  if (!wantsHelp) checkGlobalOptions(argv, 0, first.index, ' before the command', []);
  if (first.word === 'help') {
    const target = [...argv.slice(first.index + 1)].filter((token) => !token.startsWith('-'));
    return { action: 'help', target: findTarget(target) };
  }
  const leaf = COMMANDS.find(
    (command) => command.path.length === 1 && command.path[0] === first.word,
  );
  const group = GROUPS.find((candidate) => candidate.name === first.word);
  if (leaf === undefined && group === undefined) {
    const names = [
      ...GROUPS.map((candidate) => candidate.name),
      ...COMMANDS.filter((command) => command.path.length === 1).map(
        (command) => command.path[0] as string,
      ),
    ];
    throw new UsageError(
      `Unknown command "${first.word}".${didYouMean(first.word, names)} ${usageHint([])}`,
    );
  }
  let spec = leaf;
  let consumed = [first.index];
  const sub = leaf === undefined ? undefined : subcommand(first.word, second?.word);
  if (sub !== undefined && second !== undefined) {
    spec = sub;
    consumed = [first.index, second.index];
  } else if (group !== undefined) {
    if (!wantsHelp)
      checkOptionsBesideGroup(argv, group, first.index + 1, second?.index ?? argv.length);
    if (second === undefined) return { action: 'help', target: group };
    spec = COMMANDS.find(
      (command) => command.path[0] === group.name && command.path[1] === second.word,
    );
    if (spec === undefined) {
      const names = COMMANDS.filter((command) => command.path[0] === group.name).map(
        (command) => command.path[1] as string,
      );
      throw new UsageError(
        `Unknown command "${group.name} ${second.word}".${didYouMean(second.word, names, `${group.name} `)} ${usageHint([group.name])}`,
      );
    }
    consumed = [first.index, second.index];
  }
  const command = spec as CommandSpec;
  if (wantsHelp) return { action: 'help', target: command };
  const rest = argv.filter((_, index) => !consumed.includes(index));
  const { values, positionals } = parseFor(command, rest);
  if (values.help === true) return { action: 'help', target: command };
  if (values.version === true) return { action: 'version' };
  const expected = command.positionals ?? [];
  if (positionals.length > expected.length) {
    const extra = positionals[expected.length] as string;
    throw new UsageError(
      `Unexpected argument ${JSON.stringify(extra)} for "episodic ${command.path.join(' ')}"${expected.length === 0 ? ', which takes no arguments' : ''}. ${usageHint(command.path)}`,
    );
  }
  const missing = expected.find(
    (positional, index) => positional.required && positionals[index] === undefined,
  );
  if (missing !== undefined) {
    throw new UsageError(
      `Missing ${missing.name} for "episodic ${command.path.join(' ')}": ${missing.description}. ${usageHint(command.path)}`,
    );
  }
  return { action: 'run', spec: command, options: values as OptionValues, positionals };
}

function findTarget(words: readonly string[]): CommandSpec | GroupSpec | null {
  const [first, second] = words;
  if (first === undefined) return null;
  const exact = subcommand(first, second);
  if (exact !== undefined) return exact;
  const command = COMMANDS.find(
    (candidate) =>
      candidate.path[0] === first && (candidate.path.length === 1 || candidate.path[1] === second),
  );
  if (command !== undefined) return command;
  const group = GROUPS.find((candidate) => candidate.name === first);
  if (group !== undefined) return group;
  throw new UsageError(`Unknown command "${first}". ${usageHint([])}`);
}
