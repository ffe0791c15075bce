import {
  createEpisodic,
  createMemoryLedger,
  createMemoryRunStore,
  createMemorySessionStore,
  type Episode,
  EpisodicError,
  type Ledger,
  type NewLedgerEvent,
  normalizeScope,
  projectEpisodes,
  type RunReadResult,
  type RunStore,
  type SessionState,
  type SessionStore,
  snapshotEpisodes,
} from '@episodic/core';
import { jsonEqual, parseInput } from '@episodic/core/adapter';
import { CONTENT_KINDS } from '@episodic/core/schemas';
import * as z from 'zod';
import type { ImportedConversation, ImportedRun } from '../conversation/imported-conversation.js';

/** Where `saveImport` writes; leave a store out to skip that part. */
export interface ImportStores {
  /** Session snapshots. */
  sessions?: SessionStore;
  /** Run records. */
  runs?: RunStore;
  /** The ledger: the conversation's episodes projected as ledger events (needs `scope`). */
  ledger?: Ledger;
}

/** Options of `saveImport`. */
export interface SaveImportOptions {
  /** The ledger scope the events go to; required when `stores.ledger` is given. */
  scope?: string;
  /** The `agent_id` of the ledger events. @default the source format, e.g. `claude-code` */
  agentId?: string;
  /** Plan and report, write nothing. @default false */
  dryRun?: boolean;
  /**
   * Content kinds the ledger may store although its guards flag them. Flagged content is
   * otherwise replaced by typed placeholders (`[REDACTED:aws_key]`) in the ledger only; sessions and
   * runs keep the transcript as it was.
   */
  allow?: Array<(typeof CONTENT_KINDS)[number]>;
}

/** What happened to one part of a conversation. */
export type ImportStatus = 'created' | 'updated' | 'unchanged' | 'conflict' | 'skipped';

/** What `saveImport` did with one conversation. */
export interface ConversationImportReceipt {
  session_id: string;
  format: string;
  source_key: string;
  title: string | null;
  /** The snapshot: new, grown (the stored log was a prefix), the same, or in conflict. */
  session: ImportStatus;
  runs: { created: number; extended: number; unchanged: number; conflicts: number };
  /** Run records appended (in a dry run: that would be appended). */
  records_written: number;
  /**
   * Ledger events appended, and those already present with the same content. In a dry run,
   * `appended` is every projected event (at most what would be appended).
   */
  events: { appended: number; unchanged: number };
  /** Why something was not written (nothing of a conversation in conflict is written). */
  conflicts: string[];
  /**
   * Why the stores refused the conversation (or another of its file), found by writing it into
   * empty in-memory stores first; nothing of it was written. Null when it was written (or is in
   * conflict).
   */
  error: string | null;
  /** The file the conversation came from (the importer's `label`), or null. */
  source: string | null;
  /** The session that started this one (a sub-agent's parent session), or null. */
  parent_session_id: string | null;
}

/** What `saveImport` did. */
export interface SaveImportReceipt {
  dry_run: boolean;
  conversations: ConversationImportReceipt[];
}

const storesSchema = z.strictObject({
  sessions: z
    .custom<SessionStore>(
      (value) => typeof (value as SessionStore)?.save === 'function',
      'must be a SessionStore',
    )
    .optional(),
  runs: z
    .custom<RunStore>(
      (value) => typeof (value as RunStore)?.append === 'function',
      'must be a RunStore',
    )
    .optional(),
  ledger: z
    .custom<Ledger>(
      (value) => typeof (value as Ledger)?.appendBatch === 'function',
      'must be a Ledger',
    )
    .optional(),
});

const optionsSchema = z
  .strictObject({
    scope: z.string().min(1).optional(),
    agentId: z.string().min(1).max(256).optional(),
    dryRun: z.boolean().optional(),
    allow: z.array(z.enum(CONTENT_KINDS)).optional(),
  })
  .optional();

const LEDGER_BATCH = 500;

function withoutRevision(state: SessionState): Record<string, unknown> {
  const { revision: _revision, ...rest } = state;
  return rest;
}

