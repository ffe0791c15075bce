// The JSON the UI's API returns: the browser app imports these types (and nothing else) from here.

/** How a run ended, as the UI shows it. */
export type RunStatusName = 'completed' | 'failed' | 'cancelled' | 'running' | (string & {});

/** An error the API answers with (HTTP 4xx/5xx). */
export interface ApiError {
  error: { code: string; message: string };
}

/** `GET /api/overview`. */
export interface OverviewResponse {
  version: string;
  home: string;
  database: string;
  store: string;
  scopes: string[];
  /** The statuses the runs list filters by. */
  run_statuses: string[];
  /** The ledger's event types. */
  ledger_types: string[];
  /** The operators of seed 003's metadata filter language. */
  filter_operators: string[];
  /** Whether the home's ledger keeps a search index (`/api/search` works). */
  search: boolean;
  /** Whether the home's run store keeps a search index (`/api/search/runs` works). */
  run_search: boolean;
}

/** One run in a list. */
export interface RunListItem {
  run_id: string;
  session_id: string | null;
  started_at: string;
  model: string | null;
  status: RunStatusName;
  ended_at: string | null;
  bytes: number | null;
  best_effort: boolean;
  /** The run's first user input (or task description) on one line, cut with `…`; null without one. */
  title: string | null;
  /** Milliseconds from start to `run.end`; null while it has not ended. */
  duration_ms: number | null;
  /** Input tokens summed over the run's model responses; null when none reports usage. */
  input_tokens: number | null;
  /** Output tokens summed over the run's model responses; null when none reports usage. */
  output_tokens: number | null;
  /** How many model responses the run recorded. */
  model_responses: number;
}

