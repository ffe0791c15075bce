import {
  baseMessageSchema,
  CHAIN_FINDINGS,
  LEDGER_EVENT_TYPES,
  metadataScalarSchema,
  metadataSchema,
  TASK_OUTCOME_TYPES,
  TASK_TYPES,
  taskEpisodeSchema,
  taskQualityGateSchema,
  taskTimelineSchema,
} from '@episodic/core/schemas';
import * as z from 'zod';
import { TOOL_ERROR_CODES } from '../tool-error.js';
import type { EpisodicToolName } from './tool-catalog.js';

/**
 * The JSON each tool answers with (the text of its one content block), as schemas: what an MCP
 * client may rely on. Objects are open: a newer server may add fields, never remove or retype
 * these. A result too large for the size limit is shortened and carries `truncated: true` and a
 * `note`; one that cannot fit at all is only `{ success: true, truncated: true, note }`.
 */

const count = z.number().int().nonnegative();

/** The fields a shortened result adds. */
const shortened = {
  /** Present when the result was shortened to fit the size limit. */
  truncated: z.literal(true).optional(),
  /** Says what was shortened. */
  note: z.string().optional(),
};

const tooLarge = z.looseObject({
  success: z.literal(true),
  truncated: z.literal(true),
  note: z.string(),
});

function result<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.union([z.looseObject({ success: z.literal(true), ...shortened, ...shape }), tooLarge]);
}

/** A ledger event as `memory_episodes_query` and `replay_session` return it. */
const ledgerEventOutputSchema = z.looseObject({
  event_id: z.string(),
  ts_ms: count,
  /** `ts_ms` as ISO 8601. */
  ts: z.string(),
  session_id: z.string(),
  agent_id: z.string(),
  type: z.enum(LEDGER_EVENT_TYPES),
  summary: z.string(),
  refs: z.record(z.string(), z.unknown()).nullable(),
  redacted: z.boolean(),
  position: z.number().int().positive(),
  metadata: metadataSchema.optional(),
  /** Only with `includePayload` / `include_payload`. */
  payload: z.unknown().optional(),
});

const ledgerPage = {
  count,
  events: z.array(ledgerEventOutputSchema),
  /** Pass as `afterId` / `after_id` for the next page; null on the last page. */
  next_after_id: z.string().nullable(),
};

const replayEventSchema = z.discriminatedUnion('kind', [
  z.looseObject({
    kind: z.literal('user_message'),
    run_id: z.string(),
    seq: z.literal(-1),
    ts: z.string(),
    hidden: z.literal(true),
    message: baseMessageSchema,
  }),
  z.looseObject({
    kind: z.literal('agent_event'),
    run_id: z.string(),
    seq: count,
    ts: z.string(),
    event: z.looseObject({ type: z.string() }),
  }),
]);

/** The body of a tool error result (`isError: true`). */
export const toolErrorBodySchema = z.looseObject({
  /** What went wrong and what to do, written for the model that made the call. */
  error: z.string(),
  code: z.enum(TOOL_ERROR_CODES as [string, ...string[]]),
});

