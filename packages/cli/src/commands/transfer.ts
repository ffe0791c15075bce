import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  EpisodicError,
  type ErasureEntry,
  type Ledger,
  type LedgerEvent,
  normalizeScope,
  type RunRecord,
  type SessionState,
} from '@episodic/core';
import {
  jsonEqual,
  parseIdReference,
  parseInput,
  splitChainedRunLine,
} from '@episodic/core/adapter';
import { ledgerIdentifierSchema } from '@episodic/core/schemas';
import { type EpisodicStores, HOME_CONFIG_FILE, openEpisodicStores } from '@episodic/home';
import type { CommandContext, CommandHandler } from '../command-spec.js';
import { runIdArgument, sessionIdArgument } from '../id-arguments.js';
import {
  flag,
  isEveryScope,
  listOption,
  optionalDate,
  optionalScopeSelector,
  optionalString,
  readTextArgument,
  type ScopeSelector,
} from '../option-values.js';
import { createStyles, sanitizeForTerminal } from '../output.js';
import { createProgress } from '../progress.js';
import { locate, withStores } from '../stores.js';
import {
  collectLearning,
  type LearningPlan,
  planLearning,
  writeLearning,
} from '../transfer/artifact-transfer.js';
import {
  EXPORT_FORMAT,
  EXPORT_FORMAT_UNCHAINED,
  type ExportCounts,
  type ExportedLedgerEvent,
  type ExportSelection,
} from '../transfer/export-format.js';
import { createLineWriter } from '../transfer/line-writer.js';
import {
  type ExportedRun,
  IMPORT_LEDGER_OPTIONS,
  newEventOf,
  readExport,
} from '../transfer/read-export.js';
import { UsageError } from '../usage-error.js';

