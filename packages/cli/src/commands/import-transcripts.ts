import { resolve } from 'node:path';
import { EpisodicError } from '@episodic/core';
import { CONTENT_KINDS } from '@episodic/core/schemas';
import {
  type ConversationImportReceipt,
  type ImportFormat,
  type ImportProblem,
  importTranscript,
  saveImport,
} from '@episodic/interop';
import { importTranscriptFiles } from '@episodic/interop/node';
import type { CommandHandler } from '../command-spec.js';
import { EXIT_FAILURE } from '../exit-codes.js';
import {
  flag,
  listOption,
  optionalDate,
  optionalString,
  readTextArgument,
} from '../option-values.js';
import { createStyles, sanitizeForTerminal } from '../output.js';
import { withStores } from '../stores.js';
import { taskScope } from '../task-scope.js';
import { UsageError } from '../usage-error.js';

/** The most problems a receipt lists (`problems_total` counts them all). */
const MAX_LISTED_PROBLEMS = 100;

function totalsOf(conversations: readonly ConversationImportReceipt[]) {
  const totals = {
    conversations: conversations.length,
    sessions: { created: 0, updated: 0, unchanged: 0, conflict: 0 },
    runs: { created: 0, extended: 0, unchanged: 0, conflicts: 0 },
    records_written: 0,
    events: { appended: 0, unchanged: 0 },
  };
  for (const conversation of conversations) {
    if (conversation.session !== 'skipped') totals.sessions[conversation.session]++;
    totals.runs.created += conversation.runs.created;
    totals.runs.extended += conversation.runs.extended;
    totals.runs.unchanged += conversation.runs.unchanged;
    totals.runs.conflicts += conversation.runs.conflicts;
    totals.records_written += conversation.records_written;
    totals.events.appended += conversation.events.appended;
    totals.events.unchanged += conversation.events.unchanged;
  }
  return totals;
}

