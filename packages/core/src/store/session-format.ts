import { EpisodicError } from '../errors/episodic-error.js';
import { lastUserMessage } from '../messages/last-user-message.js';
import {
  type EpisodeRunRange,
  SESSION_STATE_SCHEMA_VERSION,
  type SessionDelta,
  type SessionState,
  sessionDeltaSchema,
  sessionStateSchema,
} from '../schema/session-state.js';
import { parseStoredJson } from '../util/json.js';
import { addEpisodeRun } from './episode-runs.js';

/**
 * How a session is stored (schema_version 2): a **base** snapshot, a complete state as of its
 * revision, plus an append-only list of **deltas**, one line each, for the commits since.
 *
 * The base is one JSON document, so any reader of seed 001's `SessionState` reads it (as of its
 * revision), written one episode per line so a loader can stream it and stop before `messages`:
 *
 * ```text
 * {"schema_version":2,"session_id":…,"updated_at":…,"revision":7,…,"episodes":[
 * {"id":1,"type":"item",…},
 * …
 * {"id":44,"type":"item",…}
 * ],"messages":[
 * {"role":"user","content":…},
 * …
 * ]}
 * ```
 *
 * A delta line is a `SessionDelta`: `{"revision":8,"updated_at":…,"episodes":[…],…}`. A loader
 * applies, after the base, the deltas whose revision is above the base's, which must follow it
 * without a gap; deltas at or below it are ones a fold already covered (a crash can leave them
 * between writing the new base and dropping them). A damaged last delta line is a commit that was
 * never acknowledged (its writer died mid-write) and is ignored; damage anywhere else is
 * `CORRUPT_DATA`. Version 1 bases (one JSON line, the log as JSONL in `episodic`) and seed 001
 * snapshots (only `messages`) load the same way.
 */

/** Ends the first line of a version 2 base: what follows, one line each, are the episodes. */
const EPISODES_OPEN = ',"episodes":[';
/** The line that ends the episodes and opens the messages. */
export const MESSAGES_OPEN = '],"messages":[';
/** The last line of a version 2 base (after its messages). */
export const BASE_CLOSE = ']}';

/**
 * A version 2 base by section: its first line, then its episodes and its messages, each line
 * encoded when it is asked for (a store that keeps the rows a new base shares with the stored one
 * encodes only the others). `encodeSessionBase` gives the same lines, in full.
 */
export interface SessionBaseLayout {
  /** The first line: the state without its log and messages, ending with `,"episodes":[`. */
  readonly head: string;
  /** Episodes in the base. */
  readonly episodeCount: number;
  /** Episode `index`'s line, with the comma that follows it unless it is the last. */
  episodeLine(index: number): string;
  /** Seed 001 messages in the base. */
  readonly messageCount: number;
  /** Message `index`'s line, with the comma that follows it unless it is the last. */
  messageLine(index: number): string;
}

/** The layout of a version 2 state (one with `episodes`). */
export function sessionBaseLayout(
  state: SessionState & { episodes: readonly unknown[] },
): SessionBaseLayout {
  const { episodes, messages, ...rest } = state;
  // The counts and seed 001's last user message let `list()` summarize a session from the base's
  // first line alone.
  const lastUser = lastUserMessage(messages);
  const headText = JSON.stringify({
    ...rest,
    episode_count: episodes.length,
    message_count: messages.length,
    ...(lastUser === undefined ? {} : { last_user_message: lastUser }),
  });
  const element = (values: readonly unknown[], index: number) => {
    const text = JSON.stringify(values[index]);
    return index === values.length - 1 ? text : `${text},`;
  };
  return {
    head: `${headText.slice(0, -1)}${EPISODES_OPEN}`,
    episodeCount: episodes.length,
    episodeLine: (index) => element(episodes, index),
    messageCount: messages.length,
    messageLine: (index) => element(messages, index),
  };
}

/**
 * The lines of a base (without newlines; join them with `\n`). A version 2 state (with
 * `episodes`) is written in the streamable layout above; any other state (version 1, seed 001)
 * as one JSON line, exactly as given.
 */
export function encodeSessionBase(state: SessionState): string[] {
  if (state.episodes === undefined) return [JSON.stringify(state)];
  const layout = sessionBaseLayout(state as SessionState & { episodes: unknown[] });
  const { episodeCount, messageCount } = layout;
  const lines: string[] = new Array(episodeCount + messageCount + 3);
  let index = 0;
  lines[index++] = layout.head;
  for (let at = 0; at < episodeCount; at++) lines[index++] = layout.episodeLine(at);
  lines[index++] = MESSAGES_OPEN;
  for (let at = 0; at < messageCount; at++) lines[index++] = layout.messageLine(at);
  lines[index] = BASE_CLOSE;
  return lines;
}

/** One delta as its stored line (without the newline). */
export function encodeSessionDelta(delta: SessionDelta): string {
  return JSON.stringify(delta);
}

/** A session state without its log and messages: what a base's first line holds. */
export interface SessionHead {
  [key: string]: unknown;
  schema_version: number;
  session_id: string;
  updated_at: string;
  run_id?: string | undefined;
  invoke_seq?: number | undefined;
  meta?: Record<string, unknown> | undefined;
  context?: Record<string, unknown> | undefined;
  revision?: number | undefined;
  episode_runs?: EpisodeRunRange[] | undefined;
}

