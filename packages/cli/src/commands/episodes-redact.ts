// `episodes redact` has its own bundle: it opens every store (runs and sessions are scrubbed too),
// while the other `episodes` commands open only the ledger and so start faster.

import type { LedgerRedactTarget } from '@episodic/core';
import { resolveScopeSelector } from '@episodic/core';
import {
  eventToRedactNotFound,
  parseInput,
  type StoredRedactionOptions,
} from '@episodic/core/adapter';
import { ledgerRedactOptionsSchema, ledgerRedactTargetSchema } from '@episodic/core/schemas';
import type { EpisodicStores } from '@episodic/home';
import type { CommandHandler, CommandResult } from '../command-spec.js';
import { eventIdArgument } from '../event-id-argument.js';
import { commandName, ledgerCommand, scopeFields } from '../ledger-command.js';
import { readLedgerEventRow } from '../ledger-event-row.js';
import {
  confirmEveryScope,
  flag,
  isEveryScope,
  optionalChoice,
  optionalString,
  type ScopeSelector,
  scopeSelector,
} from '../option-values.js';
import { createStyles, renderTable } from '../output.js';
import {
  erasureBy,
  findRedactionSources,
  redactRuns,
  redactSessions,
  runRedactionOutput,
  sessionRedactionOutput,
  storedRedactionOptions,
} from '../stored-redaction.js';
import { withStores } from '../stores.js';
import { UsageError } from '../usage-error.js';

/**
 * The events a redaction would touch, per scope (scope order), without changing anything: the
 * event of `--event-id` (every scope: wherever it is; `NOT_FOUND` when it is not in the scope, as
 * the real run answers), or every event of the session in the scope (every scope: in each scope
 * that has the session).
 */
async function eventsToRedact(
  stores: EpisodicStores,
  target: LedgerRedactTarget,
  scope: string | null,
): Promise<{ scope: string; events: number }[]> {
  const counts = new Map<string, number>();
  if (target.eventId !== undefined) {
    const row = await readLedgerEventRow(stores, target.eventId);
    // The real run's answer for an event that is not there: NOT_FOUND, not "0 events".
    if (row === undefined || (scope !== null && row.scope !== scope)) {
      throw eventToRedactNotFound(target.eventId, scope);
    }
    counts.set(row.scope, 1);
  } else {
    let afterId: string | undefined;
    for (;;) {
      const page = await stores.ledger.replay(target.sessionId as string, {
        ...(scope === null ? { global: true as const } : { scope }),
        limit: 500,
        ...(afterId === undefined ? {} : { afterId }),
      });
      for (const event of page.events) counts.set(event.scope, (counts.get(event.scope) ?? 0) + 1);
      if (page.next_after_id === null) break;
      afterId = page.next_after_id;
    }
  }
  return [...counts]
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
    .map(([name, events]) => ({ scope: name, events }));
}

