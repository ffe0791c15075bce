import {
  addStepInputSchema,
  completeTaskInputSchema,
  createTaskInputSchema,
  deleteTaskInputSchema,
  taskIdInputSchema,
  taskTimelineInputSchema,
} from '@episodic/core/schemas';
import type { z } from 'zod';
import {
  listRunsInputSchema,
  memoryEpisodesQueryInputSchema,
  replaySessionInputSchema,
  searchHistoryInputSchema,
  searchPatternsInputSchema,
  searchRunsInputSchema,
  verifyHistoryInputSchema,
} from './history-schemas.js';

/** The names of the tools the server exposes (the seed 004 names, then the history tools). */
export const EPISODIC_TOOL_NAMES = [
  'create_episode',
  'add_episode_step',
  'complete_episode',
  'get_episode',
  'get_episode_timeline',
  'delete_episode',
  'memory_episodes_query',
  'replay_session',
  'list_runs',
  'search_patterns',
  'search_history',
  'search_runs',
  'verify_history',
] as const;

/** The name of one of the server's tools. */
export type EpisodicToolName = (typeof EPISODIC_TOOL_NAMES)[number];

/** MCP tool annotations (hints for clients; the server enforces its rules regardless). */
export interface EpisodicToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** How a tool is described to clients. */
export interface EpisodicToolDefinition {
  /** The tool name. */
  readonly name: EpisodicToolName;
  /** A short human title. */
  readonly title: string;
  /** What the tool does and how to call it, written for a model. */
  readonly description: string;
  /** The advertised input schema (JSON Schema is generated from it for `tools/list`). */
  readonly inputSchema: z.ZodType;
  /**
   * The schema arguments are validated with inside the handler. Usually `inputSchema`;
   * `delete_episode` accepts a missing `confirm` so that it is answered `CONFIRMATION_REQUIRED`.
   */
  readonly acceptSchema: z.ZodType;
  readonly annotations: EpisodicToolAnnotations;
}

const annotations = (
  title: string,
  kind: 'read' | 'write' | 'delete',
  idempotent: boolean,
): EpisodicToolAnnotations => ({
  title,
  readOnlyHint: kind === 'read',
  destructiveHint: kind === 'delete',
  idempotentHint: idempotent,
  openWorldHint: false,
});

function define(
  name: EpisodicToolName,
  title: string,
  kind: 'read' | 'write' | 'delete',
  description: string,
  inputSchema: z.ZodType,
  acceptSchema: z.ZodType = inputSchema,
): EpisodicToolDefinition {
  return {
    name,
    title,
    description,
    inputSchema,
    acceptSchema,
    annotations: annotations(title, kind, kind !== 'write'),
  };
}

