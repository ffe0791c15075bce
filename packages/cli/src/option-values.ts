import { readFileSync } from 'node:fs';
import { GLOBAL_SCOPE, normalizeScope } from '@episodic/core';
import { type ExactJsonValue, parseJsonExact, safeJsonParse } from '@episodic/core/adapter';
import type { CommandContext, OptionValues } from './command-spec.js';
import { parseTime, parseTimeIso, type TimeEdge } from './time-option.js';
import { UsageError } from './usage-error.js';
import { decodeUtf8 } from './utf8-text.js';

// Typed access to parsed options. Every error names the option, the value and the fix, and is
// raised before any store is opened, so a bad command line never touches the database.

/** A string option, or undefined when absent. */
export function optionalString(options: OptionValues, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

/** A string option that must be given. */
export function requiredString(options: OptionValues, name: string, command: string): string {
  const value = optionalString(options, name);
  if (value === undefined) {
    throw new UsageError(
      `Missing --${name} for "${command}". Run "${command} --help" to see what it needs.`,
    );
  }
  return value;
}

/** A boolean flag. */
export function flag(options: OptionValues, name: string): boolean {
  return options[name] === true;
}

/** Every value of a repeatable option, with comma-separated lists split and blanks dropped. */
export function listOption(
  options: OptionValues,
  name: string,
  splitCommas: boolean,
): string[] | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  const values = Array.isArray(value) ? value : [String(value)];
  const items = splitCommas ? values.flatMap((entry) => entry.split(',')) : values;
  const trimmed = items.map((item) => item.trim()).filter((item) => item !== '');
  if (trimmed.length === 0) {
    throw new UsageError(
      `--${name} needs a value, got ${JSON.stringify(values.join(','))}.`,
      'VALIDATION_ERROR',
    );
  }
  return trimmed;
}

const INTEGER = /^-?\d+$/;

/** An integer option in `[min, max]`, or undefined when absent. */
export function optionalInteger(
  options: OptionValues,
  name: string,
  range: { min?: number; max?: number } = {},
): number | undefined {
  const raw = optionalString(options, name);
  if (raw === undefined) return undefined;
  const min = range.min ?? 0;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  const text = raw.trim();
  const value = INTEGER.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const bounds = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new UsageError(
      `Invalid --${name} ${JSON.stringify(raw)}: it must be a whole number ${bounds}.`,
      'VALIDATION_ERROR',
    );
  }
  return value;
}

/** One of `choices`, or undefined when absent. */
export function optionalChoice<Choice extends string>(
  options: OptionValues,
  name: string,
  choices: readonly Choice[],
): Choice | undefined {
  const raw = optionalString(options, name);
  if (raw === undefined) return undefined;
  if (!(choices as readonly string[]).includes(raw)) {
    throw new UsageError(
      `Invalid --${name} ${JSON.stringify(raw)}: use ${choices.map((choice) => JSON.stringify(choice)).join(', ')}.`,
      'VALIDATION_ERROR',
    );
  }
  return raw as Choice;
}

/**
 * The ledger's scope selector, in core's words: one scope, or every scope (`{ global: true }` in
 * the library API). On the command line every scope is `--all-scopes`; `--global` is seed 002's
 * scope named `global`, exactly `--scope global`.
 */
export type ScopeSelector = { scope: string } | { global: true };

/** True when the selector is every scope (`--all-scopes`). */
export function isEveryScope(selector: ScopeSelector): selector is { global: true } {
  return 'global' in selector;
}

/**
 * `--scope S`, `--global` (the scope named `global`, as in openclaw-mem) or `--all-scopes`, or
 * undefined when none is given. `--global --scope global` is accepted (openclaw-mem accepts it);
 * any other pair is refused.
 */
export function optionalScopeSelector(
  options: OptionValues,
  command: string,
): ScopeSelector | undefined {
  const scope = optionalString(options, 'scope');
  const global = flag(options, 'global');
  const allScopes = flag(options, 'all-scopes');
  if (allScopes && (scope !== undefined || global)) {
    throw new UsageError(
      `Give --all-scopes or ${scope === undefined ? '--global' : '--scope'} to "${command}", not both: --all-scopes is every scope, ${scope === undefined ? '--global the one scope named global' : '--scope one'}.`,
    );
  }
  if (allScopes) return { global: true };
  if (global) {
    if (scope !== undefined && normalizeScope(scope) !== GLOBAL_SCOPE) {
      throw new UsageError(
        `Give --scope ${scope} or --global to "${command}", not both: --global is the scope named global (the same as --scope global). To act on every scope, give --all-scopes.`,
      );
    }
    return { scope: GLOBAL_SCOPE };
  }
  return scope === undefined ? undefined : { scope };
}

/** `--scope S`, `--global` or `--all-scopes` (exactly one), as the ledger's scope selector. */
export function scopeSelector(options: OptionValues, command: string): ScopeSelector {
  const selector = optionalScopeSelector(options, command);
  if (selector === undefined) {
    throw new UsageError(
      `"${command}" needs --scope SCOPE (--global is the scope named global; --all-scopes acts on every scope explicitly). Nothing falls back across scopes; nothing was changed.`,
      'SCOPE_REQUIRED',
    );
  }
  return selector;
}