/** `GET /api/runs`. */
export interface RunListResponse {
  runs: RunListItem[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
  /** Runs whose status was looked up for this page (a status filter scans past the page). */
  scanned: number;
  /** True when a status filter stopped scanning before the page was full (continue with next_cursor). */
  scan_limited: boolean;
  /** Runs that could not be listed (one per damaged run). */
  errors: Array<{ run_id: string | null; location: string; message: string }>;
}

/** One session in a list. */
export interface SessionListItem {
  session_id: string;
  updated_at: string;
  revision: number;
  last_run_id: string | null;
  message_count: number;
  /** The last user message, on one line, cut with `…`; null when there is none. */
  title: string | null;
  /** The latest activity: the last commit, or a later record of the last run. */
  last_activity_at: string;
  /** The last run's status (`failed` for a run that ended in error); null without a last run. */
  last_run_status: RunStatusName | null;
  /** The last run's model (`provider/name`); null when unknown. */
  model: string | null;
  /** Input tokens of the last run's model responses; null when unknown. */
  input_tokens: number | null;
  /** Output tokens of the last run's model responses; null when unknown. */
  output_tokens: number | null;
}

/** `GET /api/sessions`. */
export interface SessionListResponse {
  sessions: SessionListItem[];
  total: number;
  offset: number;
  next_offset: number | null;
}

/** One episode of a session, as the timeline shows it (long text cut; the full episode on demand). */
export interface TimelineEpisode {
  id: number;
  type: 'item' | 'boundary' | 'meta';
  /** `message`, `function_call`, … for an item; the reason for a boundary; the event for a meta. */
  kind: string;
  source: string;
  ts: string | null;
  turn_id: string | null;
  /** A one-line description: role and text, call and arguments, boundary title… */
  text: string;
  /** True when `text` was cut (open the episode for all of it). */
  cut: boolean;
  /** For a checkpoint boundary: the episodes its summary covers. */
  covers: { from_id: number; to_id: number } | null;
  /** For a call or an output: its call id. */
  call_id: string | null;
  /**
   * How the timeline folds it: `usage` (a `turn.usage` record, summed into its turn's header),
   * `raw` (an entry an import kept verbatim, behind a toggle), `meta` (other bookkeeping, behind
   * the same toggle); null for an episode shown in line.
   */
  fold: 'usage' | 'raw' | 'meta' | null;
  /** True when it could have been in a model input (an item, or a checkpoint, interrupt or overflow boundary). */
  could_be_sent: boolean;
}

/** A turn: consecutive episodes with one turn id. */
export interface TimelineTurn {
  turn_id: string | null;
  first_id: number;
  last_id: number;
  started_at: string | null;
  /**
   * The run that committed this turn: as the session records it (`episode_runs` and the
   * deltas' `run_id`), or matched by time for episodes it keeps no run of (committed without a
   * run id, or folded by an Episodic before `episode_runs`). Null when unknown.
   */
  run_id: string | null;
  /** Tokens of the turn's `turn.usage` records on this page, summed; null when it has none. */
  usage: { input_tokens: number; output_tokens: number; records: number } | null;
}

/** A run of the session and what became of it. */
export interface TimelineRun {
  run_id: string;
  started_at: string;
  ended_at: string | null;
  status: RunStatusName;
  /**
   * The episodes the run committed: exactly as the session's commit recorded them, or, for a
   * commit without that record, the episodes written while the run ran. Null when none.
   */
  committed: { first_id: number; last_id: number } | null;
  /** True for a failed or cancelled run none of whose work is in the session (a failed turn). */
  failed_turn: boolean;
  error: string | null;
}

/** Another session that shares history with this one. */
export interface SessionRelative {
  session_id: string;
  /** The last episode both logs share. */
  shared_to_id: number;
  /** `fork`: it forked from this session; `parent`: this session forked from it; `sibling`: both went on. */
  relation: 'fork' | 'parent' | 'sibling';
}

/** `GET /api/sessions/:id`. */
export interface SessionTimelineResponse {
  session_id: string;
  revision: number;
  updated_at: string;
  last_run_id: string | null;
  context: unknown;
  /**
   * The session this one is a sub-agent of: an imported sub-agent transcript or sidechain names
   * its parent in `context.import.parent_session_id`. `null` for any other session.
   */
  parent_session_id: string | null;
  /**
   * The format an imported session came from (`context.import.format`, e.g. `codex`); null for a
   * session recorded live. An import records no model inputs, so no episode can be explained.
   */
  imported_from: string | null;
  episode_count: number;
  last_id: number;
  /** This page of episodes: ids after `from`, at most `limit`. */
  from: number;
  next_from: number | null;
  episodes: TimelineEpisode[];
  turns: TimelineTurn[];
  boundaries: TimelineEpisode[];
  /**
   * The runs the session names (its commits' `run_id`s), oldest first: only their headers are
   * read. Failed turns and runs still going are not named by the session: they are in
   * `GET /api/sessions/:id/runs`.
   */
  runs: TimelineRun[];
}

/** `GET /api/sessions/:id/runs`. */
export interface SessionRunsResponse {
  session_id: string;
  /** Every run of the session (the newest 500), oldest first: those it names, and those whose header names it. */
  runs: TimelineRun[];
  /** How many runs the session has (more than `runs` holds when over 500). */
  total: number;
}

/** `GET /api/sessions/:id/relatives`. */
export interface SessionRelativesResponse {
  session_id: string;
  relatives: SessionRelative[];
}

/** A record of a run, summarized. */
export interface RunRecordItem {
  /** 0-based position among the run's readable records. */
  index: number;
  type: string;
  ts: string | null;
  seq: number | null;
  /** One line for a person. */
  summary: string;
  /** True for an error: `run.error`, a failed tool output, an `error` outcome or event. */
  error: boolean;
  /** For a tool call or output: the call id, and the index of its partner (null when it has none). */
  call: { id: string; tool: string | null; partner_index: number | null } | null;
  /**
   * For a tool output: its length and text. A long output is collapsed to its head and tail
   * (`collapsed`); the full text comes from the tool-output cache on demand.
   */
  output: { chars: number; head: string; tail: string; collapsed: boolean } | null;
}

/** A tool call with its output. */
export interface ToolCallPair {
  call_id: string;
  tool: string;
  arguments: string | null;
  call_index: number | null;
  output_index: number | null;
  is_error: boolean;
  output_chars: number | null;
  /** From the call to the output. */
  duration_ms: number | null;
  /** Where the output's full text is kept (the tool-output cache id), when it is. */
  cache_id: string | null;
}

/** `GET /api/runs/:id`. */
export interface RunViewResponse {
  run_id: string;
  header: Record<string, unknown> | null;
  session_id: string | null;
  status: RunStatusName;
  ended: boolean;
  best_effort: string | null;
  record_count: number;
  /** The run's position when it was read (records and damaged lines): where live updates start. */
  position: number;
  /** The run's task episode id when the run is one. */
  task: boolean;
  errors: Array<{ line: number | null; message: string; excerpt: string }>;
  tool_calls: ToolCallPair[];
  model_inputs: number;
  from: number;
  next_from: number | null;
  records: RunRecordItem[];
  /**
   * With `at` (a run position, as run search hits name them): the index of that record in
   * `records`' numbering (the page was chosen to hold it), or null when the position is a damaged
   * line or beyond the run's end.
   */
  at_index: number | null;
}

/** One `records` event of `GET /api/runs/:id/live`: what the run wrote since the last one. */
export interface LiveBatch {
  records: RunRecordItem[];
  /** Damaged lines met since the last batch. */
  damaged: number;
  ended: boolean;
  /** The run's position after this batch. */
  position: number;
}

/** `GET /api/runs/:id/records/:index`: one record in full. */
export interface RunRecordResponse {
  index: number;
  record: unknown;
}

/** `GET /api/runs/:id/tool-outputs/:callId`. */
export interface ToolOutputResponse {
  call_id: string;
  /** `cache` when read from the tool-output cache, `record` when from the run record itself. */
  source: 'cache' | 'record';
  text: string;
}

/** One message of a model input. */
export interface InputMessage {
  role: string;
  text: string;
  cut: boolean;
  chars: number;
  tool_calls: string[];
  tool_call_id: string | null;
}

/** A drop reason with its count (and the episode ids when the manifest lists them). */
export interface ManifestDrop {
  reason: string;
  count: number;
  episode_ids: number[];
}

/** What the recorded manifest says about one model input. */
export interface ManifestView {
  /** `full`: core's AssemblyManifest; `summary`: a compact summary; `none`: nothing recorded. */
  form: 'full' | 'summary' | 'none';
  start_id: number | null;
  start: string | null;
  start_description: string | null;
  item_count: number | null;
  estimated_tokens: number | null;
  budget: { limit: number; last_input_tokens: number | null; exceeded: boolean } | null;
  dropped: ManifestDrop[];
  notes: Array<{ episode_id: number | null; kind: string; detail: string }>;
}

/** One model input (an `llm.request`). */
export interface ModelInput {
  index: number;
  seq: number | null;
  ts: string | null;
  turn_id: string | null;
  round: number | null;
  model: string | null;
  messages: InputMessage[];
  manifest: ManifestView;
  /** With `?episode=N`: what happened to episode N in this input. */
  explanation: string | null;
  /** The answer's usage, when the matching `llm.response` has one. */
  usage: { input_tokens: number; output_tokens: number } | null;
}

/** `GET /api/runs/:id/inputs`. */
export interface ModelInputsResponse {
  run_id: string;
  session_id: string | null;
  episode: number | null;
  inputs: ModelInput[];
  /** Model responses the run recorded (`llm.response`): an import has responses but no inputs. */
  model_responses: number;
  /**
   * The format of the transcript the run was imported from (its header's `meta.import.format`);
   * null for a run recorded live. Imports do not record what was sent to the model.
   */
  imported_from: string | null;
}

/** One step of a task episode. */
export interface TaskStepView {
  step_number: number;
  timestamp: string;
  tool: string;
  action: string;
  result_type: string;
  latency_ms: number | null;
  detail: string | null;
}

/** A learned pattern and where it came from. */
export interface PatternView {
  key: string;
  type: string | null;
  description: string;
  episodes: string[];
  effective_metadata: Record<string, unknown[]>;
}

/** `GET /api/tasks/:id`. */
export interface TaskViewResponse {
  episode_id: string;
  scope: string | null;
  session_id: string | null;
  description: string;
  task_type: string;
  context: Record<string, unknown>;
  start_time: string;
  end_time: string | null;
  duration_seconds: number | null;
  outcome: { type: string; text: string } | null;
  reward: {
    score: number;
    total: number;
    factors: Array<{ name: string; value: number; role: 'multiplier' | 'bonus' | 'base' }>;
  } | null;
  reflection: { successes: string[]; improvements: string[]; insights: string[] } | null;
  steps: TaskStepView[];
  patterns: PatternView[];
}

/** A completed task episode in a list (from its reflection). */
export interface TaskListItem {
  episode_id: string;
  outcome: string;
  reward_score: number | null;
  updated_at: string;
}

/** `GET /api/tasks`. */
export interface TaskListResponse {
  tasks: TaskListItem[];
  next_cursor: string | null;
}

/** A ledger event as the explorer lists it. */
export interface LedgerRow {
  event_id: string;
  ts_ms: number;
  scope: string;
  session_id: string;
  agent_id: string;
  type: string;
  summary: string;
  redacted: boolean;
  position: number;
  refs: unknown;
  metadata: unknown;
}

/** `GET /api/ledger`. */
export interface LedgerPageResponse {
  scope: string | null;
  events: LedgerRow[];
  next_cursor: string | null;
  /** Events read to fill the page (an agent filter reads past events of other agents). */
  scanned: number;
  scan_limited: boolean;
}

/** One hit of `GET /api/search` (core's `SearchHit`). */
export interface SearchHitRow {
  event_id: string;
  session_id: string;
  agent_id: string;
  type: string;
  ts_ms: number;
  /** Higher is better; comparable within one search only. */
  score: number;
  /** The event's text around the matches: each match between `«` and `»`, cut text as `…`. */
  snippet: string;
}

/** `GET /api/search`. */
export interface SearchPageResponse {
  scope: string | null;
  query: string;
  hits: SearchHitRow[];
  next_cursor: string | null;
}

/** One run record a run search found. */
export interface RunSearchHitRow {
  run_id: string;
  /** The record's place in its run, counted as run positions are (the header is 1). */
  position: number;
  type: string;
  /** The record's time (ISO 8601), or null when it has none. */
  ts: string | null;
  /** Higher is better; comparable within one search only. */
  score: number;
  /** The record's text around the matches: each match between `«` and `»`, cut text as `…`. */
  snippet: string;
}

/** `GET /api/search/runs`. */
export interface RunSearchPageResponse {
  query: string;
  hits: RunSearchHitRow[];
  next_cursor: string | null;
}

/** What a chain badge says about one stream (docs/design/verify.md 4.5). */
export type ChainBadgeStatus = 'verified' | 'not-chained' | 'findings';

/** `GET /api/runs/:id/verify` and `GET /api/ledger/verify`: the chain status of one stream. */
export interface ChainBadgeResponse {
  status: ChainBadgeStatus;
  /** The badge's words: `verified`, `verified from entry 58`, `redacted 2×`, `not chained`, `2 errors`. */
  label: string;
  /** The worst severity found (null when nothing was found or nothing is chained). */
  severity: 'error' | 'warning' | 'info' | null;
  /** How many entries were verified. */
  entries: number;
  /** Findings by kind (only kinds that occurred). */
  counts: Record<string, number>;
  /** The first finding as a sentence (the error first when there is one); null without findings. */
  first: string | null;
  /** Why nothing was verified (not chained), or other notes. */
  notes: string[];
}

/** `GET /api/ledger/:eventId`: one event with its payload. */
export interface LedgerEventResponse {
  event: LedgerRow & { payload: unknown };
}

/** An associated episode of an artifact, and whether it satisfies the filter. */
export interface ArtifactEpisodeView {
  ref: string;
  metadata: unknown;
  matched: boolean | null;
}

/** An artifact as the explorer lists it. */
export interface ArtifactView {
  key: string;
  kind: string;
  created_at: string;
  updated_at: string;
  content: unknown;
  effective_metadata: Record<string, unknown[]>;
  episodes: ArtifactEpisodeView[];
  /** More associated episodes than listed (the first 20 are shown). */
  more_episodes: number;
}

/** `GET /api/artifacts`. */
export interface ArtifactPageResponse {
  filter: unknown;
  artifacts: ArtifactView[];
  next_cursor: string | null;
}
