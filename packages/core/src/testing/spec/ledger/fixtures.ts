// Times, a valid event and small helpers for the Ledger tests.
import type { LedgerEvent, NewLedgerEvent } from '../../../schema/ledger-event.js';

/** One day in milliseconds. */
export const DAY = 86_400_000;
/** The tests' fixed time: 2026-01-01T00:00:00.000Z (every test passes `ts_ms` and `nowMs`). */
export const T0 = 1_767_225_600_000;

/** A valid event; override any field. */
export function eventOf(overrides: Partial<NewLedgerEvent> = {}): NewLedgerEvent {
  return {
    scope: 'project-a',
    session_id: 'session-1',
    agent_id: 'planner',
    type: 'conversation.user',
    summary: 'asked for status',
    ts_ms: T0,
    payload: { intent: 'status' },
    refs: { record_ref: 'obs:42' },
    ...overrides,
  };
}

/** The event ids of `events`, in order. */
export const ids = (events: readonly LedgerEvent[]) => events.map((event) => event.event_id);