const NO_COUNTS: ExportCounts = {
  sessions: 0,
  runs: 0,
  records: 0,
  events: 0,
  artifacts: 0,
  episode_metadata: 0,
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PAGE = 500;
const APPEND_CHUNK = 500;

function exportedEvent(event: LedgerEvent): ExportedLedgerEvent {
  return {
    event_id: event.event_id,
    ts_ms: event.ts_ms,
    scope: event.scope,
    session_id: event.session_id,
    agent_id: event.agent_id,
    type: event.type,
    summary: event.summary,
    // Exported as read (see stringifyJson for bigints); import validates what it takes back.
    payload: (event.payload ?? null) as ExportedLedgerEvent['payload'],
    refs: event.refs as ExportedLedgerEvent['refs'],
    redacted: event.redacted,
    schema_version: event.schema_version,
    created_at: event.created_at,
    ...(event.metadata === undefined ? {} : { metadata: event.metadata }),
  };
}

async function readLedger(
  ledger: Ledger,
  selector: ScopeSelector,
  sessionId: string | undefined,
): Promise<LedgerEvent[]> {
  const events: LedgerEvent[] = [];
  let afterId: string | undefined;
  for (;;) {
    const page = await ledger.query({
      ...selector,
      ...(sessionId === undefined ? {} : { sessionId }),
      limit: PAGE,
      includePayload: true,
      ...(afterId === undefined ? {} : { afterId }),
    });
    events.push(...page.events);
    if (page.next_after_id === null) return events;
    afterId = page.next_after_id;
  }
}

/** `2 sessions, 3 runs (40 records), 118 ledger events, 7 artifacts`, for people. */
function describeCounts(counts: ExportCounts): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  return `${plural(counts.sessions, 'session')}, ${plural(counts.runs, 'run')} (${counts.records} records), ${plural(counts.events, 'ledger event')}, ${plural(counts.artifacts, 'artifact')}`;
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * `--session-id` of an export: a stored session's id, whole or a unique prefix of 6 or more
 * characters (an ambiguous prefix lists the candidates), or else a ledger session id, kept as
 * given (it then names only ledger events).
 */
async function exportSessionId(context: CommandContext, given: string): Promise<string> {
  if (UUID.test(given)) return given.toLowerCase();
  try {
    parseIdReference(given, 'session', '--session-id');
  } catch {
    return given;
  }
  try {
    return await sessionIdArgument(context, given, '--session-id');
  } catch (error) {
    if (EpisodicError.hasCode(error, 'NOT_FOUND')) return given;
    throw error;
  }
}

/**
 * Writes a chained run's lines with their proofs: each stored line split into its record and its
 * `chain` member (a line written before chaining has none). Damaged lines are left out with a
 * warning, as for unchained runs. Null when the run has no readable header.
 */
async function exportChainedRun(
  stores: EpisodicStores,
  runId: string,
  writer: { line(value: unknown): void },
  warnings: string[],
): Promise<{ records: number; damaged: number; key?: string } | null> {
  const lines = await stores.runs.readChain(runId);
  const parts = lines.map(({ text }) => splitChainedRunLine(text));
  const first = parts[0];
  if (first === null || first === undefined || first.record.type !== 'header') {
    warnings.push(`skipped run ${runId}: it has no readable header (run "episodic doctor")`);
    return null;
  }
  let records = 0;
  let damaged = 0;
  let key: string | undefined;
  for (const part of parts) {
    if (part === null || typeof part.record.type !== 'string') {
      damaged++;
      continue;
    }
    if (key === undefined && part.chain?.k !== undefined) key = part.chain.k;
    writer.line({
      type: 'run.record',
      run_id: runId,
      record: part.record,
      ...(part.chain === null ? {} : { chain: part.chain }),
    });
    records++;
  }
  if (damaged > 0) {
    warnings.push(
      `run ${runId}: ${damaged} damaged line${damaged === 1 ? '' : 's'} left out (run "episodic doctor"); the run's proofs will show the gap`,
    );
  }
  return { records, damaged, ...(key === undefined ? {} : { key }) };
}

/** `export`. */
export const exportCommand: CommandHandler = async (context) => {
  const { options, globals } = context;
  if (optionalString(options, 'otel') !== undefined) {
    // Traces need the OpenTelemetry SDK: loaded only for --otel.
    const { exportOtel } = await import('../transfer/export-otel.js');
    return exportOtel(context);
  }
  if (flag(options, 'otel-content') || optionalString(options, 'service-name') !== undefined) {
    throw new UsageError('--otel-content and --service-name go with --otel FILE.');
  }
  const givenSession = optionalString(options, 'session-id');
  const runIds = listOption(options, 'run-id', true);
  const from = optionalDate(options, 'from', 'start');
  const to = optionalDate(options, 'to', 'end');
  const all = flag(options, 'all');
  const selected = optionalScopeSelector(options, 'episodic export');
  const output = optionalString(options, 'output');
  const chosen = [
    givenSession !== undefined,
    runIds !== undefined,
    from !== undefined || to !== undefined,
    all,
  ].filter(Boolean).length;
  if (chosen !== 1) {
    throw new UsageError(
      'Choose what to export with exactly one of --session-id ID, --run-id ID (repeatable), --from/--to DATE, or --all.',
    );
  }
  if (globals.json && output === undefined) {
    throw new UsageError(
      '--json prints a receipt on stdout, so the export needs --output FILE (or leave out --json to write the export to stdout).',
    );
  }
  if (givenSession !== undefined) {
    parseInput(ledgerIdentifierSchema, givenSession, '--session-id');
  }
  const sessionId =
    givenSession === undefined ? undefined : await exportSessionId(context, givenSession);
  const sessionIsUuid = sessionId !== undefined && UUID.test(sessionId);
  if (sessionId !== undefined && !sessionIsUuid && selected === undefined) {
    throw new UsageError(
      `--session-id ${JSON.stringify(sessionId)} is not a UUID, so it names only ledger events: add --scope SCOPE (or --all-scopes).`,
    );
  }
  const checkedRunIds =
    runIds === undefined
      ? undefined
      : await Promise.all(runIds.map((id) => runIdArgument(context, id, '--run-id')));
  if (from !== undefined && to !== undefined && from > to) {
    throw new UsageError(`--from ${from} is after --to ${to}: swap them.`, 'VALIDATION_ERROR');
  }
  const ledgerSelector: ScopeSelector | undefined =
    selected === undefined || isEveryScope(selected)
      ? selected
      : { scope: normalizeScope(selected.scope) };
  const selection: ExportSelection = {
    session_id:
      sessionId === undefined ? null : sessionIsUuid ? sessionId.toLowerCase() : sessionId,
    run_ids: checkedRunIds === undefined ? null : [...new Set(checkedRunIds)].sort(),
    from: from ?? null,
    to: to ?? null,
    all,
    ledger:
      ledgerSelector === undefined
        ? null
        : isEveryScope(ledgerSelector)
          ? { scope: null, global: true }
          : { scope: ledgerSelector.scope, global: false },
  };

  const warnings: string[] = [];
  const counts: ExportCounts = { ...NO_COUNTS };
  let skippedDamagedLines = 0;
  const writer = createLineWriter(output, context.io.stdout);
  const progress = createProgress(context, 'export');
  let written: { bytes: number; sha256: string };
  try {
    await withStores(
      context,
      async (stores) => {
        // A home whose runs are chained exports their proofs (v3); any other writes v2, which
        // versions of Episodic that know no v3 still read.
        const chained = stores.runs.capabilities.chain === true;
        writer.line({
          type: 'export.header',
          format: chained ? EXPORT_FORMAT : EXPORT_FORMAT_UNCHAINED,
          selection,
        });
        const streamKeys = new Set<string>();
        // Sessions.
        const states: SessionState[] = [];
        if (all) {
          for (const summary of await stores.sessions.list()) {
            const state = await stores.sessions.load(summary.sessionId);
            if (state !== null) states.push(state);
          }
        } else if (sessionIsUuid) {
          const state = await stores.sessions.load((sessionId as string).toLowerCase());
          if (state !== null) states.push(state);
        }
        states.sort((left, right) =>
          compareText(left.session_id.toLowerCase(), right.session_id.toLowerCase()),
        );
        for (const state of states) {
          writer.line({ type: 'session', session_id: state.session_id.toLowerCase(), state });
          counts.sessions++;
        }
        // Runs, oldest first.
        let summaries: { runId: string; startedAt: string; sessionId?: string }[] = [];
        if (checkedRunIds !== undefined) {
          for (const runId of selection.run_ids ?? []) {
            const run = await stores.runs.read(runId);
            summaries.push({
              runId,
              startedAt: String(run.header?.started_at ?? ''),
              ...(run.header?.session_id === undefined
                ? {}
                : { sessionId: String(run.header.session_id) }),
            });
          }
        } else if (all || sessionIsUuid || from !== undefined || to !== undefined) {
          const listed = await stores.runs.list({
            ...(sessionIsUuid ? { sessionId: (sessionId as string).toLowerCase() } : {}),
            ...(from === undefined ? {} : { from }),
            ...(to === undefined ? {} : { to }),
          });
          for (const error of listed.errors)
            warnings.push(`skipped ${error.location}: ${error.message}`);
          summaries = listed.runs;
        }
        summaries.sort(
          (left, right) =>
            compareText(left.startedAt, right.startedAt) || compareText(left.runId, right.runId),
        );
        const ledgerSessions = new Set<string>();
        const exportedRuns: string[] = [];
        if (sessionId !== undefined)
          ledgerSessions.add(sessionIsUuid ? sessionId.toLowerCase() : sessionId);
        for (const [index, summary] of summaries.entries()) {
          progress.update(index, summaries.length, 'runs');
          if (chained) {
            const exported = await exportChainedRun(stores, summary.runId, writer, warnings);
            if (exported === null) continue;
            skippedDamagedLines += exported.damaged;
            if (exported.key !== undefined) streamKeys.add(exported.key);
            counts.runs++;
            counts.records += exported.records;
            exportedRuns.push(summary.runId);
            ledgerSessions.add(summary.runId);
            if (summary.sessionId !== undefined) ledgerSessions.add(summary.sessionId);
            continue;
          }
          const run = await stores.runs.read(summary.runId);
          if (run.header === null) {
            warnings.push(
              `skipped run ${summary.runId}: it has no readable header (run "episodic doctor")`,
            );
            continue;
          }
          if (run.errors.length > 0) {
            skippedDamagedLines += run.errors.length;
            warnings.push(
              `run ${summary.runId}: ${run.errors.length} damaged line${run.errors.length === 1 ? '' : 's'} left out (run "episodic doctor")`,
            );
          }
          for (const record of run.records)
            writer.line({ type: 'run.record', run_id: summary.runId, record });
          counts.runs++;
          counts.records += run.records.length;
          exportedRuns.push(summary.runId);
          ledgerSessions.add(summary.runId);
          if (summary.sessionId !== undefined) ledgerSessions.add(summary.sessionId);
        }
        // The erasure log's entries about the exported runs: their redactions verify anywhere.
        if (chained) {
          const erasures = (await stores.runs.readErasures()).filter(
            (entry) => entry.op !== 'import' && streamKeys.has(entry.stream),
          );
          for (const entry of erasures) writer.line({ type: 'erasure', entry });
          counts.erasures = erasures.length;
        }
        // Ledger events of the exported sessions (and runs), in each session's order.
        if (ledgerSelector !== undefined) {
          const byId = new Map<string, LedgerEvent>();
          const sessions = all ? [undefined] : [...ledgerSessions].sort();
          for (const session of sessions) {
            for (const event of await readLedger(stores.ledger, ledgerSelector, session))
              byId.set(event.event_id, event);
          }
          const events = [...byId.values()].sort(
            (left, right) =>
              compareText(left.scope, right.scope) ||
              compareText(left.session_id, right.session_id) ||
              left.position - right.position,
          );
          for (const event of events)
            writer.line({ type: 'ledger.event', event: exportedEvent(event) });
          counts.events = events.length;
          if (events.length > 0 && stores.ledger.capabilities.chain === true) {
            warnings.push(
              'the ledger events were exported without their proofs (not carried yet): a chained home that imports them chains them anew',
            );
          }
          // What was learned from them: metadata first, so an importer sets it before the
          // artifacts whose effective metadata it makes up.
          const learning = await collectLearning(stores.artifacts, ledgerSelector, {
            all,
            runIds: new Set(exportedRuns),
            sessionIds: new Set(states.map((state) => state.session_id.toLowerCase())),
            eventIds: new Set(events.map((event) => event.event_id)),
          });
          for (const { episode, metadata } of learning.metadata)
            writer.line({ type: 'episode.metadata', episode, metadata });
          for (const artifact of learning.artifacts) writer.line({ type: 'artifact', artifact });
          counts.episode_metadata = learning.metadata.length;
          counts.artifacts = learning.artifacts.length;
        }
        writer.line({ type: 'export.end', counts });
      },
      { readOnly: true },
    );
    written = writer.commit();
  } catch (error) {
    writer.abort();
    throw error;
  } finally {
    progress.finish();
  }
  const receipt = {
    output: output === undefined ? null : resolve(output),
    selection,
    counts,
    bytes: written.bytes,
    sha256: written.sha256,
    skipped_damaged_lines: skippedDamagedLines,
    warnings,
  };
  const summary = describeCounts(counts);
  if (!globals.quiet) {
    const styles = createStyles(globals.color, globals.width);
    for (const warning of warnings)
      context.io.stderr(`${styles.yellow('warning:')} ${sanitizeForTerminal(warning)}\n`);
  }
  if (output === undefined) {
    // The export itself went to stdout: the summary goes to stderr.
    if (!globals.quiet) context.io.stderr(`Exported ${summary} (${written.bytes} bytes).\n`);
    return {};
  }
  return {
    receipt,
    render: (write) => {
      if (globals.quiet) return;
      const styles = createStyles(globals.color, globals.width);
      write(
        `${styles.green('Exported')} ${summary} to ${sanitizeForTerminal(resolve(output))} (${written.bytes} bytes, sha256 ${written.sha256.slice(0, 16)}…).\n`,
      );
    },
  };
};

/** What an import did with the proofs of a v3 file. */
interface ImportProofs {
  /** Runs written with their proofs, byte for byte. */
  runs: number;
  /** Runs whose proofs were dropped (an unchained target, or a run that was already there). */
  dropped: number;
  /** Erasure log entries added. */
  erasures: number;
  warnings: string[];
}

interface ImportPlan {
  learning: LearningPlan;
  sessions: { state: SessionState; exists: boolean }[];
  /** `proofs`: written with the lines the export carries, byte for byte (`importChained`). */
  runs: { run: ExportedRun; from: number; proofs: boolean }[];
  /** Erasure log entries to add (a chained target only). */
  erasures: ErasureEntry[];
  /** What happened to the proofs the export carries. */
  proofs: ImportProofs;
  events: ExportedLedgerEvent[];
  skipped: ExportCounts;
  conflicts: string[];
}

async function planImport(
  stores: EpisodicStores,
  parsed: Awaited<ReturnType<typeof readExport>>,
): Promise<ImportPlan> {
  const conflicts: string[] = [];
  const plan: ImportPlan = {
    learning: { artifacts: [], metadata: [], skippedArtifacts: 0, skippedMetadata: 0 },
    sessions: [],
    runs: [],
    erasures: [],
    proofs: { runs: 0, dropped: 0, erasures: 0, warnings: [] },
    events: [],
    skipped: { ...NO_COUNTS },
    conflicts,
  };
  const chainedTarget = stores.runs.capabilities.chain === true;
  plan.learning = await planLearning(stores.artifacts, parsed.learning, conflicts);
  for (const { state } of parsed.sessions) {
    const stored = await stores.sessions
      .load(state.session_id.toLowerCase())
      .catch((error: unknown) => {
        if (EpisodicError.hasCode(error, 'CORRUPT_DATA')) {
          plan.conflicts.push(
            `session ${state.session_id}: the stored snapshot is unreadable (run "episodic doctor")`,
          );
          return undefined;
        }
        throw error;
      });
    if (stored === undefined) continue;
    if (stored === null) plan.sessions.push({ state, exists: false });
    else if (jsonEqual(stored, state)) plan.skipped.sessions++;
    else
      plan.conflicts.push(
        `session ${state.session_id} exists with other content (revision ${stored.revision ?? 0})`,
      );
  }
  for (const run of parsed.runs) {
    const stored = await stores.runs.read(run.runId).catch((error: unknown) => {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) return null;
      throw error;
    });
    if (stored === null) {
      const proofs = run.lines !== undefined && chainedTarget;
      if (run.lines !== undefined && !chainedTarget) plan.proofs.dropped++;
      if (proofs) plan.proofs.runs++;
      plan.runs.push({ run, from: 0, proofs });
      continue;
    }
    const prefix =
      stored.errors.length === 0 &&
      stored.records.length <= run.records.length &&
      stored.records.every((record, index) => jsonEqual(record, run.records[index]));
    if (!prefix) {
      plan.conflicts.push(
        `run ${run.runId} exists with other records${stored.errors.length > 0 ? ' (and damaged lines: run "episodic doctor")' : ''}`,
      );
    } else if (stored.records.length === run.records.length) {
      plan.skipped.runs++;
      plan.skipped.records += run.records.length;
    } else {
      if (run.lines !== undefined) {
        plan.proofs.dropped++;
        plan.proofs.warnings.push(
          `run ${run.runId} was already in this home: its ${run.records.length - stored.records.length} new record(s) were appended without the export's proofs`,
        );
      }
      plan.runs.push({ run, from: stored.records.length, proofs: false });
      plan.skipped.records += stored.records.length;
    }
  }
  if (plan.proofs.runs > 0) {
    plan.erasures = parsed.erasures;
    plan.proofs.erasures = parsed.erasures.length;
  }
  if (!chainedTarget && plan.proofs.dropped > 0) {
    plan.proofs.warnings.push(
      `this home does not chain its runs: the proofs of ${plan.proofs.dropped} run(s) were dropped and their records imported unchained; set "chain": true in ${HOME_CONFIG_FILE} (a file home) before importing to keep them`,
    );
  }
  const bySession = new Map<string, ExportedLedgerEvent[]>();
  for (const { event } of parsed.events) {
    const key = JSON.stringify([event.scope, event.session_id]);
    const list = bySession.get(key);
    if (list === undefined) bySession.set(key, [event]);
    else list.push(event);
  }
  for (const events of bySession.values()) {
    const first = events[0] as ExportedLedgerEvent;
    const stored = new Map(
      (await readLedger(stores.ledger, { scope: first.scope }, first.session_id)).map((event) => [
        event.event_id,
        event,
      ]),
    );
    for (const event of events) {
      const existing = stored.get(event.event_id);
      if (existing === undefined) {
        // The id may be taken in another scope or session: ask the ledger where it is.
        const elsewhere = await stores.ledger
          .query({ global: true, afterId: event.event_id, limit: 1 })
          .then(() => true)
          .catch((error: unknown) => {
            if (EpisodicError.hasCode(error, 'NOT_FOUND')) return false;
            throw error;
          });
        if (elsewhere)
          plan.conflicts.push(`event ${event.event_id} exists in another scope or session`);
        else plan.events.push(event);
        continue;
      }
      const same =
        existing.agent_id === event.agent_id &&
        existing.type === event.type &&
        existing.ts_ms === event.ts_ms &&
        existing.redacted === event.redacted &&
        existing.summary === event.summary &&
        jsonEqual(existing.payload ?? null, event.payload) &&
        jsonEqual(existing.refs, event.refs) &&
        jsonEqual(existing.metadata ?? null, event.metadata ?? null);
      if (same) plan.skipped.events++;
      else plan.conflicts.push(`event ${event.event_id} exists with other content`);
    }
  }
  return plan;
}