/** The thirteen tools, in the order `tools/list` shows them. */
export const EPISODIC_TOOL_DEFINITIONS: readonly EpisodicToolDefinition[] = [
  define(
    'create_episode',
    'Create task episode',
    'write',
    'Start tracking a task as an episode. Call it once when a task begins. Returns episode_id: pass it to add_episode_step after each meaningful action, then to complete_episode when the task ends. Errors come back as JSON {"error", "code"}.',
    createTaskInputSchema,
  ),
  define(
    'add_episode_step',
    'Add step',
    'write',
    'Record one step of a running task episode: the tool or component used, the action taken and, when known, its result and latency. step_number starts at 1 and must increase. Steps are stored immediately. A completed episode accepts no more steps (CONFLICT).',
    addStepInputSchema,
  ),
  define(
    'complete_episode',
    'Complete task episode',
    'write',
    'Finish a task episode with its outcome. outcome_type "success" needs verdict; "partial_success" needs verdict, completed and failed; "failure" needs reason. Completion computes the reward, a reflection and reusable patterns (see search_patterns). It can be called once per episode (CONFLICT afterwards).',
    completeTaskInputSchema,
  ),
  define(
    'get_episode',
    'Get task episode',
    'read',
    'Read a task episode: its description, context, steps, outcome, reflection, reward (reward_score from 0 to 1) and extracted patterns. Long values may be shortened (then "truncated": true).',
    taskIdInputSchema,
  ),
  define(
    'get_episode_timeline',
    'Get task timeline',
    'read',
    'Read the steps of a task episode in order, each with its tool, action, result_type (success, error, timeout or pending) and latency, plus the duration and outcome once the episode is completed. Give offset and limit to read one page of a long timeline; next_offset says where the next page starts (null on the last page).',
    taskTimelineInputSchema,
  ),
  define(
    'delete_episode',
    'Delete task episode',
    'delete',
    'Permanently delete a task episode and the learned artifacts that no other episode supports. Requires "confirm": true; without it nothing is deleted (CONFIRMATION_REQUIRED). This cannot be undone.',
    deleteTaskInputSchema,
    deleteTaskInputSchema.partial({ confirm: true }),
  ),
  define(
    'memory_episodes_query',
    'Query ledger events',
    'read',
    'Query the event ledger of this scope (conversation, tool and ops events), oldest first. Filter by sessionId, time range (fromTs, toTs), types and metadata. Returns summaries, refs and metadata; payloads only with includePayload: true. When next_after_id is not null, call again with afterId set to it for the next page.',
    memoryEpisodesQueryInputSchema,
  ),
  define(
    'replay_session',
    'Replay session',
    'read',
    'Replay one session of this scope in order. source "ledger" (default) returns its ledger events page by page (continue with after_id = next_after_id); source "runs" returns its recorded runs as UI events (run inputs, then agent events in order).',
    replaySessionInputSchema,
  ),
  define(
    'list_runs',
    'List runs',
    'read',
    'List the recorded runs of this scope, newest first: task episodes and other agent runs, with their session, start time, status and (for tasks) description. Filter by session_id and time; tasks_only: true lists task episodes only.',
    listRunsInputSchema,
  ),
  define(
    'search_patterns',
    'Search patterns',
    'read',
    'Find patterns learned from completed task episodes of this scope (tool sequences, decision points, error recoveries, recommended tools per context) that fit a task context: domain, task_type, language, framework, tags. Optionally filter by the metadata of the source episodes. Most supported patterns first.',
    searchPatternsInputSchema,
  ),
  define(
    'search_history',
    'Search history',
    'read',
    'Search the event ledger of this scope (conversation, tool and ops events) by the words of their summaries, payloads and refs: every word and "quoted phrase" of query must match. Best matches first, each with a snippet whose matched words are marked «like this». Filter by session_id, agent_id, types and time (since, until). When next_cursor is not null, call again with cursor set to it for the next page. Read a hit in context with replay_session.',
    searchHistoryInputSchema,
  ),
  define(
    'search_runs',
    'Search runs',
    'read',
    'Search the recorded runs and task episodes of this scope by the words of their records: run inputs, model answers and tool calls, tool outputs, task steps and completions (reflections, patterns), statuses, errors and final answers. Every word and "quoted phrase" of query must match. Best matches first, each hit naming run_id, the record\'s position in the run (the header is 1), its type and time, and a snippet whose matched words are marked «like this». Filter by run_id, session_id, types and time (since, until). When next_cursor is not null, call again with cursor set to it for the next page. Read a task episode found with get_episode (episode_id = run_id).',
    searchRunsInputSchema,
  ),
  define(
    'verify_history',
    'Verify history',
    'read',
    "Check that this scope's recorded history was not changed outside Episodic: the hash chains of its runs and task episodes and of its ledger sessions, when the home chains them. Returns ok (false when an entry was altered, inserted, deleted or reordered), counts, and up to 100 findings naming the stream and the entry (file and line, or table and row); what Episodic itself redacted or collected is reported as information, not as an error. parts says which parts were verified or are not chained. Reads only.",
    verifyHistoryInputSchema,
  ),
];
