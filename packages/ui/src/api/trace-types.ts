// The trace API's answers: a run (or one turn of it) as a tree of timed spans, and a session's
// turns with their tokens and latency, as the browser app charts them.

/** Tokens of a model call (from its `llm.response` usage), or the sum over a turn or run. */
export interface TraceTokens {
  input: number;
  output: number;
  /** Input tokens served from the provider's cache, when it says. */
  cached: number | null;
}

/** What a span is: the run, a turn of it, a model call, a tool call, or the error that ended the run. */
export type TraceSpanKind = 'run' | 'turn' | 'model' | 'tool' | 'error';

/**
 * One span of a trace. Offsets count in milliseconds from the trace's `origin`. A span may lack
 * either end: `start_ms` null when its start is not recorded (a model call imported without its
 * `llm.request`), `end_ms` null when nothing ended it (no answer, no output, a run still going);
 * `missing` says which, in words.
 */
export interface TraceSpan {
  /** Unique in the trace: `run`, `turn:<id>`, `model:<seq>`, `tool:<call id>`, `error:<index>`. */
  id: string;
  kind: TraceSpanKind;
  /** What a person reads first: `model call #3`, the tool's name, `turn 1a2b3c4d`. */
  name: string;
  /** One line more: the model, the tool's arguments, the error's message. */
  detail: string | null;
  start_ms: number | null;
  end_ms: number | null;
  /** `end_ms - start_ms` when both are known. */
  duration_ms: number | null;
  /** `error`: a failed tool output, a run.error, a model call the run's error cut off; `open`: no end recorded. */
  status: 'ok' | 'error' | 'open';
  error: string | null;
  tokens: TraceTokens | null;
  /** The run record the span starts at (or its only record), to open in the run view. */
  record_index: number | null;
  /** For a tool call: the model call (`seq`) whose answer asked for it. */
  requested_by: number | null;
  /** What is not recorded about this span, in words; empty when nothing is. */
  missing: string[];
  children: TraceSpan[];
}

/** Counts and sums over a trace. */
export interface TraceTotals {
  model_calls: number;
  tool_calls: number;
  errors: number;
  /** Summed over the model calls that report usage; null when none does. */
  tokens: TraceTokens | null;
  /** Model calls that report no usage. */
  calls_without_usage: number;
  /** Summed over the model calls whose request and answer times are both recorded; null when none. */
  model_ms: number | null;
  /** Summed over the tool calls whose call and output times are both recorded; null when none. */
  tool_ms: number | null;
}

/** A turn of the run, as the `turn` parameter names it. */
export interface TraceTurnRef {
  turn_id: string;
  start_ms: number | null;
}

/** `GET /api/runs/:id/trace[?turn=ID]`: the run's (or the turn's) model and tool calls as a tree. */
export interface RunTraceResponse {
  run_id: string;
  session_id: string | null;
  status: string;
  /** The turn the trace is limited to (`?turn=`), or null for the whole run. */
  turn_id: string | null;
  /** The run's turns (by the `turn_id` its records carry), in order. */
  turns: TraceTurnRef[];
  /** The time offsets count from (the run's start), ISO 8601; null when no record time is readable. */
  origin: string | null;
  /** The latest offset any span reaches: the width of the time axis. */
  extent_ms: number;
  /** False when the records carry no usable times (an import from a source without them): no bars. */
  timed: boolean;
  /** The transcript format of an imported run (`codex`, `claude-code`, `openai`), else null. */
  imported_from: string | null;
  /** What the records do not say, for the whole trace, in words. */
  missing: string[];
  totals: TraceTotals;
  root: TraceSpan;
}

/** One turn of a session, as charted: tokens and latency. */
export interface SessionTraceTurn {
  /** 1, 2, 3… in the order the turns started. */
  number: number;
  run_id: string;
  /** The turn id the run's records carry, or null when they carry none (the whole run is the turn). */
  turn_id: string | null;
  started_at: string | null;
  status: string;
  /** A failed or cancelled run that committed nothing to the session. */
  failed_turn: boolean;
  /** Wall-clock time of the turn (its first record to its last); null without usable times. */
  duration_ms: number | null;
  totals: TraceTotals;
  missing: string[];
}

/** `GET /api/sessions/:id/trace[?runs=all]`: the session's turns, their tokens and latency, oldest first. */
export interface SessionTraceResponse {
  session_id: string;
  /** `named`: the runs the session's commits name; `all`: its failed turns and runs still going too. */
  runs: 'named' | 'all';
  turns: SessionTraceTurn[];
  /** Runs of the session that are not turns (task episodes) and so are not charted. */
  task_runs: number;
  /** The runs found (named, or all); only the newest `SESSION_TRACE_MAX_RUNS` are read. */
  total_runs: number;
  missing: string[];
}
