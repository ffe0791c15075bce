import {
  type ContentKind,
  EpisodicError,
  type LedgerRedactTarget,
  type RunRedactReceipt,
  redactRun,
  type SessionRedactReceipt,
} from '@episodic/core';
import type { ErasureBy, StoredRedactionOptions } from '@episodic/core/adapter';
import { safeJsonParse } from '@episodic/core/adapter';
import { CONTENT_KINDS, uuidSchema } from '@episodic/core/schemas';
import type { EpisodicStores } from '@episodic/home';
import type { CommandContext, OptionValues } from './command-spec.js';
import { GLOBAL_OPTIONS } from './global-options.js';
import { commandName } from './ledger-command.js';
import { readLedgerEventRow } from './ledger-event-row.js';
import { listOption, optionalChoice } from './option-values.js';
import { UsageError } from './usage-error.js';

/** What `--mode` (or `episodes redact --runs`) and `--kind` ask for. */
export function storedRedactionOptions(
  options: OptionValues,
  modeOption: 'mode' | 'runs',
): StoredRedactionOptions | null {
  const mode =
    modeOption === 'runs'
      ? (optionalChoice(options, 'runs', ['secrets', 'content', 'none'] as const) ?? 'secrets')
      : (optionalChoice(options, 'mode', ['secrets', 'content'] as const) ?? 'secrets');
  const kinds = listOption(options, 'kind', true);
  for (const kind of kinds ?? []) {
    if (!(CONTENT_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(
        `Invalid --kind ${JSON.stringify(kind)}: use ${CONTENT_KINDS.join(', ')}.`,
        'VALIDATION_ERROR',
      );
    }
  }
  if (kinds !== undefined && mode === 'content') {
    throw new UsageError(
      '--kind goes with the secrets mode (content mode replaces all text).',
      'VALIDATION_ERROR',
    );
  }
  if (mode === 'none') {
    if (kinds !== undefined) throw new UsageError('--kind has no effect with --runs none.');
    return null;
  }
  return { mode, ...(kinds === undefined ? {} : { kinds: kinds as ContentKind[] }) };
}

/**
 * Who erases, as a chained store's erasure log records it (`by`): the command and the names of its
 * own flags given, sorted, never their values (a scope or a path may be personal); the global
 * options (`--home`, `--db`, `--json`, ...) are left out.
 */
export function erasureBy(context: CommandContext): ErasureBy {
  const flags = Object.entries(context.options)
    .filter(
      ([name, value]) =>
        value !== undefined && value !== false && !Object.hasOwn(GLOBAL_OPTIONS, name),
    )
    .map(([name]) => `--${name}`)
    .sort();
  return { command: commandName(context), flags };
}

/** A run's redaction as receipts show it. */
export function runRedactionOutput(receipt: RunRedactReceipt) {
  return {
    run_id: receipt.runId,
    mode: receipt.mode,
    changed_lines: receipt.changedLines,
    changed_tool_outputs: receipt.changedToolOutputs,
    replacements: receipt.replacements,
  };
}

/** A snapshot's redaction as receipts show it. */
export function sessionRedactionOutput(receipt: SessionRedactReceipt) {
  return {
    session_id: receipt.sessionId,
    mode: receipt.mode,
    changed: receipt.changed,
    replacements: receipt.replacements,
    revision: receipt.revision,
  };
}

const isUuid = (value: unknown): value is string =>
  typeof value === 'string' && uuidSchema.safeParse(value).success;

/** The runs and session snapshots the ledger events of a redaction target were projected from. */
export interface RedactionSources {
  runIds: Set<string>;
  sessionIds: Set<string>;
}

/**
 * Finds, before the ledger redaction clears them, the stored runs and snapshots behind the events
 * of `target`: the runs named by the events' `refs.run_id` and, for a session (or the session of
 * an event) that is a UUID, every run recorded for it and its snapshot. An event outside the
 * target's scope, or a session with no event in it, has no sources: nothing is scrubbed.
 */
export async function findRedactionSources(
  stores: EpisodicStores,
  target: LedgerRedactTarget,
  scope: string | null,
): Promise<RedactionSources> {
  const runIds = new Set<string>();
  const sessionIds = new Set<string>();
  const addRef = (refs: unknown) => {
    const runId = (refs as { run_id?: unknown } | null)?.run_id;
    if (isUuid(runId)) runIds.add(runId.toLowerCase());
  };
  const addSession = async (sessionId: string) => {
    if (!isUuid(sessionId)) return;
    const id = sessionId.toLowerCase();
    sessionIds.add(id);
    // A run recorded without a session projects its events under the run id itself.
    runIds.add(id);
    for (const run of (await stores.runs.list({ sessionId: id })).runs) runIds.add(run.runId);
  };
  if (target.eventId !== undefined) {
    const row = await readLedgerEventRow(stores, target.eventId);
    if (row === undefined || (scope !== null && row.scope !== scope)) {
      return { runIds, sessionIds };
    }
    if (row.refs_json !== null) {
      const refs = safeJsonParse(row.refs_json);
      if (refs.success) addRef(refs.value);
    }
    await addSession(row.session_id);
    return { runIds, sessionIds };
  }
  const sessionId = target.sessionId as string;
  const selector = scope === null ? { global: true as const } : { scope };
  let afterId: string | undefined;
  let events = 0;
  for (;;) {
    const page = await stores.ledger.replay(sessionId, {
      ...selector,
      limit: 500,
      ...(afterId === undefined ? {} : { afterId }),
    });
    events += page.events.length;
    for (const event of page.events) addRef(event.refs);
    if (page.next_after_id === null) break;
    afterId = page.next_after_id;
  }
  // A session with no event in the scope is another scope's business: nothing of it is touched.
  if (events > 0) await addSession(sessionId);
  return { runIds, sessionIds };
}

/** Redacts each run that exists (a candidate that does not is skipped). */
export async function redactRuns(
  stores: EpisodicStores,
  runIds: Iterable<string>,
  options: StoredRedactionOptions,
): Promise<RunRedactReceipt[]> {
  const receipts: RunRedactReceipt[] = [];
  for (const runId of [...runIds].sort()) {
    try {
      // With its task's metadata in the artifact store: every copy of the run's bytes.
      receipts.push(await redactRun(stores, runId, options));
    } catch (error) {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) continue;
      throw error;
    }
  }
  return receipts;
}

/** Redacts each session snapshot that exists. */
export async function redactSessions(
  stores: EpisodicStores,
  sessionIds: Iterable<string>,
  options: StoredRedactionOptions,
): Promise<SessionRedactReceipt[]> {
  const receipts: SessionRedactReceipt[] = [];
  for (const sessionId of [...sessionIds].sort()) {
    try {
      receipts.push(await stores.sessions.redact(sessionId, options));
    } catch (error) {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) continue;
      throw error;
    }
  }
  return receipts;
}