/** What a base holds, read as far as a loader needs. */
export interface DecodedSessionBase {
  /** The state without its log and messages (`episodes`, `episodic`, `messages` removed). */
  head: SessionHead;
  /** The log: parsed episodes (version 2), JSONL (version 1), or null (a seed 001 snapshot). */
  log: { episodes: unknown[] } | { jsonl: string } | null;
  /**
   * The base's seed 001 `messages`: always when the base was read whole, for a streamed version 2
   * base only when asked for (`readMessages`). A seed 001 snapshot's log is rebuilt from them.
   */
  messages: SessionState['messages'] | null;
  /** The whole state, when the base was read whole (version 1, seed 001, or not streamable). */
  whole: SessionState | null;
}

/**
 * A version 2 base without the summary fields `encodeSessionBase` adds (`episode_count`,
 * `message_count`, `last_user_message`): they are derived from its log, for `list()` alone, so a
 * loaded state is exactly the state that was saved.
 */
function withoutSummary<State extends SessionState>(state: State): State {
  const {
    episode_count: _episodes,
    message_count: _messages,
    last_user_message: _lastUser,
    ...rest
  } = state;
  return rest as State;
}

function corrupt(sessionId: string, what: string): EpisodicError {
  return new EpisodicError({
    code: 'CORRUPT_DATA',
    message: `The stored snapshot of session ${sessionId} cannot be read: ${what}. Restore it from a backup or an export, or delete the session.`,
    details: { sessionId, reason: what },
  });
}

function checkedState(sessionId: string, value: unknown): SessionState {
  const checked = sessionStateSchema.safeParse(value);
  if (!checked.success) {
    const [issue] = checked.error.issues;
    throw corrupt(
      sessionId,
      `it is not a session snapshot (${issue?.path.join('.') || 'root'}: ${issue?.message})`,
    );
  }
  if (checked.data.session_id.toLowerCase() !== sessionId) {
    throw corrupt(sessionId, `it holds session ${checked.data.session_id}`);
  }
  return checked.data;
}

/**
 * Reads a base from its lines. A version 2 base is streamed: its episodes are parsed one line
 * each and, unless `readMessages`, reading stops at its messages (`lines` is left unfinished, so a
 * file store never reads them). Anything else is parsed as one JSON document. Throws
 * `CORRUPT_DATA`.
 */
export function decodeSessionBase(
  sessionId: string,
  lines: Iterable<string>,
  readMessages = false,
): DecodedSessionBase {
  const iterator = lines[Symbol.iterator]();
  try {
    const first = iterator.next();
    if (first.done === true) throw corrupt(sessionId, 'the file is empty');
    let firstLine = first.value;
    if (firstLine.charCodeAt(0) === 0xfeff) firstLine = firstLine.slice(1);
    if (firstLine.endsWith(EPISODES_OPEN)) {
      const parsedHead = parseStoredJson(`${firstLine.slice(0, -EPISODES_OPEN.length)}}`);
      if (!parsedHead.success)
        throw corrupt(sessionId, `its first line is not JSON (${parsedHead.error})`);
      const episodes: unknown[] = [];
      for (let next = iterator.next(); ; next = iterator.next()) {
        if (next.done === true) throw corrupt(sessionId, 'it ends inside its episodes (cut short)');
        const line = next.value;
        if (line === MESSAGES_OPEN || line.startsWith('],')) break;
        const text = line.endsWith(',') ? line.slice(0, -1) : line;
        const parsed = parseStoredJson(text);
        if (!parsed.success) {
          throw corrupt(sessionId, `episode ${episodes.length + 1} is not JSON (${parsed.error})`);
        }
        episodes.push(parsed.value);
      }
      const head = checkedState(sessionId, { ...(parsedHead.value as object), messages: [] });
      const {
        messages: _messages,
        episodes: _episodes,
        episodic: _episodic,
        ...rest
      } = withoutSummary(head);
      const messages = readMessages ? readMessageLines(sessionId, iterator) : null;
      return { head: rest, log: { episodes }, messages, whole: null };
    }
    // Not streamable: version 1, seed 001, or a version 2 base another tool reformatted.
    const text = [firstLine, ...collect(iterator)].join('\n');
    if (text.trim() === '') throw corrupt(sessionId, 'the file is empty');
    const parsed = parseStoredJson(text);
    if (!parsed.success) throw corrupt(sessionId, `it is not valid JSON (${parsed.error})`);
    const state = checkedState(sessionId, parsed.value);
    // A version 2 base read whole (another tool reformatted it) loses its summary too.
    const whole = state.episodes === undefined ? state : withoutSummary(state);
    const { messages, episodes, episodic, ...rest } = whole;
    const log =
      episodes !== undefined
        ? { episodes }
        : typeof episodic === 'string'
          ? { jsonl: episodic }
          : null;
    return { head: rest, log, messages, whole };
  } finally {
    iterator.return?.();
  }
}

