import type { CliIo } from './cli-io.js';

/** One option of a command, as `node:util` `parseArgs` reads it, plus its help text. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** The option may be given several times (values are collected in order). */
  readonly multiple?: boolean;
  /** A one-letter alias, e.g. `n` for `-n`. */
  readonly short?: string;
  /** The placeholder shown in help for a string option, e.g. `SCOPE`. */
  readonly value?: string;
  /** One line of help. */
  readonly description: string;
}

/** A positional argument of a command. */
export interface PositionalSpec {
  readonly name: string;
  readonly required: boolean;
  readonly description: string;
}

/** The values `parseArgs` produced for one command line. */
export type OptionValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

/** The global options every command accepts, resolved. */
export interface GlobalOptions {
  /** `--home DIR`, when given. */
  readonly home?: string;
  /** `--db PATH`, when given. */
  readonly db?: string;
  /** `--store sqlite|fs`, when given. */
  readonly store?: 'sqlite' | 'fs';
  readonly json: boolean;
  readonly quiet: boolean;
  /** Whether human output may use colour (a TTY, no `--no-color`, no `NO_COLOR`). */
  readonly color: boolean;
}

/** What a command's handler receives. */
export interface CommandContext {
  /** The command's words, e.g. `['episodes', 'query']`. */
  readonly path: readonly string[];
  /** The receipt kind, e.g. `episodic.episodes.query.v1`. */
  readonly kind: string;
  readonly options: OptionValues;
  readonly positionals: readonly string[];
  readonly globals: GlobalOptions;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly io: CliIo;
}

/** What a handler returns; the dispatcher prints it. */
export interface CommandResult {
  /**
   * The receipt's own fields, printed with `--json` after `kind`, `ok`, `ts` and `version`.
   * Absent when the handler wrote its output itself (a stream, e.g. `runs tail -f`).
   */
  readonly receipt?: Record<string, unknown>;
  /** Prints the result for a person (without `--json`). */
  readonly render?: (write: (text: string) => void) => void;
  /**
   * Writes the receipt as JSON. Receipts holding payloads pass core's `stringifyJson`, which writes
   * an integer beyond 2^53 (a `bigint`) with its exact digits. @default JSON.stringify
   */
  readonly stringify?: (receipt: Record<string, unknown>) => string;
  /** @default 0 */
  readonly exitCode?: number;
}

/** A command handler. */
export type CommandHandler = (context: CommandContext) => Promise<CommandResult>;

/** A module of handlers, loaded only when one of its commands runs. */
export type CommandModule = Readonly<Record<string, CommandHandler>>;

/** A command: its help, its options, and where its handler lives. */
export interface CommandSpec {
  /** The words that select it, e.g. `['episodes', 'query']`. */
  readonly path: readonly string[];
  /** One line for command lists. */
  readonly summary: string;
  /** The usage line after `Usage: `. */
  readonly usage: string;
  /** A paragraph of help. */
  readonly description?: string;
  readonly positionals?: readonly PositionalSpec[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** At least one example, each a full command line (comments start with `#`). */
  readonly examples: readonly string[];
  /** Loads the module that holds the handler (a dynamic import: nothing loads before it runs). */
  readonly load: () => Promise<CommandModule>;
  /** The handler's name in that module. */
  readonly handler: string;
}

/** A group of commands (`episodes`, `runs`, …). */
export interface GroupSpec {
  readonly name: string;
  readonly summary: string;
  readonly description?: string;
  readonly examples: readonly string[];
}
