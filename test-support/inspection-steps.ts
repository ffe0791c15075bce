// What the self-inspection tests of store-sqlite and store-postgres share: ledger events in two
// scopes, and the scope summaries each store's inspection must report for them. Structural types,
// so this file needs no core import.

/** The part of a ledger these steps use. */
interface AppendingLedger {
  append(event: ReturnType<typeof inspectedEvent>): Promise<unknown>;
}

/** A ledger event of `scope` and `session` at `tsMs`; with an id and `refs` when given. */
export function inspectedEvent(
  scope: string,
  session: string,
  tsMs: number,
  eventId?: string,
  refs?: Record<string, unknown>,
) {
  return {
    scope,
    session_id: session,
    agent_id: 'planner',
    type: 'ops.decision' as const,
    summary: `decided at ${tsMs}`,
    ts_ms: tsMs,
    ...(eventId === undefined ? {} : { event_id: eventId }),
    ...(refs === undefined ? {} : { refs }),
  };
}

/**
 * Appends three events in two scopes (`evt-1`, in scope `alpha` and session `s1`, carries `refs`
 * when given) and returns the scope summaries an inspection must list for them.
 */
export async function appendScopedEvents(
  ledger: AppendingLedger,
  refs?: Record<string, unknown>,
): Promise<
  Array<{
    scope: string;
    events: number;
    sessions: number;
    first_ts_ms: number;
    last_ts_ms: number;
  }>
> {
  await ledger.append(inspectedEvent('zeta', 's1', 3_000));
  await ledger.append(inspectedEvent('alpha', 's1', 2_000, 'evt-1', refs));
  await ledger.append(inspectedEvent('alpha', 's2', 1_000));
  return [
    { scope: 'alpha', events: 2, sessions: 2, first_ts_ms: 1_000, last_ts_ms: 2_000 },
    { scope: 'zeta', events: 1, sessions: 1, first_ts_ms: 3_000, last_ts_ms: 3_000 },
  ];
}