/** True when every episode of `stored` is, id and content, at the start of `next`. */
function isLogPrefix(stored: SessionState, next: readonly Episode[]): boolean {
  const episodes = createEpisodic(snapshotEpisodes(stored)).read({ fromId: 0 });
  return (
    episodes.length <= next.length &&
    episodes.every((episode, index) => jsonEqual(episode, next[index]))
  );
}

type RunPlan = {
  run: ImportedRun;
  /** How many of the run's records the store holds already. */
  from: number;
  /** The store's position when planned: the append is a compare-and-append from there. */
  position: number;
  status: 'created' | 'extended' | 'unchanged';
};

async function readRun(runs: RunStore, runId: string): Promise<RunReadResult | null> {
  try {
    return await runs.read(runId);
  } catch (error) {
    if (EpisodicError.hasCode(error, 'NOT_FOUND')) return null;
    throw error;
  }
}

async function planRuns(
  runs: RunStore,
  conversation: ImportedConversation,
  conflicts: string[],
): Promise<RunPlan[]> {
  const plans: RunPlan[] = [];
  for (const run of conversation.runs) {
    const stored = await readRun(runs, run.runId);
    if (stored === null) {
      plans.push({ run, from: 0, position: 0, status: 'created' });
      continue;
    }
    const prefix =
      stored.errors.length === 0 &&
      stored.records.length <= run.records.length &&
      stored.records.every((record, index) => jsonEqual(record, run.records[index]));
    if (!prefix) {
      conflicts.push(
        `run ${run.runId} exists with other records${stored.errors.length > 0 ? ' (and damaged lines: run "episodic doctor")' : ''}`,
      );
    } else {
      plans.push({
        run,
        from: stored.records.length,
        position: stored.position,
        status: stored.records.length === run.records.length ? 'unchanged' : 'extended',
      });
    }
  }
  return plans;
}

async function appendEvents(
  ledger: Ledger,
  events: readonly NewLedgerEvent[],
  allow: SaveImportOptions['allow'],
  receipt: ConversationImportReceipt,
): Promise<void> {
  const options =
    allow === undefined || allow.length === 0 ? { redact: true } : { allow, redact: true };
  for (let start = 0; start < events.length; start += LEDGER_BATCH) {
    const batch = events.slice(start, start + LEDGER_BATCH);
    try {
      for (const stored of await ledger.appendBatch(batch, options)) {
        if (stored.duplicate) receipt.events.unchanged++;
        else receipt.events.appended++;
      }
    } catch (error) {
      if (!EpisodicError.hasCode(error, 'CONFLICT')) throw error;
      // One event of the batch conflicts: append one by one to store the others and name it.
      for (const event of batch) {
        try {
          const stored = await ledger.append(event, options);
          if (stored.duplicate) receipt.events.unchanged++;
          else receipt.events.appended++;
        } catch (inner) {
          if (!EpisodicError.hasCode(inner, 'CONFLICT')) throw inner;
          receipt.conflicts.push(`ledger event ${event.event_id} exists with other content`);
        }
      }
    }
  }
}

interface ConversationPlan {
  readonly conversation: ImportedConversation;
  readonly receipt: ConversationImportReceipt;
  readonly save?: { state: SessionState; expectedRevision: number | null };
  readonly runPlans: RunPlan[];
  readonly events: NewLedgerEvent[];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Writes a planned conversation into empty in-memory stores with core's rules (the rules every
 * store applies): what they refuse is found before anything is written, in a dry run too.
 */
async function trialWrite(
  plan: ConversationPlan,
  allow: SaveImportOptions['allow'],
): Promise<void> {
  const sessions = createMemorySessionStore();
  const runs = createMemoryRunStore();
  const ledger = createMemoryLedger();
  if (plan.save !== undefined) await sessions.save(plan.save.state, { expectedRevision: null });
  for (const { run } of plan.runPlans) {
    if (run.records.length > 0) await runs.append(run.runId, run.records);
  }
  const options =
    allow === undefined || allow.length === 0 ? { redact: true } : { allow, redact: true };
  for (let start = 0; start < plan.events.length; start += LEDGER_BATCH)
    await ledger.appendBatch(plan.events.slice(start, start + LEDGER_BATCH), options);
}