/** `episodes redact`. */
export const redact: CommandHandler = ledgerCommand(async (context) => {
  const { options } = context;
  const command = commandName(context);
  const selector = scopeSelector(options, command);
  const givenEvent = optionalString(options, 'event-id');
  const sessionId = optionalString(options, 'session-id');
  if ((givenEvent === undefined) === (sessionId === undefined)) {
    throw new UsageError(
      `"${command}" needs exactly one of --event-id ID (one event) and --session-id ID (a whole session).`,
    );
  }
  const replacement =
    optionalChoice(options, 'replacement', ['null', 'placeholder'] as const) ?? 'placeholder';
  const asked = {
    ...selector,
    ...(givenEvent === undefined ? { sessionId: sessionId as string } : { eventId: givenEvent }),
  };
  parseInput(ledgerRedactTargetSchema, asked, 'redaction target');
  parseInput(ledgerRedactOptionsSchema, { replacement }, 'redact options');
  const { scope } = resolveScopeSelector(asked, 'redaction');
  const scrub = storedRedactionOptions(options, 'runs');
  const dryRun = flag(options, 'dry-run');
  if (isEveryScope(selector)) confirmEveryScope(options, command, 'redacts the events it names');
  // A unique prefix of an event id of the scope stands for that event.
  const eventId =
    givenEvent === undefined
      ? undefined
      : await withStores(
          context,
          (stores) => eventIdArgument(stores.ledger, selector, givenEvent, '--event-id'),
          { readOnly: true },
        );
  const target = {
    ...selector,
    ...(eventId === undefined ? { sessionId: sessionId as string } : { eventId }),
  };
  if (dryRun) {
    const planned = await withStores(
      context,
      async (stores) => {
        const byScope = await eventsToRedact(stores, target as LedgerRedactTarget, scope);
        const sources =
          scrub === null
            ? { runIds: new Set<string>(), sessionIds: new Set<string>() }
            : await findRedactionSources(stores, target as LedgerRedactTarget, scope);
        return {
          byScope,
          runs: [...sources.runIds].sort(),
          sessions: [...sources.sessionIds].sort(),
        };
      },
      { readOnly: true },
    );
    return dryRunResult(
      context,
      selector,
      { eventId, sessionId, scope, replacement, scrub },
      planned,
    );
  }
  const { result, runs, sessions } = await withStores(context, async (stores) => {
    // The sources are found first (the ledger redaction clears the refs that name them) and
    // scrubbed before the ledger: if a scrub fails, the ledger is unchanged and the same command
    // can simply be run again.
    const sources =
      scrub === null
        ? { runIds: new Set<string>(), sessionIds: new Set<string>() }
        : await findRedactionSources(stores, target as LedgerRedactTarget, scope);
    const runs =
      scrub === null
        ? []
        : await redactRuns(stores, sources.runIds, { ...scrub, by: erasureBy(context) });
    const sessions = scrub === null ? [] : await redactSessions(stores, sources.sessionIds, scrub);
    const result = await stores.ledger.redact(target, { replacement });
    return { result, runs, sessions };
  });
  const receipt = {
    ...scopeFields(selector),
    target: { event_id: eventId ?? null, session_id: sessionId ?? null, scope: result.scope },
    replacement,
    dry_run: false,
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

/** What `--dry-run` answers: nothing was changed; the events, runs and snapshots a real run would touch. */
function dryRunResult(
  context: Parameters<CommandHandler>[0],
  selector: ScopeSelector,
  asked: {
    eventId: string | undefined;
    sessionId: string | undefined;
    scope: string | null;
    replacement: 'null' | 'placeholder';
    scrub: StoredRedactionOptions | null;
  },
  planned: { byScope: { scope: string; events: number }[]; runs: string[]; sessions: string[] },
): CommandResult {
  const total = planned.byScope.reduce((sum, entry) => sum + entry.events, 0);
  const receipt = {
    ...scopeFields(selector),
    target: {
      event_id: asked.eventId ?? null,
      session_id: asked.sessionId ?? null,
      scope: asked.scope,
    },
    replacement: asked.replacement,
    dry_run: true,
    redacted_count: 0,
    would_redact: { by_scope: planned.byScope, runs: planned.runs, sessions: planned.sessions },
    stored: {
      mode: asked.scrub === null ? 'none' : (asked.scrub.mode ?? 'secrets'),
      runs: [],
      sessions: [],
    },
  };
  return {
    receipt,
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      const what =
        asked.eventId === undefined ? `session ${asked.sessionId}` : `event ${asked.eventId}`;
      const where = asked.scope === null ? 'every scope' : `scope ${asked.scope}`;
      if (!context.globals.quiet) {
        write(
          `${styles.yellow('Dry run:')} ${total} event${total === 1 ? '' : 's'} of ${what} in ${where} would be redacted; nothing was changed.\n`,
        );
      }
      if (planned.byScope.length > 0) {
        write(
          renderTable(
            planned.byScope,
            [
              { header: 'SCOPE', value: (entry) => entry.scope },
              { header: 'WOULD REDACT', value: (entry) => entry.events, align: 'right' },
            ],
            styles,
          ),
        );
      }
      if (context.globals.quiet) return;
      if (asked.scrub !== null) {
        write(
          `Would scrub (${asked.scrub.mode ?? 'secrets'}) ${planned.runs.length} stored run${planned.runs.length === 1 ? '' : 's'} and ${planned.sessions.length} session snapshot${planned.sessions.length === 1 ? '' : 's'} the events came from.\n`,
        );
      }
      if (total === 0) return;
      write(
        styles.dim(
          `Run it again without --dry-run${asked.scope === null ? ' and with --yes' : ''} to redact them.\n`,
        ),
      );
    },
  };
}