/** What a write of an import plan did, to undo it when a later write fails. */
interface ImportWrites {
  readonly counts: ExportCounts;
  /** Sessions and runs the import created (it can remove them again). */
  readonly createdSessions: string[];
  readonly createdRuns: string[];
  /** Runs it appended to, events and learning it wrote (these cannot be taken back). */
  extendedRuns: number;
}

/** Runs a write, naming the object in its error (`run <id>: …`). */
async function naming<T>(what: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!EpisodicError.isInstance(error)) throw error;
    throw new EpisodicError({
      code: error.code,
      message: `${what}: ${error.message}`,
      ...(error.details === undefined ? {} : { details: error.details }),
      cause: error,
    });
  }
}

/** Writes a planned import: sessions, runs, ledger events, then metadata and artifacts. */
async function writeImport(
  stores: EpisodicStores,
  planned: ImportPlan,
  clocks: { ledger: { current: Date }; artifacts: { current: Date } },
  writes: ImportWrites,
  onWritten: (count: number) => void,
): Promise<void> {
  const written = writes.counts;
  for (const { state } of planned.sessions) {
    await naming(`session ${state.session_id}`, () =>
      stores.sessions.save(state, { expectedRevision: null }),
    );
    writes.createdSessions.push(state.session_id);
    written.sessions++;
    onWritten(1);
  }
  for (const { run, from, proofs } of planned.runs) {
    if (proofs) {
      const lines = run.lines as string[];
      await naming(`run ${run.runId}`, () => stores.runs.importChained(run.runId, lines));
      writes.createdRuns.push(run.runId);
      written.records += lines.length;
      written.runs++;
      onWritten(lines.length);
      continue;
    }
    for (let start = from; start < run.records.length; start += APPEND_CHUNK) {
      const chunk: RunRecord[] = run.records.slice(start, start + APPEND_CHUNK);
      await naming(`run ${run.runId}`, () => stores.runs.append(run.runId, chunk));
      if (start === 0) writes.createdRuns.push(run.runId);
      else if (start === from) writes.extendedRuns++;
      written.records += chunk.length;
      onWritten(chunk.length);
    }
    written.runs++;
  }
  if (planned.erasures.length > 0) {
    // The redactions the source recorded, ids kept, so its redacted lines verify here.
    await naming('the erasure log', () => stores.runs.importErasures(planned.erasures));
  }
  for (const event of planned.events) {
    clocks.ledger.current = new Date(event.created_at);
    await naming(`event ${event.event_id}`, () => stores.ledger.append(newEventOf(event)));
    if (event.redacted) {
      await stores.ledger.redact(
        { scope: event.scope, eventId: event.event_id },
        { replacement: event.payload === null ? 'null' : 'placeholder' },
      );
    }
    written.events++;
    onWritten(1);
  }
  await writeLearning(stores.artifacts, planned.learning, clocks.artifacts, () => onWritten(1));
  written.episode_metadata = planned.learning.metadata.length;
  written.artifacts = planned.learning.artifacts.length;
}