/** Removes what a failed write created (a new session, new runs) and says what stays. */
async function undoWrite(
  stores: ImportStores,
  plan: ConversationPlan,
  createdRuns: readonly string[],
  sessionSaved: boolean,
): Promise<string> {
  const left: string[] = [];
  for (const runId of createdRuns) {
    await stores.runs?.delete(runId).catch(() => left.push(`run ${runId}`));
  }
  if (sessionSaved) {
    if (plan.save?.expectedRevision === null)
      await stores.sessions
        ?.delete(plan.conversation.sessionId)
        .catch(() => left.push('its session'));
    else left.push(`revision ${(plan.save?.expectedRevision ?? 0) + 1} of its session`);
  }
  const extended = plan.runPlans.filter((run) => run.status === 'extended').length;
  if (extended > 0 && plan.receipt.records_written > 0)
    left.push('records appended to runs imported before');
  if (plan.receipt.events.appended > 0)
    left.push(`${plan.receipt.events.appended} ledger event(s)`);
  return left.length === 0
    ? 'what it had written was removed'
    : `it could not take back ${left.join(', ')}; import again once the cause is fixed`;
}

/**
 * Writes imported conversations into stores, idempotently: a snapshot, run or ledger event that
 * already holds the same content is left alone, so importing the same transcript twice changes
 * nothing. When the source grew since the last import (the stored log and runs are a prefix of the
 * new ones), the snapshot is saved as the next revision and the runs are extended. Anything else
 * under the same ids is a conflict: that conversation is not written at all, the others are.
 *
 * All or nothing per source file: every conversation is first planned (reads only) and written
 * into empty in-memory stores with core's rules; when the stores refuse one, no conversation of its
 * file (the same `label`) is written and the receipt says why (`error`). A dry run does the same,
 * so it reports the same failures. A write to the real stores that still fails (a full disk)
 * removes the conversation's new session and runs, names what it could not take back, and the
 * remaining conversations are written.
 */
