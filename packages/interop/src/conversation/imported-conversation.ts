import type { Episode, RunRecord, SessionState } from '@episodic/core';
import type { ImportFormat, ImportProblem } from './source-conversation.js';

/** One run of an imported conversation: a user turn and everything the agent did for it. */
export interface ImportedRun {
  /** The run id: a UUID derived from the source, the same on every import. */
  readonly runId: string;
  /** The run's records, header first (seed 001). */
  readonly records: readonly RunRecord[];
}

/** One conversation of a source, as Episodic data. Nothing is written until `saveImport`. */
export interface ImportedConversation {
  readonly format: ImportFormat;
  /** The conversation's key in its source (a Claude Code or Codex session id, …). */
  readonly sourceKey: string;
  /** The session id: a UUID derived from the source, the same on every import. */
  readonly sessionId: string;
  /** A human title, when the source has one. */
  readonly title?: string;
  /** The importer's `label` of the text it came from (its file), for receipts; never stored. */
  readonly label?: string;
  /** The session that started this one (a sub-agent's parent session), when the source says so. */
  readonly parentSessionId?: string;
  /** The session snapshot: the committed log as JSONL, its chat messages and the source context. */
  readonly state: SessionState;
  /** The log's episodes (what `state.episodic` holds), for the ledger projection. */
  readonly episodes: readonly Episode[];
  /** One run per user turn. */
  readonly runs: readonly ImportedRun[];
}

/** What an importer read from one source text. */
export interface ImportResult {
  readonly format: ImportFormat;
  readonly conversations: readonly ImportedConversation[];
  /** Damaged lines and entries that could not be read; everything else was imported. */
  readonly problems: readonly ImportProblem[];
  /**
   * Things imported that may not be what the source meant: a text most of whose message entries
   * ended up as `import.raw` data instead of messages, calls and outputs (a format version the
   * importer may not understand).
   */
  readonly warnings: readonly ImportProblem[];
}
