import { RUN_SEARCH_MAX_TYPES, SEARCH_TEXT_MAX_LENGTH } from '@episodic/core';
import {
  LEDGER_EVENT_TYPES,
  LEDGER_STORED_ID_MAX,
  metadataFilterSchema,
  storedEventIdSchema,
  storedSessionIdSchema,
  TASK_PATTERN_TYPES,
  TASK_TYPES,
  tsMsSchema,
  uuidSchema,
} from '@episodic/core/schemas';
import * as z from 'zod';

/**
 * The input schemas of the read-only history tools. Like the lifecycle schemas in core they use no
 * transforms, so `z.toJSONSchema` describes them for `tools/list`, and every field carries a
 * description a model can follow.
 */

const scopeArgument = z
  .string()
  .max(1024)
  .optional()
  .describe(
    'Optional. This server is bound to one scope (project, tenant or team); omit scope, or pass that same scope. Any other scope is refused.',
  );

const instant = (what: string) =>
  z
    .union([tsMsSchema, z.iso.datetime({ offset: true })])
    .optional()
    .describe(
      `${what}: epoch milliseconds (e.g. 1767225600000) or an ISO-8601 date-time (e.g. "2026-01-01T00:00:00Z"), inclusive.`,
    );

/** `memory_episodes_query`: seed 002's proposed surface, with its camelCase names. */
export const memoryEpisodesQueryInputSchema = z
  .strictObject({
    scope: scopeArgument,
    sessionId: storedSessionIdSchema
      .optional()
      .describe('Only events of this session (a run or conversation id).'),
    fromTs: instant('Only events at or after this time'),
    toTs: instant('Only events at or before this time'),
    types: z
      .array(z.enum(LEDGER_EVENT_TYPES))
      .min(1)
      .max(LEDGER_EVENT_TYPES.length)
      .optional()
      .describe(
        'Only these event types: "conversation.user", "conversation.assistant", "tool.call", "tool.result", "ops.decision", "ops.alert".',
      ),
    limit: z
      .number()
      .int()
      .min(1)
      .max(200)
      .default(50)
      .describe('At most this many events (1 to 200, default 50).'),
    includePayload: z
      .boolean()
      .default(false)
      .describe(
        'Also return each event payload (default false: summary, refs and metadata only). Payloads are capped at 8 KB each.',
      ),
    metadata: metadataFilterSchema
      .optional()
      .describe(
        'Only events whose metadata satisfies this filter, e.g. {"type": "and", "filters": [{"property_name": "priority", "comparison_operator": ">=", "property_value": 3}]}.',
      ),
    afterId: storedEventIdSchema
      .optional()
      .describe('Continue after this event: pass the next_after_id of the previous page.'),
  })
  .describe('Query the ledger of this scope: events in time order, summary-only by default.');