function where(problem: ImportProblem): string {
  const source = problem.source ?? 'input';
  return problem.line === undefined ? source : `${source} line ${problem.line}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** What became of each file read: imported whole, refused whole, in conflict, or empty. */
function filesOf(
  files: readonly string[],
  conversations: readonly ConversationImportReceipt[],
  stdinLabel: string | undefined,
) {
  return files.map((file) => {
    const label = stdinLabel ?? file;
    const own = conversations.filter((conversation) => conversation.source === label);
    const error = own.find((conversation) => conversation.error !== null)?.error ?? null;
    const conflict = own.find((conversation) => conversation.conflicts.length > 0);
    const status =
      own.length === 0
        ? ('empty' as const)
        : error !== null
          ? ('refused' as const)
          : conflict !== undefined
            ? ('conflict' as const)
            : ('imported' as const);
    return {
      file: stdinLabel === undefined ? resolve(file) : '-',
      status,
      conversations: own.length,
      reason: error ?? conflict?.conflicts[0] ?? null,
    };
  });
}

/** `import claude-code|codex|openai PATH`. */
export const importTranscripts: CommandHandler = async (context) => {
  const { options, globals } = context;
  const format = context.path[1] as ImportFormat;
  const input = context.positionals[0] as string;
  const dryRun = flag(options, 'dry-run');
  const noLedger = flag(options, 'no-ledger');
  const time = optionalDate(options, 'time', 'start');
  const agentId = optionalString(options, 'agent-id');
  const allow = listOption(options, 'allow', true);
  for (const kind of allow ?? []) {
    if (!(CONTENT_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(
        `Invalid --allow ${JSON.stringify(kind)}: use ${CONTENT_KINDS.join(', ')}.`,
        'VALIDATION_ERROR',
      );
    }
  }
  if (
    noLedger &&
    (optionalString(options, 'scope') !== undefined || agentId !== undefined || allow !== undefined)
  ) {
    throw new UsageError(
      '--no-ledger writes no ledger events: leave out --scope, --agent-id and --allow.',
    );
  }
  const scope = noLedger ? undefined : taskScope(context);

  const read =
    input === '-'
      ? {
          files: ['-'],
          ...importTranscript(format, await readTextArgument(context, '-', format), {
            label: 'stdin',
            ...(time === undefined ? {} : { time }),
          }),
        }
      : await importTranscriptFiles(format, input, time === undefined ? {} : { time }).catch(
          (error: unknown) => {
            if (EpisodicError.hasCode(error, 'NOT_FOUND'))
              throw new UsageError(error.message, 'VALIDATION_ERROR');
            throw error;
          },
        );

  const saved = await withStores(
    context,
    (stores) =>
      saveImport(
        {
          sessions: stores.sessions,
          runs: stores.runs,
          ...(scope === undefined ? {} : { ledger: stores.ledger }),
        },
        read.conversations,
        {
          dryRun,
          ...(scope === undefined ? {} : { scope }),
          ...(agentId === undefined ? {} : { agentId }),
          ...(allow === undefined ? {} : { allow: allow as Array<(typeof CONTENT_KINDS)[number]> }),
        },
      ),
    // A dry run only reads: it creates no home and migrates no database.
    { readOnly: dryRun },
  );
  const totals = totalsOf(saved.conversations);
  const conflicts = saved.conversations.flatMap((conversation) => conversation.conflicts);
  const fileResults = filesOf(read.files, saved.conversations, input === '-' ? 'stdin' : undefined);
  const refused = fileResults.filter((file) => file.status === 'refused');
  const receipt = {
    format,
    input: input === '-' ? '-' : resolve(input),
    files: read.files.length,
    dry_run: dryRun,
    scope: scope ?? null,
    totals,
    conversations: saved.conversations,
    file_results: fileResults,
    warnings: read.warnings.map((warning) => ({
      source: warning.source ?? null,
      message: warning.message,
    })),
    problems_total: read.problems.length,
    problems: read.problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => ({
      source: problem.source ?? null,
      line: problem.line ?? null,
      message: problem.message,
    })),
  };
  return {
    receipt,
    // A conflict or a refused file means part of the transcripts was not imported (and, with
    // --dry-run, would not be): the receipt says which.
    exitCode: conflicts.length > 0 || refused.length > 0 ? EXIT_FAILURE : undefined,
    render: (write) => {
      const styles = createStyles(globals.color);
      if (!globals.quiet) {
        for (const problem of read.problems.slice(0, MAX_LISTED_PROBLEMS))
          write(
            `${styles.yellow('skipped:')} ${sanitizeForTerminal(`${where(problem)}: ${problem.message}`)}\n`,
          );
        if (read.problems.length > MAX_LISTED_PROBLEMS)
          write(
            `${styles.yellow('skipped:')} … and ${read.problems.length - MAX_LISTED_PROBLEMS} more (see --json)\n`,
          );
      }
      if (!globals.quiet) {
        for (const warning of read.warnings)
          write(
            `${styles.yellow('warning:')} ${sanitizeForTerminal(`${where(warning)}: ${warning.message}`)}\n`,
          );
      }
      for (const conflict of conflicts)
        write(`${styles.red('conflict:')} ${sanitizeForTerminal(conflict)}\n`);
      for (const file of refused)
        write(
          `${styles.red(dryRun ? 'would not import:' : 'not imported:')} ${sanitizeForTerminal(`${file.file}: ${file.reason ?? ''}`)}\n`,
        );
      if (globals.quiet) return;
      const sessions = totals.sessions;
      const what = `${plural(totals.conversations, 'conversation')} from ${plural(read.files.length, 'file')}: ${sessions.created} session${sessions.created === 1 ? '' : 's'} new, ${sessions.updated} continued, ${sessions.unchanged} unchanged; ${plural(totals.runs.created + totals.runs.extended, 'run')} written (${plural(totals.records_written, 'record')}); ${plural(totals.events.appended, 'ledger event')}${scope === undefined ? '' : ` in scope ${scope}`}`;
      write(
        `${dryRun ? styles.yellow('Dry run, would import') : styles.green('Imported')} ${sanitizeForTerminal(what)}.\n`,
      );
    },
  };
};
