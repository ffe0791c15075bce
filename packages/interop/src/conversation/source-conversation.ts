import type {
  BoundaryPayload,
  EpisodeSource,
  InputItem,
  RunModelInfo,
  RuntimeInfo,
  TurnUsage,
} from '@episodic/core';

/** The transcript formats Episodic imports. */
export const IMPORT_FORMATS = ['claude-code', 'codex', 'openai'] as const;

/** A transcript format Episodic imports. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Where an entry came from in its source file. */
export interface SourceOrigin {
  /** The 1-based line of a JSONL source (absent for a JSON document). */
  readonly line?: number;
  /** The entry's own id in the source (Claude Code `uuid`, an OpenAI item `id`, …). */
  readonly id?: string;
}

/** Token counts of one model call, as the source reported them. */
export interface SourceTokenUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens?: number;
  input_cached_tokens?: number;
  input_cache_creation_tokens?: number;
}

/**
 * The model call an output item belongs to: items with the same `key` were one response. Parsers
 * may fill `usage` after the items (Codex reports it in a later `token_count` event).
 */
export interface SourceModelCall {
  /** Groups the items of one response (e.g. Claude's `message.id`). */
  readonly key: string;
  /** The model that answered. */
  model?: string;
  /** Token usage of the response. */
  usage?: SourceTokenUsage;
  /** Why the model stopped (`end_turn`, `tool_use`, `stop`, …). */
  stopReason?: string;
}

interface SourceEntryBase {
  /** When it happened (any date-time string; normalized to ISO 8601 UTC on import). */
  readonly ts?: string;
  readonly origin: SourceOrigin;
}

/** A model input item (message, tool call, tool output, reasoning or an unknown kind). */
export interface SourceItemEntry extends SourceEntryBase {
  readonly kind: 'item';
  readonly item: InputItem;
  /** Who produced it. */
  readonly source: EpisodeSource;
  /** Source fields the item could not hold, kept verbatim. */
  readonly raw?: Record<string, unknown>;
  /** For model output: the response it belongs to. */
  readonly call?: SourceModelCall;
  /** For a user message: true when a person typed it (not injected context). */
  readonly userInput?: boolean;
  /** For a tool output: true when the tool failed. */
  readonly isError?: boolean;
}

/** A boundary: a compaction checkpoint, a segment marker, an interrupt. */
export interface SourceBoundaryEntry extends SourceEntryBase {
  readonly kind: 'boundary';
  readonly payload: BoundaryPayload;
  readonly raw?: Record<string, unknown>;
}

/** Token usage of one model call, recorded as a `turn.usage` meta episode. */
export interface SourceUsageEntry extends SourceEntryBase {
  readonly kind: 'usage';
  readonly usage: TurnUsage;
  readonly raw?: Record<string, unknown>;
}

/** A source entry Episodic has no place for: kept whole as an `import.raw` meta episode. */
export interface SourceRawEntry extends SourceEntryBase {
  readonly kind: 'raw';
  /** Why it was not mapped, e.g. `abandoned branch` or `event_msg agent_message`. */
  readonly reason: string;
  readonly entry: unknown;
  /**
   * True for an entry the format writes with no model meaning (progress, file snapshots, runtime
   * events): expected as raw data. Other raw entries (an abandoned branch, a message without
   * content) are messages the import could not map; a file made mostly of them gets a warning.
   */
  readonly routine?: boolean;
}

/** One entry of a conversation, in source order. */
export type SourceEntry = SourceItemEntry | SourceBoundaryEntry | SourceUsageEntry | SourceRawEntry;

/** A conversation as a format parser reads it, before it becomes Episodic data. */
export interface SourceConversation {
  readonly format: ImportFormat;
  /** A stable key of the conversation in its source; every derived id starts from it. */
  readonly key: string;
  /** A human title (a Claude Code summary, a Codex thread name). */
  readonly title?: string;
  /** The agent that wrote the transcript, as a run header's `server`. */
  readonly agent?: { readonly name: string; readonly version?: string };
  /** The model, as a run header's `model`. */
  readonly model?: RunModelInfo;
  /** The environment, as a run header's `runtime`. */
  readonly runtime?: RuntimeInfo;
  /** Instructions the model received outside the messages (Codex `base_instructions`). */
  readonly systemPrompt?: string;
  /**
   * The key of the conversation that started this one (a Claude Code sub-agent's session): the
   * import names that session's id in `context.import.parent_session_id`.
   */
  readonly parentKey?: string;
  /** Facts about the source kept in the session context (its ids, cwd, branch, file). */
  readonly context: Readonly<Record<string, unknown>>;
  readonly entries: readonly SourceEntry[];
}

/** A line or document that could not be read; the rest of the source is still imported. */
export interface ImportProblem {
  /** The file or label the text came from, when known. */
  readonly source?: string;
  /** The 1-based line (JSONL sources). */
  readonly line?: number;
  readonly message: string;
}
