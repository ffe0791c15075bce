// `episodes redact` has its own bundle: it opens every store (runs and sessions are scrubbed too),
// while the other `episodes` commands open only the ledger and so start faster.
import { type LedgerRedactTarget, ledgerRedactOptionsSchema, parseInput } from '@episodic/core';
import { ledgerRedactTargetSchema, resolveScopeSelector } from '@episodic/core/internal';
import type { CommandHandler } from '../command-spec.js';
import { commandName, ledgerCommand, scopeFields } from '../ledger-command.js';
import { optionalChoice, optionalString, scopeSelector } from '../option-values.js';
import { createStyles } from '../output.js';
import {
  findRedactionSources,
  redactRuns,
  redactSessions,
  runRedactionOutput,
  sessionRedactionOutput,
  storedRedactionOptions,
} from '../stored-redaction.js';
import { withStores } from '../stores.js';
import { UsageError } from '../usage-error.js';

/** `episodes redact`. */
export const redact: CommandHandler = ledgerCommand(async (context) => {
  const { options } = context;
  const command = commandName(context);
  const selector = scopeSelector(options, command);
  const eventId = optionalString(options, 'event-id');
  const sessionId = optionalString(options, 'session-id');
  if ((eventId === undefined) === (sessionId === undefined)) {
    throw new UsageError(
      `"${command}" needs exactly one of --event-id ID (one event) and --session-id ID (a whole session).`,
    );
  }
  const replacement =
    optionalChoice(options, 'replacement', ['null', 'placeholder'] as const) ?? 'placeholder';
  const target = {
    ...selector,
    ...(eventId === undefined ? { sessionId: sessionId as string } : { eventId }),
  };
  parseInput(ledgerRedactTargetSchema, target, 'redaction target');
  parseInput(ledgerRedactOptionsSchema, { replacement }, 'redact options');
  const { scope } = resolveScopeSelector(target, 'redaction');
  const scrub = storedRedactionOptions(options, 'runs');
  const { result, runs, sessions } = await withStores(context, async (stores) => {
    // The sources are found first (the ledger redaction clears the refs that name them) and
    // scrubbed before the ledger: if a scrub fails, the ledger is unchanged and the same command
    // can simply be run again.
    const sources =
      scrub === null
        ? { runIds: new Set<string>(), sessionIds: new Set<string>() }
        : await findRedactionSources(stores, target as LedgerRedactTarget, scope);
    const runs = scrub === null ? [] : await redactRuns(stores, sources.runIds, scrub);
    const sessions = scrub === null ? [] : await redactSessions(stores, sources.sessionIds, scrub);
    const result = await stores.ledger.redact(target, { replacement });
    return { result, runs, sessions };
  });
  const receipt = {
    ...scopeFields(selector),
    target: { event_id: eventId ?? null, session_id: sessionId ?? null, scope: result.scope },
    replacement,
    redacted_count: result.redacted_count,
    stored: {
      mode: scrub === null ? 'none' : (scrub.mode ?? 'secrets'),
      runs: runs.map(runRedactionOutput),
      sessions: sessions.map(sessionRedactionOutput),
    },
  };
  return {
    receipt,
    render: (write) => {
      if (context.globals.quiet) return;
      const styles = createStyles(context.globals.color, context.globals.width);
      const what = eventId === undefined ? `session ${sessionId}` : `event ${eventId}`;
      const where = result.scope === null ? 'every scope' : `scope ${result.scope}`;
      write(
        `${styles.green('Redacted')} ${result.redacted_count} event${result.redacted_count === 1 ? '' : 's'} of ${what} in ${where} (payload → ${replacement === 'null' ? 'null' : '"[REDACTED]"'}).\n`,
      );
      if (scrub === null) {
        write(styles.dim('Stored runs and snapshots were left as they are (--runs none).\n'));
        return;
      }
      const changedRuns = runs.filter((run) => run.changedLines + run.changedToolOutputs > 0);
      const changedSessions = sessions.filter((session) => session.changed);
      write(
        `Scrubbed (${scrub.mode ?? 'secrets'}) ${changedRuns.length} of ${runs.length} stored run${runs.length === 1 ? '' : 's'} and ${changedSessions.length} of ${sessions.length} session snapshot${sessions.length === 1 ? '' : 's'} the events came from.\n`,
      );
    },
  };
});
