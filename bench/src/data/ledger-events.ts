import type { LedgerEventType, NewLedgerEvent } from '@episodic/core';
import { asciiProse, createRandom, prose } from './text.js';

/** Scopes of the ledger data set: seven in ten sessions live in the main scope. */
export const MAIN_SCOPE = 'bench-main';
const OTHER_SCOPES = ['bench-b', 'bench-c', 'bench-d'] as const;

/** The first event's time; the data set spans 100 days whatever its size. */
export const LEDGER_T0 = Date.UTC(2026, 0, 1);
const LEDGER_SPAN_MS = 100 * 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The session replayed by the replay row: every 100th event, interleaved across the timeline. */
export const REPLAY_SESSION = 'replay-session';
/** Ordinary sessions: 16 run side by side, each for a block of 4,000 events (~250 events each). */
const SESSIONS_IN_PARALLEL = 16;
const SESSION_BLOCK = 4000;

const TYPE_WEIGHTS: ReadonlyArray<[LedgerEventType, number]> = [
  ['conversation.user', 0.2],
  ['conversation.assistant', 0.25],
  ['tool.call', 0.22],
  ['tool.result', 0.22],
  ['ops.decision', 0.08],
  ['ops.alert', 0.03],
];

function typeFor(value: number): LedgerEventType {
  let cumulative = 0;
  for (const [type, weight] of TYPE_WEIGHTS) {
    cumulative += weight;
    if (value < cumulative) return type;
  }
  return 'ops.alert';
}

export function intervalMs(rows: number): number {
  return Math.floor(LEDGER_SPAN_MS / rows);
}

/** The ordinary session of row `index`, and its scope (sessions never span scopes). */
export function sessionOf(index: number): { session: string; scope: string } {
  const number =
    Math.floor(index / SESSION_BLOCK) * SESSIONS_IN_PARALLEL + (index % SESSIONS_IN_PARALLEL);
  const scope = number % 10 < 7 ? MAIN_SCOPE : (OTHER_SCOPES[number % 3] as string);
  return { session: `session-${number}`, scope };
}

/**
 * The `index`-th event of a ledger of `rows` events (~470 bytes of row content): a typical mix
 * of types, a payload of prose, refs on one event in ten and metadata on another one in ten.
 * Every 100th event belongs to the replay session.
 */
export function ledgerEventAt(index: number, rows: number): NewLedgerEvent {
  const random = createRandom(index * 2654435761);
  const { session, scope } =
    index % 100 === 0 ? { session: REPLAY_SESSION, scope: MAIN_SCOPE } : sessionOf(index);
  const type = typeFor(random());
  const event: NewLedgerEvent = {
    ts_ms: LEDGER_T0 + index * intervalMs(rows),
    scope,
    session_id: session,
    agent_id: ['planner', 'worker', 'reviewer', 'cron'][index % 4] as string,
    type,
    summary: asciiProse(random, 60),
    payload: { text: prose(random, 300), step: index, tags: ['bench', type] },
  };
  if (index % 10 === 3) event.refs = { run: `run-${index >> 10}`, call: `call-${index}` };
  if (index % 10 === 7) event.metadata = { project: 'bench', priority: index % 3 };
  return event;
}

/** Sessions of the main scope for query parameters: every one exists in the data set. */
export function mainScopeSessions(rows: number, count: number): string[] {
  const sessions: string[] = [];
  const random = createRandom(7);
  for (let attempt = 0; attempt < count * 100 && sessions.length < count; attempt++) {
    const index = Math.floor(random() * rows);
    if (index % 100 === 0) continue;
    const { session, scope } = sessionOf(index);
    if (scope === MAIN_SCOPE && !sessions.includes(session)) sessions.push(session);
  }
  return sessions;
}

export const DAY = DAY_MS;
