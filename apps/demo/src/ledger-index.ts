import {
  type Episode,
  LEDGER_EVENT_TYPES,
  type Ledger,
  type LedgerEventType,
  type NewLedgerEvent,
  projectEpisodes,
  projectRunRecords,
  type RunRecord,
} from '@episodic/core';

/** The ledger scope the demo writes to (and binds the MCP server to). */
export const DEMO_SCOPE = 'episodic-demo';
/** A scope the demo never writes to: queries there must come back empty. */
export const OTHER_SCOPE = 'another-project';

/** What to project: each session's committed episodes and each run's records. */
export interface LedgerSources {
  readonly sessions: ReadonlyArray<{ readonly id: string; readonly episodes: readonly Episode[] }>;
  readonly runs: ReadonlyArray<{ readonly id: string; readonly records: readonly RunRecord[] }>;
}

/** Event counts per ledger event type (every type present, 0 when none). */
export type TypeCounts = Record<LedgerEventType, number>;

export function emptyCounts(): TypeCounts {
  return Object.fromEntries(LEDGER_EVENT_TYPES.map((type) => [type, 0])) as TypeCounts;
}

/**
 * The ledger events the sources project to: episodes as `agent_id` "demo-agent" (the committed
 * conversation), run records as "demo-runs" (every run as executed, including failed and
 * interrupted turns that the committed history does not contain).
 */
export function projectSources(
  sources: LedgerSources,
  scope: string = DEMO_SCOPE,
): NewLedgerEvent[] {
  return [
    ...sources.sessions.flatMap((session) =>
      projectEpisodes(session.episodes, { scope, sessionId: session.id, agentId: 'demo-agent' }),
    ),
    ...sources.runs.flatMap((run) =>
      projectRunRecords(run.records, { scope, agentId: 'demo-runs' }),
    ),
  ];
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