/** `search_history`: full-text search over the ledger of this scope, best first. */
export const searchHistoryInputSchema = z
  .strictObject({
    query: z
      .string()
      .min(1)
      .max(SEARCH_TEXT_MAX_LENGTH)
      .describe(
        'The words to find, e.g. "rate limit", or "quoted phrases" that must appear as written, e.g. "\\"staging database\\" timeout". Every word and phrase must match; case and accents are ignored; nothing else is syntax (no AND/OR, no wildcards).',
      ),
    scope: scopeArgument,
    session_id: storedSessionIdSchema
      .optional()
      .describe('Only events of this session (a run or conversation id).'),
    agent_id: z.string().min(1).max(256).optional().describe('Only events of this agent.'),
    types: z
      .array(z.enum(LEDGER_EVENT_TYPES))
      .min(1)
      .max(LEDGER_EVENT_TYPES.length)
      .optional()
      .describe(
        'Only these event types: "conversation.user", "conversation.assistant", "tool.call", "tool.result", "ops.decision", "ops.alert".',
      ),
    since: instant('Only events at or after this time'),
    until: instant('Only events at or before this time'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(10)
      .describe('At most this many hits (1 to 50, default 10), best first.'),
    cursor: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('The next page: pass the next_cursor of the previous page of the same search.'),
  })
  .describe('Search the ledger of this scope by the words of its events, best match first.');

/** `search_runs`: full-text search over the records of this scope's runs and task episodes. */
export const searchRunsInputSchema = z
  .strictObject({
    query: z
      .string()
      .min(1)
      .max(SEARCH_TEXT_MAX_LENGTH)
      .describe(
        'The words to find, e.g. "rate limit", or "quoted phrases" that must appear as written, e.g. "\\"connection refused\\"". Every word and phrase must match; case and accents are ignored; nothing else is syntax (no AND/OR, no wildcards).',
      ),
    scope: scopeArgument,
    run_id: uuidSchema
      .optional()
      .describe('Only records of this run or task episode (its UUID, e.g. an episode_id).'),
    session_id: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe('Only runs recorded with this session id.'),
    types: z
      .array(z.string().min(1).max(128))
      .min(1)
      .max(RUN_SEARCH_MAX_TYPES)
      .optional()
      .describe(
        'Only these record types, e.g. ["tool.output", "llm.response", "agent.event", "run.error", "run.end"] (task steps and completions are "agent.event").',
      ),
    since: instant('Only records at or after this time'),
    until: instant('Only records at or before this time'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(10)
      .describe('At most this many hits (1 to 50, default 10), best first.'),
    cursor: z
      .string()
      .min(1)
      .max(400)
      .optional()
      .describe('The next page: pass the next_cursor of the previous page of the same search.'),
  })
  .describe(
    "Search the records of this scope's runs and task episodes by their words, best match first.",
  );

/** `replay_session`: a session's history in order, from the ledger or from its recorded runs. */
export const replaySessionInputSchema = z
  .strictObject({
    session_id: z
      .string()
      .min(1)
      .max(LEDGER_STORED_ID_MAX)
      .describe(
        'The session to replay. For source "runs" it must be the session UUID the runs were recorded with.',
      ),
    source: z
      .enum(['ledger', 'runs'])
      .default('ledger')
      .describe(
        '"ledger" (default): the session\'s ledger events in order, paged. "runs": the session\'s recorded runs as UI events (each run\'s input as a hidden user message, then its agent events in order).',
      ),
    scope: scopeArgument,
    include_payload: z
      .boolean()
      .default(false)
      .describe('For source "ledger": also return payloads (default false).'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(200)
      .default(100)
      .describe('For source "ledger": at most this many events per page (1 to 200, default 100).'),
    after_id: storedEventIdSchema
      .optional()
      .describe('For source "ledger": continue after this event (the previous next_after_id).'),
    max_runs: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(20)
      .describe('For source "runs": replay at most the newest N runs (1 to 50, default 20).'),
    max_events: z
      .number()
      .int()
      .min(1)
      .max(1500)
      .default(200)
      .describe('For source "runs": keep at most the newest N events (1 to 1500, default 200).'),
  })
  .describe('Replay one session of this scope, oldest first.');

/** `list_runs`: the recorded runs (task episodes included) of this scope, newest first. */
export const listRunsInputSchema = z
  .strictObject({
    scope: scopeArgument,
    session_id: uuidSchema.optional().describe('Only runs of this session (a UUID).'),
    from: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Only runs that started at or after this ISO-8601 date-time.'),
    to: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Only runs that started at or before this ISO-8601 date-time.'),
    tasks_only: z
      .boolean()
      .default(false)
      .describe('Only task episodes (runs created with create_episode). Default false.'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(20)
      .describe('At most this many runs (1 to 100, default 20).'),
  })
  .describe('List the runs of this scope, newest first.');

/** `search_patterns`: learned patterns that fit a task context, filtered by metadata. */
export const searchPatternsInputSchema = z
  .strictObject({
    scope: scopeArgument,
    query: z
      .string()
      .min(1)
      .max(SEARCH_TEXT_MAX_LENGTH)
      .optional()
      .describe(
        'Optional words the pattern must hold (its tools, conditions, errors, context features), e.g. "read_file edit_file", or a "quoted phrase". Every word and phrase must match; case and accents are ignored. With query, the best matches come first (each with score and snippet).',
      ),
    domain: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('The task domain, e.g. "web-api" (case-insensitive).'),
    task_type: z
      .enum(TASK_TYPES)
      .optional()
      .describe(
        'One of "code_generation", "debugging", "refactoring", "testing", "analysis", "documentation".',
      ),
    language: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('The programming language, e.g. "rust".'),
    framework: z.string().min(1).max(100).optional().describe('The framework, e.g. "axum".'),
    tags: z
      .array(z.string().min(1).max(100))
      .min(1)
      .max(20)
      .optional()
      .describe('Context tags that the source task must all carry, e.g. ["auth"].'),
    pattern_types: z
      .array(z.enum(TASK_PATTERN_TYPES))
      .min(1)
      .max(TASK_PATTERN_TYPES.length)
      .optional()
      .describe(
        'Only these pattern types: "tool_sequence", "decision_point", "error_recovery", "context". Default: all.',
      ),
    metadata: metadataFilterSchema
      .optional()
      .describe(
        'Only patterns of which ONE source task episode has metadata satisfying this filter (seed 003 filter groups).',
      ),
    limit: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(10)
      .describe(
        'At most this many patterns (1 to 50, default 10): the best matches of query first, else the most supported.',
      ),
  })
  .describe('Find patterns learned from completed task episodes of this scope.');

/** `verify_history`: the hash chains of this scope's runs and ledger sessions. */
export const verifyHistoryInputSchema = z
  .strictObject({
    scope: scopeArgument,
    session_id: storedSessionIdSchema
      .optional()
      .describe(
        'Only this ledger session (a run or conversation id); every run is still verified.',
      ),
  })
  .describe("Verify that this scope's recorded history was not changed outside Episodic.");