export async function saveImport(
  stores: ImportStores,
  conversations: readonly ImportedConversation[],
  options?: SaveImportOptions,
): Promise<SaveImportReceipt> {
  parseInput(storesSchema, stores, 'saveImport stores');
  parseInput(
    z.array(
      z.looseObject({
        sessionId: z.string(),
        state: z.looseObject({}),
        runs: z.array(z.unknown()),
      }),
    ),
    conversations,
    'saveImport conversations',
  );
  const checked = parseInput(optionsSchema, options, 'saveImport options') ?? {};
  const dryRun = checked.dryRun === true;
  const scope = stores.ledger === undefined ? undefined : checked.scope;
  if (stores.ledger !== undefined && scope === undefined) {
    throw new EpisodicError({
      code: 'SCOPE_REQUIRED',
      message:
        'saveImport writes ledger events only into a named scope: pass options.scope, or leave stores.ledger out.',
    });
  }
  const normalizedScope = scope === undefined ? undefined : normalizeScope(scope);

  // Plan every conversation (reads only).
  const plans: ConversationPlan[] = [];
  for (const conversation of conversations) {
    const receipt: ConversationImportReceipt = {
      session_id: conversation.sessionId,
      format: conversation.format,
      source_key: conversation.sourceKey,
      title: conversation.title ?? null,
      session: 'skipped',
      runs: { created: 0, extended: 0, unchanged: 0, conflicts: 0 },
      records_written: 0,
      events: { appended: 0, unchanged: 0 },
      conflicts: [],
      error: null,
      source: conversation.label ?? null,
      parent_session_id: conversation.parentSessionId ?? null,
    };
    let save: ConversationPlan['save'];
    if (stores.sessions !== undefined) {
      const stored = await stores.sessions.load(conversation.sessionId);
      if (stored === null) {
        receipt.session = 'created';
        save = { state: conversation.state, expectedRevision: null };
      } else if (jsonEqual(withoutRevision(stored), withoutRevision(conversation.state))) {
        receipt.session = 'unchanged';
      } else if (isLogPrefix(stored, conversation.episodes)) {
        const revision = stored.revision ?? 0;
        receipt.session = 'updated';
        save = {
          state: { ...conversation.state, revision: revision + 1 },
          expectedRevision: revision,
        };
      } else {
        receipt.session = 'conflict';
        receipt.conflicts.push(
          `session ${conversation.sessionId} exists with a history this transcript does not continue (revision ${stored.revision ?? 0})`,
        );
      }
    }
    const runPlans =
      stores.runs === undefined ? [] : await planRuns(stores.runs, conversation, receipt.conflicts);
    receipt.runs.conflicts =
      conversation.runs.length -
      (stores.runs === undefined ? conversation.runs.length : runPlans.length);
    const events =
      normalizedScope === undefined
        ? []
        : projectEpisodes(conversation.episodes, {
            scope: normalizedScope,
            sessionId: conversation.sessionId,
            agentId: checked.agentId ?? conversation.format,
          });
    plans.push({
      conversation,
      receipt,
      ...(save === undefined ? {} : { save }),
      runPlans,
      events,
    });
  }

  // Trial writes: a file with a conversation the stores refuse is left out whole.
  const refused = new Map<string, string>();
  for (const plan of plans) {
    if (plan.receipt.conflicts.length > 0) continue;
    try {
      await trialWrite(plan, checked.allow);
    } catch (error) {
      plan.receipt.error = messageOf(error);
      const file = plan.conversation.label;
      if (file !== undefined && !refused.has(file))
        refused.set(file, `conversation ${plan.conversation.sourceKey}: ${plan.receipt.error}`);
    }
  }
  for (const plan of plans) {
    const file = plan.conversation.label;
    if (plan.receipt.error === null && file !== undefined && refused.has(file))
      plan.receipt.error = `another conversation of the same file was refused (${refused.get(file)})`;
  }

  for (const plan of plans) {
    const { receipt, runPlans, events, save } = plan;
    if (receipt.conflicts.length > 0) continue;
    if (receipt.error !== null) {
      if (receipt.session !== 'unchanged') receipt.session = 'skipped';
      continue;
    }
    for (const run of runPlans) receipt.runs[run.status]++;
    if (dryRun) {
      // What would be written: every planned record, and at most every projected event (the
      // ledger skips those it holds already).
      for (const run of runPlans) receipt.records_written += run.run.records.length - run.from;
      receipt.events.appended = events.length;
      continue;
    }

    // Write: runs first, then the snapshot that names them, then the ledger. Each run append is
    // a compare-and-append from the position planned, so a writer that got there first makes it a
    // CONFLICT instead of a doubled run.
    const createdRuns: string[] = [];
    let sessionSaved = false;
    try {
      for (const run of runPlans) {
        if (run.from === run.run.records.length) continue;
        const records = run.run.records.slice(run.from);
        await stores.runs?.append(run.run.runId, records, { expectedPosition: run.position });
        if (run.from === 0) createdRuns.push(run.run.runId);
        receipt.records_written += records.length;
      }
      if (save !== undefined) {
        await stores.sessions?.save(save.state, { expectedRevision: save.expectedRevision });
        sessionSaved = true;
      }
      if (stores.ledger !== undefined)
        await appendEvents(stores.ledger, events, checked.allow, receipt);
    } catch (error) {
      const undone = await undoWrite(stores, plan, createdRuns, sessionSaved);
      receipt.error = `${messageOf(error)} (${undone})`;
      receipt.runs = { created: 0, extended: 0, unchanged: 0, conflicts: receipt.runs.conflicts };
      if (receipt.session === 'created') receipt.session = 'skipped';
    }
  }
  return { dry_run: dryRun, conversations: plans.map((plan) => plan.receipt) };
}
