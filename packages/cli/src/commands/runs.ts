import {
  collectExpiredRuns,
  digestRun,
  EpisodicError,
  type RunDigest,
  type RunReadError,
  type RunRecord,
  redactRun,
  replayRun,
  replaySession,
} from '@episodic/core';
import type { StoredRedactionOptions } from '@episodic/core/adapter';
import { runNotFound } from '@episodic/core/adapter';
import type { CommandContext, CommandHandler } from '../command-spec.js';
import { localAndRelative, localTime, relativeTime } from '../human-time.js';
import { runIdArgument, sessionIdOption } from '../id-arguments.js';
import { writeNotes } from '../notes.js';
import {
  confirmEveryScope,
  flag,
  optionalDate,
  optionalInteger,
  optionalString,
  optionalTimeMs,
} from '../option-values.js';
import {
  createStyles,
  formatTsMs,
  renderFields,
  renderTable,
  sanitizeForTerminal,
} from '../output.js';
import { receiptEnvelope } from '../receipt-envelope.js';
import { createRunFileFollower, findRunFile } from '../run-file-follower.js';
import { type RunStatus, runStatusOf, styleStatus } from '../run-status.js';
import { damageJson, damageLine, describeRecord, recordLine } from '../run-view.js';
import { describeRunStore, notFoundWhere, otherRunStoreNotes } from '../store-notes.js';
import { erasureBy, runRedactionOutput, storedRedactionOptions } from '../stored-redaction.js';
import { locate, withRunStores, withStores } from '../stores.js';
import { UsageError } from '../usage-error.js';

