import * as z from 'zod';
import type { BaseMessage } from '../schema/base-message.js';
import type { AgentEvent, RunRecord } from '../schema/run-record.js';
import { parseInput } from '../validation/parse-input.js';

/** The run's input, shown as a hidden user message before its events (seed 001 §5). */
export interface ReplayUserMessage {
  kind: 'user_message';
  runId: string;
  /** Always -1: it comes before the run's first agent event. */
  seq: -1;
  ts: string;
  /** Hidden: the UI already shows the input, the message only restores context. */
  hidden: true;
  message: BaseMessage;
  /** The `run.start` UI context, when recorded. */
  uiContext?: unknown;
}

/** One `agent.event` of a run, for UI playback. */
export interface ReplayAgentEvent {
  kind: 'agent_event';
  runId: string;
  seq: number;
  ts: string;
  event: AgentEvent;
}

/** A UI event produced by replay. */
export type ReplayEvent = ReplayUserMessage | ReplayAgentEvent;

/** What a replay produced. */
export interface ReplayResult {
  /** The events, oldest first. */
  events: ReplayEvent[];
  /** True when runs or events were left out to respect `maxRuns` / `maxEvents` (the oldest go first). */
  truncated: boolean;
}

/** What `replaySession` produced. */
export interface SessionReplayResult extends ReplayResult {
  /** The runs that were replayed (possibly partly), oldest first. */
  runIds: string[];
}

/** Options of `replayRun`. */
export interface ReplayRunOptions {
  /** Keep at most this many events (the newest). @default 1500 */
  maxEvents?: number;
}

/** Options of `replaySession`. */
export interface ReplaySessionOptions {
  /** Replay at most this many runs (the newest). @default 20 */
  maxRuns?: number;
  /** Keep at most this many events over all runs (the newest). @default 1500 */
  maxEvents?: number;
}

/** The default `maxRuns` of `replaySession`. */
export const DEFAULT_REPLAY_MAX_RUNS = 20;
/** The default `maxEvents` of `replayRun` and `replaySession`. */
export const DEFAULT_REPLAY_MAX_EVENTS = 1500;

const bound = z.number().int().positive();
const runOptionsSchema = z.strictObject({ maxEvents: bound.optional() }).optional();
const sessionOptionsSchema = z
  .strictObject({ maxRuns: bound.optional(), maxEvents: bound.optional() })
  .optional();
const recordsSchema = z.array(z.looseObject({ type: z.string() }));

function eventsOf(records: readonly RunRecord[]): ReplayEvent[] {
  const start: ReplayEvent[] = [];
  const events: ReplayAgentEvent[] = [];
  for (const record of records) {
    if (record.type === 'run.start') {
      const input = record.input as { text?: unknown } | undefined;
      const message: ReplayUserMessage = {
        kind: 'user_message',
        runId: String(record.run_id),
        seq: -1,
        ts: String(record.ts),
        hidden: true,
        message: { role: 'user', content: typeof input?.text === 'string' ? input.text : '' },
      };
      if (record.ui_context !== undefined) message.uiContext = record.ui_context;
      start.push(message);
    } else if (record.type === 'agent.event' && typeof record.seq === 'number') {
      events.push({
        kind: 'agent_event',
        runId: String(record.run_id),
        seq: record.seq,
        ts: String(record.ts),
        event: record.event as AgentEvent,
      });
    }
  }
  // Playback follows seq; a stable sort keeps stored order for equal seqs.
  events.sort((left, right) => left.seq - right.seq);
  return [...start, ...events];
}

function keepNewest(events: ReplayEvent[], maxEvents: number): ReplayResult {
  if (events.length <= maxEvents) return { events, truncated: false };
  return { events: events.slice(events.length - maxEvents), truncated: true };
}

/**
 * Replays one run's records as UI events (seed 001 §5): `run.start` as a hidden user message with
 * seq -1, then the `agent.event`s in seq order. Other record types are not UI events. When there
 * are more than `maxEvents`, the newest are kept and `truncated` is set.
 */
export function replayRun(records: readonly RunRecord[], options?: ReplayRunOptions): ReplayResult {
  parseInput(recordsSchema, records, 'run records');
  const { maxEvents = DEFAULT_REPLAY_MAX_EVENTS } =
    parseInput(runOptionsSchema, options, 'replay options') ?? {};
  return keepNewest(eventsOf(records), maxEvents);
}

/**
 * Replays a session's runs (given oldest first, each as its records): the newest `maxRuns` runs,
 * then the newest `maxEvents` events over all of them. `truncated` says whether anything was left out.
 */
export function replaySession(
  runs: ReadonlyArray<readonly RunRecord[]>,
  options?: ReplaySessionOptions,
): SessionReplayResult {
  parseInput(z.array(recordsSchema), runs, 'session runs');
  const { maxRuns = DEFAULT_REPLAY_MAX_RUNS, maxEvents = DEFAULT_REPLAY_MAX_EVENTS } =
    parseInput(sessionOptionsSchema, options, 'replay options') ?? {};
  const kept = runs.length > maxRuns ? runs.slice(runs.length - maxRuns) : runs;
  const events: ReplayEvent[] = [];
  const runIds: string[] = [];
  for (const records of kept) {
    const runId = records.find((record) => typeof record.run_id === 'string')?.run_id;
    if (typeof runId === 'string') runIds.push(runId);
    events.push(...eventsOf(records));
  }
  const result = keepNewest(events, maxEvents);
  return { ...result, truncated: result.truncated || kept.length < runs.length, runIds };
}