/** The message lines of a streamed base, up to its closing line. */
function readMessageLines(sessionId: string, iterator: Iterator<string>): SessionState['messages'] {
  const messages: SessionState['messages'] = [];
  for (let next = iterator.next(); ; next = iterator.next()) {
    if (next.done === true) throw corrupt(sessionId, 'it ends inside its messages (cut short)');
    const line = next.value;
    if (line === BASE_CLOSE) return messages;
    const parsed = parseStoredJson(line.endsWith(',') ? line.slice(0, -1) : line);
    if (!parsed.success) {
      throw corrupt(sessionId, `message ${messages.length + 1} is not JSON (${parsed.error})`);
    }
    messages.push(parsed.value as SessionState['messages'][number]);
  }
}

function collect(iterator: Iterator<string>): string[] {
  const rest: string[] = [];
  for (let next = iterator.next(); next.done !== true; next = iterator.next())
    rest.push(next.value);
  return rest;
}

/** The revision a base head records (0 when it predates revisions). */
export function baseRevisionOf(head: SessionHead): number {
  return head.revision ?? 0;
}

/**
 * The deltas that apply after a base at `baseRevision`, from the stored lines in order: those at
 * or below it are skipped (a fold covered them), the rest must follow it without a gap. A damaged
 * or gapped last line is a commit that never completed and is ignored; damage before it is
 * `CORRUPT_DATA`.
 */
export function decodeSessionDeltas(
  sessionId: string,
  lines: Iterable<string>,
  baseRevision: number,
): SessionDelta[] {
  const deltas: SessionDelta[] = [];
  let pending: string | null = null;
  let lineNumber = 0;
  let revision = baseRevision;
  for (const raw of lines) {
    lineNumber++;
    if (raw.trim() === '') continue;
    if (pending !== null) throw corrupt(sessionId, pending);
    const parsed = parseStoredJson(raw);
    const checked = parsed.success ? sessionDeltaSchema.safeParse(parsed.value) : null;
    if (checked === null || !checked.success) {
      pending = `delta line ${lineNumber} is damaged`;
      continue;
    }
    const delta = checked.data;
    if (delta.revision <= baseRevision) continue;
    if (delta.revision !== revision + 1) {
      pending = `delta line ${lineNumber} has revision ${delta.revision} where ${revision + 1} was due`;
      continue;
    }
    revision = delta.revision;
    deltas.push(delta);
  }
  return deltas;
}

/**
 * The state a session's last commit left, from its base head and deltas: the latest
 * `updated_at`, `revision`, `run_id`, `invoke_seq` and `context`, the base's `episode_runs` with
 * each commit's run added (`addEpisodeRun`), and every other head field kept.
 */
export function applyDeltaFields(head: SessionHead, deltas: readonly SessionDelta[]): SessionHead {
  if (deltas.length === 0) return head;
  const next: Record<string, unknown> = { ...head };
  const runs = [...(head.episode_runs ?? [])];
  for (const delta of deltas) {
    next.revision = delta.revision;
    next.updated_at = delta.updated_at;
    if (delta.run_id !== undefined) next.run_id = delta.run_id;
    if (delta.invoke_seq !== undefined) next.invoke_seq = delta.invoke_seq;
    if (delta.context !== undefined) next.context = delta.context;
    addEpisodeRun(runs, delta);
  }
  // The runs of the base's episodes and of every commit since, as a fold writes them.
  if (runs.length > 0) next.episode_runs = runs;
  else delete next.episode_runs;
  next.schema_version = SESSION_STATE_SCHEMA_VERSION;
  return next as SessionHead;
}

/**
 * The lines of a base a store keeps as one text (its lines joined by `\n`), split lazily: a loader
 * stops at the messages, so the rest of a large base is never split.
 */
export function textLines(text: string): Iterable<string> {
  return {
    *[Symbol.iterator]() {
      let start = 0;
      while (start < text.length) {
        let end = text.indexOf('\n', start);
        if (end === -1) end = text.length;
        yield text.slice(start, end);
        start = end + 1;
      }
    },
  };
}

/** The summary a table store keeps beside each base (`summarizeSession` of its first line). */
export interface SessionSummaryColumns {
  sessionId: string;
  /** The base's revision. */
  revision: number;
  updatedAt: string;
  runId: string | null;
  messageCount: number;
  episodeCount: number | null;
  lastUserMessage: string | null;
}

/**
 * A first line standing in for a base, built from its summary columns: what a table store's
 * `list()` hands core (`StoredSessionHead.base`), so listing never reads a base.
 */
export function summaryBaseLine(columns: SessionSummaryColumns): string {
  return JSON.stringify({
    schema_version: SESSION_STATE_SCHEMA_VERSION,
    session_id: columns.sessionId,
    updated_at: columns.updatedAt,
    revision: columns.revision,
    ...(columns.runId === null ? {} : { run_id: columns.runId }),
    message_count: columns.messageCount,
    ...(columns.episodeCount === null ? {} : { episode_count: columns.episodeCount }),
    ...(columns.lastUserMessage === null ? {} : { last_user_message: columns.lastUserMessage }),
    messages: [],
  });
}