/** `runs list`. */
export const list: CommandHandler = async (context) => {
  const { options } = context;
  const sessionId = await sessionIdOption(context);
  const from = optionalDate(options, 'from', 'start');
  const to = optionalDate(options, 'to', 'end');
  const limit = optionalInteger(options, 'limit', { min: 1 });
  if (from !== undefined && to !== undefined && from > to) {
    throw new UsageError(`--from ${from} is after --to ${to}: swap them.`, 'VALIDATION_ERROR');
  }
  const { result, statuses, digests, location } = await withRunStores(
    context,
    async (stores) => {
      const listed = await stores.runs.list({
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(from === undefined ? {} : { from }),
        ...(to === undefined ? {} : { to }),
        ...(limit === undefined ? {} : { limit }),
      });
      // The status is in the last record: one read from the end of each run. Title and tokens
      // need the run's records: read for the newest DIGESTED_RUNS runs only.
      const found = new Map<string, RunStatus>();
      const digests = new Map<string, RunDigest>();
      for (const [index, run] of listed.runs.entries()) {
        if (index < DIGESTED_RUNS) {
          const read = await stores.runs.read(run.runId).catch(() => undefined);
          if (read !== undefined) {
            found.set(run.runId, runStatusOf(read.records[read.records.length - 1]));
            digests.set(run.runId, digestRun(read.records));
            continue;
          }
        }
        const last = await stores.runs
          .tail(run.runId, { count: 1 })
          .then((tail) => tail.records[tail.records.length - 1])
          .catch(() => undefined);
        found.set(run.runId, runStatusOf(last));
      }
      return { result: listed, statuses: found, digests, location: stores.location };
    },
    { readOnly: true },
  );
  const runs = result.runs.map((run) => {
    const status = statuses.get(run.runId) ?? runStatusOf(undefined);
    const digest = digests.get(run.runId);
    const tokensKnown = digest !== undefined && digest.usageResponses > 0;
    return {
      run_id: run.runId,
      session_id: run.sessionId ?? null,
      started_at: run.startedAt,
      status: status.status,
      ended_at: status.endedAt,
      schema_version: run.schemaVersion,
      best_effort: run.bestEffort,
      model: run.model ?? null,
      title: digest?.title ?? null,
      duration_ms: durationMs(run.startedAt, status.endedAt),
      input_tokens: tokensKnown ? digest.inputTokens : null,
      output_tokens: tokensKnown ? digest.outputTokens : null,
      model_responses: digest?.responses ?? null,
    };
  });
  const errors = result.errors.map((error) => ({
    ...(error.runId === undefined ? {} : { run_id: error.runId }),
    location: error.location,
    message: error.message,
  }));
  const notes = await otherRunStoreNotes(location, runs.length > 0);
  if (runs.length === 0) notes.unshift(`No runs found in ${describeRunStore(location)}.`);
  if (runs.length > DIGESTED_RUNS) {
    notes.push(
      `Titles and tokens are read for the newest ${DIGESTED_RUNS} runs only (each needs its whole run); narrow the list with --limit, --from or --session-id to see them for the others.`,
    );
  }
  return {
    receipt: {
      store: location.store,
      store_source: location.storeSource,
      filters: {
        session_id: sessionId ?? null,
        from: from ?? null,
        to: to ?? null,
        limit: limit ?? null,
      },
      count: runs.length,
      runs,
      errors,
      notes,
    },
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      const now = Date.now();
      if (runs.length > 0) {
        write(
          renderTable(
            runs,
            [
              { header: 'RUN', value: (run) => run.run_id, fixed: true },
              { header: 'TITLE', value: (run) => run.title ?? '', max: 48 },
              {
                header: 'STATUS',
                value: (run) => run.status,
                style: (text) => styleStatus(styles, text),
                fixed: true,
              },
              { header: 'STARTED', value: (run) => relativeTime(run.started_at, now), fixed: true },
              {
                header: 'DURATION',
                value: (run) => duration(run.started_at, run.ended_at),
                align: 'right',
              },
              {
                header: 'TOKENS IN/OUT',
                value: (run) =>
                  run.input_tokens === null || run.output_tokens === null
                    ? ''
                    : `${run.input_tokens}/${run.output_tokens}`,
                align: 'right',
              },
              {
                header: 'MODEL',
                value: (run) =>
                  run.model === null
                    ? ''
                    : [run.model.provider, run.model.name]
                        .filter((part) => part !== undefined)
                        .join('/'),
                max: 30,
              },
              { header: 'SESSION', value: (run) => run.session_id, max: 36 },
            ],
            styles,
          ),
        );
      }
      write(
        styles.dim(`${runs.length} run${runs.length === 1 ? '' : 's'} (${location.store} store)\n`),
      );
      for (const error of errors) {
        context.io.stderr(
          `${styles.yellow('warning:')} ${sanitizeForTerminal(error.location)}: ${sanitizeForTerminal(error.message)}\n`,
        );
      }
      writeNotes(context, notes);
    },
  };
};

/** How many runs `runs list` reads whole for their title and tokens (the newest first). */
const DIGESTED_RUNS = 200;