function emptyWrites(): ImportWrites {
  return { counts: { ...NO_COUNTS }, createdSessions: [], createdRuns: [], extendedRuns: 0 };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Writes the whole plan into empty scratch stores of the home's kind (run files or SQLite) in a
 * temporary directory, so that whatever the stores refuse (rules of one store, such as the file
 * names of cached tool outputs) is found before anything is written to the home, and a dry run
 * reports the same failure as the import. The scratch stores are removed afterwards.
 */
async function trialImport(
  context: CommandContext,
  planned: ImportPlan,
  chain: boolean,
): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-import-trial-'));
  const clocks = { ledger: { current: new Date() }, artifacts: { current: new Date() } };
  try {
    const store = locate(context).store;
    if (chain) {
      // Scratch stores that chain as the home does, so proofs are written (and refused) alike.
      writeFileSync(
        join(directory, HOME_CONFIG_FILE),
        `${JSON.stringify({ format: 'episodic.home.v1', store, chain: true })}\n`,
      );
    }
    const scratch = await openEpisodicStores({
      home: directory,
      store,
      env: {},
      durability: 'none',
      ledger: { ...IMPORT_LEDGER_OPTIONS, now: () => clocks.ledger.current },
      artifacts: { now: () => clocks.artifacts.current },
    });
    try {
      // Scratch stores are empty: every run is written whole, as a new one.
      const whole = {
        ...planned,
        runs: planned.runs.map(({ run, proofs }) => ({ run, from: 0, proofs })),
      };
      await writeImport(scratch, whole, clocks, emptyWrites(), () => {});
    } finally {
      await scratch.close();
    }
  } catch (error) {
    throw new EpisodicError({
      code: EpisodicError.isInstance(error) ? error.code : 'STORAGE_ERROR',
      message: `The export cannot be imported into this home: ${messageOf(error).replace(/ Nothing was (written|imported)[^.]*\.?/g, '')} Nothing was imported.`,
      ...(EpisodicError.isInstance(error) && error.details !== undefined
        ? { details: error.details }
        : {}),
      cause: error,
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * Removes what a failed import created (its sessions and new runs), and says what it could not
 * take back (records appended to existing runs, ledger events, metadata and artifacts).
 */
async function undoImport(stores: EpisodicStores, writes: ImportWrites): Promise<string> {
  const left: string[] = [];
  for (const runId of writes.createdRuns) {
    await Promise.resolve(stores.runs.delete(runId)).catch(() => left.push(`run ${runId}`));
  }
  for (const sessionId of writes.createdSessions) {
    await Promise.resolve(stores.sessions.delete(sessionId)).catch(() =>
      left.push(`session ${sessionId}`),
    );
  }
  const kept = writes.counts;
  if (writes.extendedRuns > 0)
    left.push(`records appended to ${writes.extendedRuns} existing run(s)`);
  if (kept.events > 0) left.push(`${kept.events} ledger event(s)`);
  if (kept.episode_metadata + kept.artifacts > 0)
    left.push(`${kept.episode_metadata + kept.artifacts} metadata and artifact object(s)`);
  return left.length === 0
    ? 'What it had written was removed: nothing was imported.'
    : `It could not take back: ${left.join(', ')}; run the same import again once the cause is fixed (it skips what is there).`;
}

/** `import FILE`. */
export const importCommand: CommandHandler = async (context) => {
  const { globals } = context;
  const input = context.positionals[0] as string;
  const dryRun = flag(context.options, 'dry-run');
  const parsed = await readExport(await readTextArgument(context, input, 'FILE'));
  const clocks = { ledger: { current: new Date() }, artifacts: { current: new Date() } };
  const writes = emptyWrites();
  const written = writes.counts;
  const progress = createProgress(context, dryRun ? 'import (dry run)' : 'import');
  const plan = await withStores(
    context,
    async (stores) => {
      const planned = await planImport(stores, parsed);
      if (planned.conflicts.length > 0) {
        throw new EpisodicError({
          code: 'CONFLICT',
          message: `The export conflicts with what this home holds: ${planned.conflicts.slice(0, 5).join('; ')}${planned.conflicts.length > 5 ? ` (and ${planned.conflicts.length - 5} more)` : ''}. Import into another --home, or remove the conflicting objects. Nothing was imported.`,
          details: { conflicts: planned.conflicts },
        });
      }
      // The dry run and the import make the same trial, so they fail alike.
      await trialImport(context, planned, stores.runs.capabilities.chain === true);
      if (dryRun) return planned;
      const total =
        planned.sessions.length +
        planned.runs.reduce((sum, { run, from }) => sum + run.records.length - from, 0) +
        planned.events.length +
        planned.learning.metadata.length +
        planned.learning.artifacts.length;
      let done = 0;
      try {
        await writeImport(stores, planned, clocks, writes, (count) => {
          done += count;
          progress.update(done, total);
        });
      } catch (error) {
        const undone = await undoImport(stores, writes);
        throw new EpisodicError({
          code: EpisodicError.isInstance(error) ? error.code : 'STORAGE_ERROR',
          message: `The import failed while writing: ${messageOf(error).replace(/ Nothing was (written|imported)[^.]*\.?/g, '')} ${undone}`,
          cause: error,
        });
      }
      return planned;
    },
    {
      ledger: { ...IMPORT_LEDGER_OPTIONS, now: () => clocks.ledger.current },
      artifacts: { now: () => clocks.artifacts.current },
      readOnly: dryRun,
    },
  ).finally(() => progress.finish());
  const wouldWrite: ExportCounts = {
    sessions: plan.sessions.length,
    runs: plan.runs.length,
    records: plan.runs.reduce((sum, { run, from }) => sum + run.records.length - from, 0),
    events: plan.events.length,
    artifacts: plan.learning.artifacts.length,
    episode_metadata: plan.learning.metadata.length,
  };
  const proofWarnings = [
    ...parsed.proofFindings.map(
      (finding) =>
        `line ${finding.line} of the export (run ${finding.runId}${finding.n === undefined ? '' : `, entry ${finding.n}`}) does not match its proof (${finding.finding}): the file was changed after export; imported as given, and "episodic verify" names it`,
    ),
    ...plan.proofs.warnings,
  ];
  const receipt = {
    input: input === '-' ? '-' : resolve(input),
    dry_run: dryRun,
    counts: parsed.counts,
    ...(parsed.format === EXPORT_FORMAT
      ? {
          proofs: {
            runs: plan.proofs.runs,
            dropped: plan.proofs.dropped,
            erasures: plan.proofs.erasures,
            altered_lines: parsed.proofFindings.map((finding) => finding.line),
          },
          warnings: proofWarnings,
        }
      : {}),
    written: dryRun ? NO_COUNTS : written,
    ...(dryRun ? { would_write: wouldWrite } : {}),
    skipped: {
      ...plan.skipped,
      artifacts: plan.learning.skippedArtifacts,
      episode_metadata: plan.learning.skippedMetadata,
    },
  };
  if (!globals.quiet && proofWarnings.length > 0) {
    const styles = createStyles(globals.color, globals.width);
    for (const warning of proofWarnings)
      context.io.stderr(`${styles.yellow('warning:')} ${sanitizeForTerminal(warning)}\n`);
  }
  return {
    receipt,
    render: (write) => {
      if (globals.quiet) return;
      const styles = createStyles(globals.color, globals.width);
      const counts = dryRun ? wouldWrite : written;
      const what = describeCounts(counts);
      const skipped =
        plan.skipped.sessions +
        plan.skipped.runs +
        plan.skipped.events +
        plan.learning.skippedArtifacts +
        plan.learning.skippedMetadata;
      write(
        `${dryRun ? styles.yellow('Dry run: would import') : styles.green('Imported')} ${what}${skipped > 0 ? `; ${skipped} object${skipped === 1 ? ' was' : 's were'} already present` : ''}.\n`,
      );
    },
  };
};
