import { assertArgumentsAreUtf8 } from '@episodic/home';
import type { CliIo } from './cli-io.js';
import type { CommandContext, GlobalOptions, OptionValues } from './command-spec.js';
import { EXIT_OK, exitCodeFor } from './exit-codes.js';
import { renderCommandHelp, renderGroupHelp, renderMainHelp } from './help.js';
import { createStyles, useColor } from './output.js';
import { commandPathOf, kindOf, parseCommandLine } from './parse-command-line.js';
import { receiptEnvelope } from './receipt-envelope.js';
import { UsageError } from './usage-error.js';
import { VERSION } from './version.js';

export type { CliIo } from './cli-io.js';

const errorMarker = Symbol.for('episodic.error');

interface DescribedError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * What an error means for the user. `EpisodicError`s are recognized by their marker rather than
 * `instanceof`, so this module never loads `@episodic/core` (or zod) for `--help` and `--version`.
 */
function describeError(
  error: unknown,
  env: Readonly<Record<string, string | undefined>>,
): DescribedError {
  if (UsageError.isInstance(error)) return { code: error.code, message: error.message };
  if (typeof error === 'object' && error !== null && errorMarker in error) {
    const { code, message, details } = error as unknown as {
      code: string;
      message: string;
      details?: Record<string, unknown>;
    };
    return {
      code,
      message,
      ...(details !== undefined && Object.keys(details).length > 0 ? { details } : {}),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  const stack = env.EPISODIC_DEBUG ? `\n${error instanceof Error ? error.stack : ''}` : '';
  return {
    code: 'INTERNAL_ERROR',
    message: `Unexpected error: ${message}. This is a bug in Episodic; please report it (set EPISODIC_DEBUG=1 to print the stack).${stack}`,
  };
}

function resolveGlobals(
  options: OptionValues,
  io: CliIo,
  env: Readonly<Record<string, string | undefined>>,
): GlobalOptions {
  const store = options.store;
  if (store !== undefined && store !== 'sqlite' && store !== 'fs') {
    throw new UsageError(
      `Invalid --store ${JSON.stringify(store)}: use sqlite (runs and sessions in the database) or fs (run files under <home>/sessions).`,
    );
  }
  for (const name of ['home', 'db'] as const) {
    const value = options[name];
    if (typeof value === 'string' && (value.trim() === '' || value.includes('\0'))) {
      throw new UsageError(`Invalid --${name} ${JSON.stringify(value)}: give a path.`);
    }
  }
  const columns = Number(env.COLUMNS);
  const width =
    Number.isInteger(columns) && columns > 0
      ? columns
      : io.stdoutIsTTY === true && io.stdoutColumns !== undefined && io.stdoutColumns > 0
        ? io.stdoutColumns
        : undefined;
  return {
    ...(typeof options.home === 'string' ? { home: options.home } : {}),
    ...(typeof options.db === 'string' ? { db: options.db } : {}),
    ...(store === undefined ? {} : { store }),
    json: options.json === true,
    quiet: options.quiet === true,
    color: useColor(io.stdoutIsTTY === true, options['no-color'] === true, env),
    width,
  };
}

/**
 * Runs the CLI with `argv` (without `node` and the script) and returns the exit code: 0 success,
 * 1 a conflict, missing object, damaged data or storage failure, 2 invalid input or usage.
 * With `--json`, stdout gets exactly one receipt (or, for a stream, one JSON object per line).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const env = io.env ?? process.env;
  const json = argv.includes('--json');
  const noColor = argv.includes('--no-color');
  try {
    assertArgumentsAreUtf8(argv, () => io.rawArguments?.());
    const parsed = parseCommandLine(argv);
    if (parsed.action === 'version') {
      io.stdout(`${VERSION}\n`);
      return EXIT_OK;
    }
    if (parsed.action === 'help') {
      const styles = createStyles(useColor(io.stdoutIsTTY === true, noColor, env));
      const target = parsed.target;
      io.stdout(
        target === null
          ? renderMainHelp(styles)
          : 'path' in target
            ? renderCommandHelp(target, styles)
            : renderGroupHelp(target, styles),
      );
      return EXIT_OK;
    }
    const { spec } = parsed;
    const context: CommandContext = {
      path: spec.path,
      kind: kindOf(spec.path),
      options: parsed.options,
      positionals: parsed.positionals,
      globals: resolveGlobals(parsed.options, io, env),
      env,
      io,
    };
    const module = await spec.load();
    const handler = module[spec.handler];
    if (handler === undefined) throw new Error(`command handler ${spec.handler} is missing`);
    const result = await handler(context);
    if (result.receipt !== undefined) {
      if (context.globals.json) {
        const receipt = { ...receiptEnvelope(context.kind, true), ...result.receipt };
        io.stdout(`${(result.stringify ?? JSON.stringify)(receipt)}\n`);
      } else {
        result.render?.(io.stdout);
      }
    }
    return result.exitCode ?? EXIT_OK;
  } catch (error) {
    const described = describeError(error, env);
    if (json) {
      io.stdout(
        `${JSON.stringify({
          ...receiptEnvelope(kindOf(commandPathOf(argv)), false),
          error: described.message,
          code: described.code,
          ...(described.details === undefined ? {} : { details: described.details }),
        })}\n`,
      );
    } else {
      const styles = createStyles(useColor(io.stderrIsTTY === true, noColor, env));
      io.stderr(
        `${styles.red('episodic:')} ${described.message} ${styles.dim(`(${described.code})`)}\n`,
      );
    }
    return exitCodeFor(described.code);
  }
}