/** Milliseconds from start to end; null while unfinished or when a time cannot be parsed. */
function durationMs(startedAt: string, endedAt: string | null): number | null {
  if (endedAt === null) return null;
  const ms = Date.parse(endedAt) - Date.parse(startedAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

/** How long a run took, for people: `850 ms`, `12 s`, `3m 05s`, `2h 10m`; empty while unfinished. */
function duration(startedAt: string, endedAt: string | null): string {
  if (endedAt === null) return '';
  const ms = Date.parse(endedAt) - Date.parse(startedAt);
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

function errorsSection(
  errors: readonly RunReadError[],
  write: (text: string) => void,
  color: boolean,
) {
  const styles = createStyles(color);
  for (const error of errors) write(`${damageLine(error, styles)}\n`);
}

/** `runs show RUN_ID`. */
export const show: CommandHandler = async (context) => {
  const runId = await runIdArgument(context);
  const { run, location } = await withRunStores(
    context,
    async (stores) => ({
      run: await stores.runs.read(runId).catch(async (error: unknown) => {
        throw await notFoundWhere(error, stores.location);
      }),
      location: stores.location,
    }),
    { readOnly: true },
  );
  const header = run.header as Record<string, unknown> | null;
  const status = runStatusOf(run.records[run.records.length - 1]);
  return {
    receipt: {
      store: location.store,
      run_id: run.runId,
      status: status.status,
      ended_at: status.endedAt,
      header,
      ended: run.ended,
      best_effort: run.bestEffort,
      ...(run.bestEffortReason === undefined ? {} : { best_effort_reason: run.bestEffortReason }),
      count: run.records.length,
      records: run.records,
      errors: run.errors.map(damageJson),
    },
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      const model = header?.model as { provider?: string; name?: string } | undefined;
      const startedAt = header?.started_at as string | undefined;
      const now = Date.now();
      write(
        renderFields(
          [
            ['run', run.runId],
            ['status', status.status],
            ['session', (header?.session_id as string | undefined) ?? null],
            ['started', startedAt === undefined ? null : localAndRelative(startedAt, now)],
            [
              'model',
              model === undefined ? undefined : `${model.provider ?? '?'}/${model.name ?? '?'}`,
            ],
            [
              'ended',
              status.endedAt !== null
                ? `${localAndRelative(status.endedAt, now)}, after ${duration(startedAt ?? '', status.endedAt) || '?'}`
                : run.ended
                  ? 'yes'
                  : 'no (running, or the writer stopped before run.end)',
            ],
            ['records', run.records.length],
            ['damaged lines', run.errors.length],
            ['best effort', run.bestEffortReason],
          ],
          styles,
        ),
      );
      write('\n');
      for (const record of run.records) write(`${recordLine(record, styles)}\n`);
      errorsSection(run.errors, write, context.globals.color);
    },
  };
};

/** `runs replay RUN_ID` or `runs replay --session-id ID`. */
export const replay: CommandHandler = async (context) => {
  const { options } = context;
  const given = context.positionals[0];
  const sessionId = await sessionIdOption(context);
  if ((given === undefined) === (sessionId === undefined)) {
    throw new UsageError(
      'Give a RUN_ID or --session-id ID to "episodic runs replay" (one of the two).',
    );
  }
  const runId = given === undefined ? undefined : await runIdArgument(context);
  const maxEvents = optionalInteger(options, 'max-events', { min: 1 });
  const maxRuns = optionalInteger(options, 'max-runs', { min: 1 });
  if (maxRuns !== undefined && sessionId === undefined) {
    throw new UsageError('--max-runs applies to --session-id only.');
  }
  const result = await withRunStores(
    context,
    async (stores) => {
      if (runId !== undefined) {
        const run = await stores.runs.read(runId).catch(async (error: unknown) => {
          throw await notFoundWhere(error, stores.location);
        });
        return {
          ...replayRun(run.records, maxEvents === undefined ? {} : { maxEvents }),
          runIds: [runId],
        };
      }
      const listed = await stores.runs.list({ sessionId: sessionId as string });
      const keep = maxRuns ?? 20;
      const newest = listed.runs.slice(0, keep).reverse();
      const records: RunRecord[][] = [];
      for (const summary of newest) records.push((await stores.runs.read(summary.runId)).records);
      const replayed = replaySession(records, {
        maxRuns: keep,
        ...(maxEvents === undefined ? {} : { maxEvents }),
      });
      return { ...replayed, truncated: replayed.truncated || listed.runs.length > keep };
    },
    { readOnly: true },
  );
  // Receipts spell fields in snake_case, as the MCP replay tool does.
  const events = result.events.map(({ runId: eventRunId, ...rest }) => ({
    ...rest,
    run_id: eventRunId,
  }));
  return {
    receipt: {
      session_id: sessionId ?? null,
      run_ids: result.runIds,
      truncated: result.truncated,
      count: events.length,
      events,
    },
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      if (result.events.length > 0) {
        write(
          renderTable(
            result.events,
            [
              { header: 'TIME', value: (event) => localTime(event.ts) },
              { header: 'RUN', value: (event) => event.runId.slice(0, 8) },
              { header: 'SEQ', value: (event) => event.seq, align: 'right' },
              {
                header: 'EVENT',
                value: (event) =>
                  event.kind === 'user_message' ? 'user (hidden)' : String(event.event.type),
                max: 24,
              },
              {
                header: 'DETAIL',
                value: (event) =>
                  event.kind === 'user_message'
                    ? String(event.message.content)
                    : describeRecord({
                        type: 'agent.event',
                        seq: event.seq,
                        event: event.event,
                      } as RunRecord).replace(/^#\d+ \S+ ?/, ''),
                max: 70,
              },
            ],
            styles,
          ),
        );
      }
      write(
        styles.dim(
          `${result.events.length} event${result.events.length === 1 ? '' : 's'} from ${result.runIds.length} run${result.runIds.length === 1 ? '' : 's'}${result.truncated ? ' (older events left out: raise --max-events or --max-runs)' : ''}\n`,
        ),
      );
    },
  };
};

async function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** `runs tail RUN_ID [-n COUNT] [-f]`. */
export const tail: CommandHandler = async (context) => {
  const { options, globals, io } = context;
  const runId = await runIdArgument(context);
  const count = optionalInteger(options, 'count', { min: 1, max: 100_000 }) ?? 20;
  const follow = flag(options, 'follow');
  const untilEnd = flag(options, 'until-end');
  const intervalMs = optionalInteger(options, 'interval-ms', { min: 10, max: 60_000 }) ?? 200;
  if (untilEnd && !follow) throw new UsageError('--until-end applies to -f (--follow) only.');
  const location = locate(context);

  if (!follow) {
    const result = await withRunStores(
      context,
      (stores) =>
        stores.runs.tail(runId, { count }).catch(async (error: unknown) => {
          throw await notFoundWhere(error, stores.location);
        }),
      { readOnly: true },
    );
    return {
      receipt: {
        store: location.store,
        run_id: result.runId,
        following: false,
        count: result.records.length,
        records: result.records,
        errors: result.errors.map(damageJson),
      },
      render: (write) => {
        const styles = createStyles(globals.color, globals.width);
        for (const record of result.records) write(`${recordLine(record, styles)}\n`);
        errorsSection(result.errors, write, globals.color);
      },
    };
  }

  const styles = createStyles(globals.color, globals.width);
  const signal = io.interruptSignal?.();
  const emitRecords = (records: readonly RunRecord[]) => {
    for (const record of records) {
      io.stdout(
        globals.json
          ? `${JSON.stringify({ kind: 'episodic.runs.tail.record.v1', ok: true, run_id: runId, record })}\n`
          : `${recordLine(record, styles)}\n`,
      );
    }
  };
  const emitErrors = (errors: readonly RunReadError[]) => {
    for (const error of errors) {
      io.stdout(
        globals.json
          ? `${JSON.stringify({ kind: 'episodic.runs.tail.damage.v1', ok: true, run_id: runId, damage: damageJson(error) })}\n`
          : `${damageLine(error, styles)}\n`,
      );
    }
  };
  const emitStart = (records: readonly RunRecord[], errors: readonly RunReadError[]) => {
    if (globals.json) {
      io.stdout(
        `${JSON.stringify({
          ...receiptEnvelope(context.kind, true),
          store: location.store,
          run_id: runId,
          following: true,
          count: records.length,
          records,
          errors: errors.map(damageJson),
        })}\n`,
      );
    } else {
      emitRecords(records);
      emitErrors(errors);
    }
  };
  const ended = (records: readonly RunRecord[]) =>
    records.some((record) => record.type === 'run.end');

  if (location.store === 'fs') {
    const path = findRunFile(location.home, runId);
    if (path === null) throw await notFoundWhere(runNotFound(runId), location);
    const follower = createRunFileFollower(path, runId);
    const start = follower.start(count);
    emitStart(start.records, start.errors);
    if (untilEnd && ended(start.records)) return {};
    while (!signal?.aborted) {
      await sleep(intervalMs, signal);
      if (signal?.aborted) break;
      let batch: ReturnType<typeof follower.poll>;
      try {
        batch = follower.poll();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw runNotFound(runId);
        throw error;
      }
      if (batch.replaced && !globals.quiet) {
        io.stderr(
          `${styles.yellow('note:')} the run file was replaced (repaired?); following its new end.\n`,
        );
      }
      emitRecords(batch.records);
      emitErrors(batch.errors);
      if (untilEnd && ended(batch.records)) break;
    }
    return {};
  }

  await withRunStores(
    context,
    async (stores) => {
      const first = await stores.runs.read(runId).catch(async (error: unknown) => {
        throw await notFoundWhere(error, stores.location);
      });
      let seenRecords = first.records.length;
      let seenErrors = first.errors.length;
      emitStart(first.records.slice(-count), first.errors);
      if (untilEnd && first.ended) return;
      while (!signal?.aborted) {
        await sleep(intervalMs, signal);
        if (signal?.aborted) break;
        const next = await stores.runs.read(runId).catch((error: unknown) => {
          throw EpisodicError.hasCode(error, 'NOT_FOUND') ? runNotFound(runId) : error;
        });
        const records = next.records.slice(seenRecords);
        const errors = next.errors.slice(seenErrors);
        seenRecords = next.records.length;
        seenErrors = next.errors.length;
        emitRecords(records);
        emitErrors(errors);
        if (untilEnd && ended(records)) break;
      }
    },
    { readOnly: true },
  );
  return {};
};

/** `runs redact RUN_ID`. */
export const redact: CommandHandler = async (context) => {
  const runId = await runIdArgument(context);
  const options = {
    ...(storedRedactionOptions(context.options, 'mode') as StoredRedactionOptions),
    by: erasureBy(context),
  };
  // Every store: the artifact store keeps a copy of a task's metadata, scrubbed with the run.
  const { receipt, store } = await withStores(context, async (stores) => ({
    receipt: await redactRun(stores, runId, options).catch(async (error: unknown) => {
      throw await notFoundWhere(error, stores.location);
    }),
    store: stores.location.store,
  }));
  const run = runRedactionOutput(receipt);
  return {
    receipt: { store, run },
    render: (write) => {
      if (context.globals.quiet) return;
      const styles = createStyles(context.globals.color, context.globals.width);
      const changed = run.changed_lines + run.changed_tool_outputs > 0;
      write(
        changed
          ? `${styles.green('Redacted')} run ${runId} (${run.mode}): ${run.replacements} replacement${run.replacements === 1 ? '' : 's'} in ${run.changed_lines} line${run.changed_lines === 1 ? '' : 's'}${run.changed_tool_outputs > 0 ? `, ${run.changed_tool_outputs} cached tool output${run.changed_tool_outputs === 1 ? '' : 's'}` : ''}.\n`
          : `Nothing to redact in run ${runId} (${run.mode}).\n`,
      );
    },
  };
};

const DAYS_TEXT = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** `--older-than DAYS`: a number of days from 0 to 1000000, fractions allowed. */
function olderThanDays(context: CommandContext): number {
  const text = optionalString(context.options, 'older-than');
  if (text === undefined) {
    throw new UsageError(
      '"runs gc" needs --older-than DAYS: the age (days since its last record) past which a run is deleted, e.g. --older-than 30. Nothing was changed.',
    );
  }
  const value = text.trim();
  const days = DAYS_TEXT.test(value) ? Number(value) : Number.NaN;
  if (!(days >= 0 && days <= 1_000_000)) {
    throw new UsageError(
      `Invalid --older-than ${JSON.stringify(text)}: give a number of days from 0 to 1000000 (fractions allowed: 1.5 is 36 hours; 0 deletes every run last written before now). Nothing was changed.`,
      'VALIDATION_ERROR',
    );
  }
  return days;
}

/** `--scope S` (normalized like an MCP server's) or `--all-scopes`: exactly one. */
async function runsScope(context: CommandContext): Promise<string | null> {
  const given = optionalString(context.options, 'scope');
  const every = flag(context.options, 'all-scopes');
  if (every && given !== undefined) {
    throw new UsageError(
      'Give --all-scopes or --scope to "runs gc", not both: --all-scopes is every scope, --scope one.',
    );
  }
  if (every) return null;
  if (given === undefined) {
    throw new UsageError(
      '"runs gc" needs --scope SCOPE (runs without a scope are in the scope default; --all-scopes acts on every scope explicitly). Nothing falls back across scopes; nothing was changed.',
      'SCOPE_REQUIRED',
    );
  }
  const { bindScope } = await import('@episodic/home');
  return bindScope(given, '--scope');
}

/** `runs gc`. */
export const gc: CommandHandler = async (context) => {
  const { options } = context;
  const days = olderThanDays(context);
  const scope = await runsScope(context);
  const nowMs = optionalTimeMs(options, 'now-ts-ms', 'start') ?? Date.now();
  const dryRun = flag(options, 'dry-run');
  if (scope === null) confirmEveryScope(options, 'runs gc', 'deletes expired runs');
  const sessionId = await sessionIdOption(context);
  const { result, store } = await withRunStores(
    context,
    async (stores) => ({
      result: await collectExpiredRuns(stores.runs, {
        olderThanDays: days,
        nowMs,
        dryRun,
        by: erasureBy(context),
        ...(scope === null ? {} : { scope }),
        ...(sessionId === undefined ? {} : { sessionId }),
      }),
      store: stores.location.store,
    }),
    { readOnly: dryRun },
  );
  const receipt = {
    store,
    scope,
    all_scopes: scope === null,
    session_id: sessionId ?? null,
    dry_run: dryRun,
    now_ts_ms: nowMs,
    older_than_days: days,
    cutoff_ts_ms: Math.floor(result.cutoffMs),
    deleted_total: result.deleted,
    by_scope: Object.entries(result.byScope)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, count]) => ({ scope: name, deleted_total: count })),
    unreadable_total: result.unreadable,
  };
  return {
    receipt,
    render: (write) => {
      if (context.globals.quiet) return;
      const styles = createStyles(context.globals.color, context.globals.width);
      const runs = `${result.deleted} run${result.deleted === 1 ? '' : 's'}`;
      const where = scope === null ? ' in every scope' : ` in scope ${scope}`;
      const cutoff = `last written before ${formatTsMs(Math.floor(result.cutoffMs))}`;
      write(
        dryRun
          ? `${styles.yellow('Dry run:')} ${runs} ${cutoff} would be deleted${where}; nothing was deleted.\n`
          : `${styles.green('Deleted')} ${runs} ${cutoff}${where}.\n`,
      );
      if (scope === null && receipt.by_scope.length > 0) {
        write(
          renderTable(
            receipt.by_scope,
            [
              { header: 'SCOPE', value: (entry) => entry.scope },
              {
                header: dryRun ? 'WOULD DELETE' : 'DELETED',
                value: (entry) => entry.deleted_total,
                align: 'right',
              },
            ],
            styles,
          ),
        );
      }
      if (result.unreadable > 0) {
        write(
          styles.dim(
            `${result.unreadable} run${result.unreadable === 1 ? '' : 's'} could not be read and ${result.unreadable === 1 ? 'was' : 'were'} kept (see "episodic runs list").\n`,
          ),
        );
      }
      if (dryRun && scope === null && result.deleted > 0) {
        write(styles.dim('Run it again with --yes instead of --dry-run to delete them.\n'));
      }
    },
  };
};