/**
 * A change across every scope needs `--yes` (or `--dry-run`, which changes nothing): checked before
 * any store is opened, so without it nothing was read or changed.
 */
export function confirmEveryScope(options: OptionValues, command: string, change: string): void {
  if (flag(options, 'yes') || flag(options, 'dry-run')) return;
  throw new UsageError(
    `"${command} --all-scopes" ${change} in every scope: add --yes to confirm, or --dry-run to list what it would change in each scope first (--scope SCOPE acts on one scope). Nothing was changed.`,
    'CONFIRMATION_REQUIRED',
  );
}

/** Reads a file argument: a path, or `-` for standard input. It must be UTF-8 (exit 2 otherwise). */
export async function readTextArgument(
  context: CommandContext,
  path: string,
  option: string,
): Promise<string> {
  if (path === '-') {
    if (context.io.readStdin === undefined) {
      throw new UsageError(`--${option} -: standard input is not available here.`);
    }
    return context.io.readStdin();
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new UsageError(
      `Cannot read --${option} ${JSON.stringify(path)} (${code}). Check the path${code === 'EACCES' ? ' and its permissions' : ''}.`,
      'VALIDATION_ERROR',
    );
  }
  return decodeUtf8(bytes, `--${option} ${JSON.stringify(path)}`);
}

/**
 * Parses JSON given on the command line (`--x-json`) or in a file (`--x-file`); at most one of the
 * two. With `exact`, numbers are kept exactly (`parseJsonExact`: an integer beyond 2^53 becomes a
 * `bigint`, a number a double cannot hold is refused): for what gets stored. Either way a key given
 * twice in one object, or nesting deeper than 512, is refused with the key or the place named
 * (`JSON.parse` would keep the last value, or overflow the stack later).
 */
export async function jsonArgument(
  context: CommandContext,
  jsonOption: string,
  fileOption?: string,
  exact = false,
): Promise<{ value: unknown } | undefined> {
  const inline = optionalString(context.options, jsonOption);
  const file = fileOption === undefined ? undefined : optionalString(context.options, fileOption);
  if (inline !== undefined && file !== undefined) {
    throw new UsageError(`Give --${jsonOption} or --${fileOption}, not both.`);
  }
  if (inline === undefined && file === undefined) return undefined;
  const source = inline ?? (await readTextArgument(context, file as string, fileOption as string));
  const from = inline === undefined ? `--${fileOption} ${JSON.stringify(file)}` : `--${jsonOption}`;
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  let message: string;
  if (exact) {
    try {
      return { value: parseJsonExact(text) };
    } catch (error) {
      message = (error as Error).message;
    }
  } else {
    const parsed = safeJsonParse(text);
    if (parsed.success) return { value: parsed.value as ExactJsonValue };
    message = parsed.error;
  }
  throw new UsageError(
    /cannot be kept exactly|too large for a double/.test(message)
      ? `${from} holds a number that would not be stored as written: ${message}. Nothing was changed.`
      : /appears twice|nested more than/.test(message)
        ? `${from} would not be stored as written: ${message}. Nothing was changed.`
        : `Invalid JSON in ${from}: ${message}. Quote the JSON for your shell, e.g. --${jsonOption} '{"key":"value"}'.`,
    'VALIDATION_ERROR',
  );
}

/** A JSON object argument (not an array or a scalar). */
export async function jsonObjectArgument(
  context: CommandContext,
  jsonOption: string,
  fileOption?: string,
  exact = false,
): Promise<Record<string, unknown> | undefined> {
  const parsed = await jsonArgument(context, jsonOption, fileOption, exact);
  if (parsed === undefined) return undefined;
  const { value } = parsed;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(
      `--${jsonOption} must be a JSON object like {"key":"value"}, got ${Array.isArray(value) ? 'an array' : typeof value === 'bigint' ? String(value) : JSON.stringify(value)}.`,
      'VALIDATION_ERROR',
    );
  }
  return value as Record<string, unknown>;
}

/**
 * A time option as an ISO timestamp (UTC), or undefined when absent. Every time option takes the
 * same forms (`parseTime`): an ISO date or time, a time ago (`2h`, `3d`), `today`, `yesterday`,
 * `now`, or epoch milliseconds. A calendar day means its start (`edge: 'start'`) or its end.
 */
export function optionalDate(
  options: OptionValues,
  name: string,
  edge: TimeEdge,
  now = Date.now(),
): string | undefined {
  const raw = optionalString(options, name);
  return raw === undefined ? undefined : parseTimeIso(raw, name, edge, now);
}

/** A time option in epoch milliseconds (the same forms as `optionalDate`), or undefined. */
export function optionalTimeMs(
  options: OptionValues,
  name: string,
  edge: TimeEdge,
  now = Date.now(),
): number | undefined {
  const raw = optionalString(options, name);
  return raw === undefined ? undefined : parseTime(raw, name, edge, now);
}