/** The result of each tool, by name. */
export const EPISODIC_TOOL_OUTPUT_SCHEMAS: Readonly<Record<EpisodicToolName, z.ZodType>> = {
  create_episode: result({
    episode_id: z.string(),
    task_description: z.string(),
    domain: z.string(),
    task_type: z.enum(TASK_TYPES),
    complexity: z.string(),
    start_time: z.string(),
    message: z.string(),
  }),
  add_episode_step: result({
    episode_id: z.string(),
    step_number: z.number().int().positive(),
    timestamp: z.string(),
    message: z.string(),
  }),
  complete_episode: result({
    episode_id: z.string(),
    outcome_type: z.enum(TASK_OUTCOME_TYPES),
    reward_score: z.number().nullable(),
    patterns_extracted: count,
    /** Present when the quality gate is on. */
    quality_gate: taskQualityGateSchema.optional(),
    /**
     * False for the call that completed the task; true when it was already completed with this
     * same outcome (a concurrent or repeated call): the stored completion's result, nothing new
     * recorded. Exactly one call per task answers false.
     */
    duplicate: z.boolean(),
    message: z.string(),
  }),
  get_episode: result({ episode: taskEpisodeSchema }),
  get_episode_timeline: result(taskTimelineSchema.shape),
  delete_episode: result({
    episode_id: z.string(),
    deleted_artifacts: z.array(z.string()),
    updated_artifacts: z.array(z.string()),
    message: z.string(),
  }),
  memory_episodes_query: result({ scope: z.string(), ...ledgerPage }),
  replay_session: z.union([
    z.looseObject({
      success: z.literal(true),
      ...shortened,
      session_id: z.string(),
      source: z.literal('ledger'),
      ...ledgerPage,
    }),
    z.looseObject({
      success: z.literal(true),
      note: z.string().optional(),
      session_id: z.string(),
      source: z.literal('runs'),
      run_ids: z.array(z.string()),
      count,
      events: z.array(replayEventSchema),
      /** True when older runs or events were left out (`max_runs`, `max_events`) or the result was shortened. */
      truncated: z.boolean(),
    }),
    tooLarge,
  ]),
  list_runs: result({
    scope: z.string(),
    count,
    runs: z.array(
      z.looseObject({
        run_id: z.string(),
        session_id: z.string().optional(),
        started_at: z.string(),
        kind: z.enum(['task', 'run']),
        task_type: z.string().optional(),
        /** A task's description (first 200 characters). */
        task_description: z.string().optional(),
        /** A run's input text (first 200 characters). */
        input: z.string().optional(),
        status: z.string().nullable(),
        ended: z.boolean(),
        outcome: z.string().nullable().optional(),
        record_count: count,
        damaged_lines: count.optional(),
      }),
    ),
  }),
  search_patterns: result({
    scope: z.string(),
    count,
    total_matches: count,
    patterns: z.array(
      z.looseObject({
        key: z.string(),
        type: z.string().nullable(),
        /** The pattern (seed 004 fields by type: tools, decision_words, failed_tool, …). */
        pattern: z.record(z.string(), z.unknown()),
        /** How many task episodes support it. */
        support: count,
        episode_ids: z.array(z.string()),
        effective_metadata: z.record(z.string(), z.array(metadataScalarSchema)),
        updated_at: z.string(),
        /** With `query`: how well it matches (higher is better, within this call). */
        score: z.number().optional(),
        /** With `query`: its text around the matches, matched words between « and ». */
        snippet: z.string().optional(),
      }),
    ),
    /** Present when not every stored pattern could be scanned. */
    scan_truncated: z.literal(true).optional(),
  }),
  search_history: result({
    scope: z.string(),
    query: z.string(),
    count,
    hits: z.array(
      z.looseObject({
        event_id: z.string(),
        session_id: z.string(),
        agent_id: z.string(),
        type: z.enum(LEDGER_EVENT_TYPES),
        ts_ms: count,
        /** `ts_ms` as ISO 8601. */
        ts: z.string(),
        /** Higher is better; comparable within one search only. */
        score: z.number(),
        /** Text around the matches, each matched word between « and », cuts as …. */
        snippet: z.string(),
      }),
    ),
    /** Pass as `cursor` for the next page; null on the last page. */
    next_cursor: z.string().nullable(),
  }),
  search_runs: result({
    scope: z.string(),
    query: z.string(),
    count,
    hits: z.array(
      z.looseObject({
        run_id: z.string(),
        /** The record's place in its run, counted as run positions are (the header is 1). */
        position: z.number().int().positive(),
        /** The record's type (`tool.output`, `agent.event`, `llm.response`…). */
        type: z.string(),
        /** The record's time as ISO 8601, or null when it has none. */
        ts: z.string().nullable(),
        /** Higher is better; comparable within one search only. */
        score: z.number(),
        /** Text around the matches, each matched word between « and », cuts as …. */
        snippet: z.string(),
      }),
    ),
    /** Pass as `cursor` for the next page; null on the last page. */
    next_cursor: z.string().nullable(),
  }),
  verify_history: result({
    scope: z.string(),
    /** False when a finding is an error: an entry changed outside Episodic. */
    ok: z.boolean(),
    verified: z.looseObject({ streams: count, entries: count, bytes: count }),
    streams: z.looseObject({ chained: count, unchained: count, collected: count }),
    /** At most 100 (`findings_truncated`); the counts are never capped. */
    findings: z
      .array(
        z.looseObject({
          finding: z.enum(CHAIN_FINDINGS),
          severity: z.enum(['error', 'warning', 'info']),
          /** The stream: its kind and id (scope and session for the ledger), or its key only. */
          stream: z.looseObject({}),
          n: count.optional(),
          /** Where the entry is stored: file and line, or table and row. */
          where: z.looseObject({}).optional(),
          detail: z.string().optional(),
        }),
      )
      .max(100),
    /** How many findings of each kind (never capped). */
    counts: z.looseObject(
      Object.fromEntries(CHAIN_FINDINGS.map((finding) => [finding, count])) as Record<
        (typeof CHAIN_FINDINGS)[number],
        typeof count
      >,
    ),
    findings_truncated: z.boolean(),
    /** Per part: verified, not chained (its store does not chain), or not asked for. */
    parts: z.looseObject({
      runs: z.enum(['verified', 'not-chained', 'not-asked']),
      ledger: z.enum(['verified', 'not-chained', 'not-asked']),
    }),
    notes: z.array(z.string()),
  }),
};
