import {
  type Episode,
  type Ledger,
  type LedgerEventType,
  type NewLedgerEvent,
  projectEpisodes,
  projectRunRecords,
  type RunRecord,
} from '@episodic/core';
import { LEDGER_EVENT_TYPES } from '@episodic/core/schemas';

/** The ledger scope the demo writes to (and binds the MCP server to). */
export const DEMO_SCOPE = 'episodic-demo';
/** A scope the demo never writes to: queries there must come back empty. */
export const OTHER_SCOPE = 'another-project';

/** A session's committed episodes; a fork names the last episode it inherited. */
export interface SessionSource {
  readonly id: string;
  readonly episodes: readonly Episode[];
  /** Episodes up to this id were copied from the session it was forked from (indexed there). */
  readonly inheritedThrough?: number;
}

/** What to project: each session's committed episodes and each run's records. */
export interface LedgerSources {
  readonly sessions: readonly SessionSource[];
  readonly runs: ReadonlyArray<{ readonly id: string; readonly records: readonly RunRecord[] }>;
}

/** Event counts per ledger event type (every type present, 0 when none). */
export type TypeCounts = Record<LedgerEventType, number>;

export function emptyCounts(): TypeCounts {
  return Object.fromEntries(LEDGER_EVENT_TYPES.map((type) => [type, 0])) as TypeCounts;
}

/** The turn ids the runs recorded (`run.start`'s `meta.turn_id`). */
function recordedTurns(runs: LedgerSources['runs']): Set<string> {
  const turns = new Set<string>();
  for (const run of runs) {
    for (const record of run.records) {
      if (record.type !== 'run.start') continue;
      const turnId = (record.meta as Record<string, unknown> | undefined)?.turn_id;
      if (typeof turnId === 'string') turns.add(turnId);
    }
  }
  return turns;
}

/**
 * The episodes only the session holds: not inherited from the session it was forked from, and not
 * part of a turn a run recorded (the run's records already hold its messages, calls and outputs,
 * and its interrupt as `run.status`). In the demo that leaves the compaction checkpoint.
 */
export function sessionOnlyEpisodes(session: SessionSource, turns: ReadonlySet<string>): Episode[] {
  const inherited = session.inheritedThrough ?? 0;
  return session.episodes.filter(
    (episode) =>
      episode.id > inherited &&
      (episode.meta.turnId === undefined || !turns.has(episode.meta.turnId)),
  );
}

/**
 * The ledger events the sources project to, each event once: every run's records as `agent_id`
 * "demo-runs" (every turn as executed, including failed and interrupted ones), and as
 * "demo-agent" the episodes only a session holds (see `sessionOnlyEpisodes`). Projecting both
 * sources whole would show each message two or three times (the run, the session, its fork).
 */
export function projectSources(
  sources: LedgerSources,
  scope: string = DEMO_SCOPE,
): NewLedgerEvent[] {
  const { fromSessions, fromRuns } = projectBySource(sources, scope);
  return [...fromSessions, ...fromRuns];
}

/** `projectSources`, kept apart by where each event comes from. */
export function projectBySource(
  sources: LedgerSources,
  scope: string = DEMO_SCOPE,
): { readonly fromSessions: NewLedgerEvent[]; readonly fromRuns: NewLedgerEvent[] } {
  const turns = recordedTurns(sources.runs);
  return {
    fromSessions: sources.sessions.flatMap((session) =>
      projectEpisodes(sessionOnlyEpisodes(session, turns), {
        scope,
        sessionId: session.id,
        agentId: 'demo-agent',
      }),
    ),
    fromRuns: sources.runs.flatMap((run) =>
      projectRunRecords(run.records, { scope, agentId: 'demo-runs' }),
    ),
  };
}

export function countByType(events: readonly { type: string }[]): TypeCounts {
  const counts = emptyCounts();
  for (const event of events) counts[event.type as LedgerEventType] += 1;
  return counts;
}

/**
 * Appends the projection to the ledger, in batches. Event ids are derived from the sources, so
 * indexing the same sources again is an idempotent retry. Secrets and personal data a model may
 * have written are replaced by typed placeholders (`redact`) instead of being rejected.
 */
export async function indexIntoLedger(
  ledger: Ledger,
  sources: LedgerSources,
  scope: string = DEMO_SCOPE,
): Promise<{
  readonly appended: number;
  readonly duplicates: number;
  readonly projected: TypeCounts;
}> {
  const events = projectSources(sources, scope);
  let appended = 0;
  let duplicates = 0;
  for (let index = 0; index < events.length; index += 500) {
    const receipts = await ledger.appendBatch(events.slice(index, index + 500), { redact: true });
    for (const receipt of receipts) {
      if (receipt.duplicate) duplicates++;
      else appended++;
    }
  }
  return { appended, duplicates, projected: countByType(events) };
}

/** How many events of each type the ledger holds in `scope` (read page by page). */
export async function ledgerCounts(ledger: Ledger, scope: string): Promise<TypeCounts> {
  const counts = emptyCounts();
  for (const type of LEDGER_EVENT_TYPES) {
    let afterId: string | undefined;
    do {
      const page = await ledger.query({
        scope,
        types: [type],
        limit: 500,
        ...(afterId === undefined ? {} : { afterId }),
      });
      counts[type] += page.events.length;
      afterId = page.next_after_id ?? undefined;
    } while (afterId !== undefined);
  }
  return counts;
}
