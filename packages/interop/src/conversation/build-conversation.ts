import {
  createEpisodic,
  type Episode,
  type EpisodeMeta,
  EpisodicError,
  type SessionState,
} from '@episodic/core';
import { snapshotMessages } from '@episodic/core/adapter';
import { inputItemSchema, SESSION_STATE_SCHEMA_VERSION } from '@episodic/core/schemas';
import { derivedUuid } from './derived-uuid.js';
import type { ImportedConversation, ImportedRun } from './imported-conversation.js';
import type { ImportProblem, SourceConversation, SourceEntry } from './source-conversation.js';
import { buildTurnRecords, type TurnPlan } from './turn-records.js';

/** The time used when a source has no readable timestamp at all. */
export const UNKNOWN_TIME = '1970-01-01T00:00:00.000Z';

/** The largest time an ISO 8601 `…Z` string with a four-digit year can hold (9999-12-31). */
const MAX_TIME_MS = 253_402_300_799_999;

/** A date-time string as ISO 8601 UTC (`…Z`), or undefined when it is not a readable time. */
export function isoUtc(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_TIME_MS) return undefined;
  return new Date(ms).toISOString();
}

/** The id of everything derived from one conversation: `<format>:<key>:<what>`. */
export function conversationName(source: Pick<SourceConversation, 'format' | 'key'>): string {
  return `episodic-import:${source.format}:${source.key}`;
}

/** The session id of a conversation (a UUID derived from its format and key). */
export function importedSessionId(source: Pick<SourceConversation, 'format' | 'key'>): string {
  return derivedUuid(`${conversationName(source)}:session`);
}

interface TimedEntry {
  readonly entry: SourceEntry;
  readonly ts: string;
}

function isUserMessage(entry: SourceEntry): boolean {
  return entry.kind === 'item' && entry.item.type === 'message' && entry.item.role === 'user';
}

function isModelOutput(entry: SourceEntry): boolean {
  return entry.kind === 'item' && entry.source === 'model';
}

/** Gives every entry a time: its own when readable, else the last one seen (else the first known). */
function timeEntries(entries: readonly SourceEntry[], fallback: string): TimedEntry[] {
  let current = entries.map((entry) => isoUtc(entry.ts)).find((ts) => ts !== undefined) ?? fallback;
  return entries.map((entry) => {
    const ts = isoUtc(entry.ts) ?? current;
    current = ts;
    return { entry, ts };
  });
}

/**
 * Splits a conversation into turns: a user message starts a new turn once the current one has
 * model output (so injected context and the typed request that follow each other share a turn).
 * Entries before the first user message belong to no turn.
 */
function planTurns(source: SourceConversation, timed: readonly TimedEntry[]): TurnPlan[] {
  const turns: TurnPlan[] = [];
  let current: TurnPlan | undefined;
  for (const [position, { entry, ts }] of timed.entries()) {
    if (isUserMessage(entry) && (current === undefined || current.hasModelOutput)) {
      const key = entry.origin.id ?? `#${turns.length}`;
      current = {
        runId: derivedUuid(`${conversationName(source)}:run:${key}`),
        startTs: ts,
        positions: [],
        hasModelOutput: false,
      };
      turns.push(current);
    }
    if (current === undefined) continue;
    current.positions.push(position);
    if (isModelOutput(entry)) current.hasModelOutput = true;
  }
  return turns;
}

function metaOf(
  source: SourceConversation,
  entry: SourceEntry,
  ts: string,
  turnId: string | undefined,
  episodeSource: EpisodeMeta['source'],
): EpisodeMeta {
  const raw = entry.kind === 'raw' ? undefined : entry.raw;
  return {
    source: episodeSource,
    ts,
    ...(turnId === undefined ? {} : { turnId }),
    origin: {
      format: source.format,
      ...(entry.origin.line === undefined ? {} : { line: entry.origin.line }),
      ...(entry.origin.id === undefined ? {} : { id: entry.origin.id }),
    },
    ...(raw === undefined || Object.keys(raw).length === 0 ? {} : { raw }),
  };
}

function rawEpisode(reason: string, entry: unknown) {
  return { type: 'meta' as const, payload: { event: 'import.raw', data: { reason, entry } } };
}

/**
 * Turns a parsed source conversation into Episodic data: a committed log (one episode per entry,
 * stamped with the source's time, turn and origin), a session snapshot, and one run per user
 * turn. Every id is derived from the source, so the same source always gives the same data.
 * An entry the log refuses is kept as an `import.raw` meta episode and reported in `problems`.
 */
export function buildConversation(
  source: SourceConversation,
  problems: ImportProblem[],
  options: { readonly fallbackTime?: string; readonly label?: string } = {},
): ImportedConversation {
  const sessionId = importedSessionId(source);
  const timed = timeEntries(source.entries, isoUtc(options.fallbackTime) ?? UNKNOWN_TIME);
  const turns = planTurns(source, timed);
  const turnOf = new Map<number, string>();
  for (const turn of turns) for (const position of turn.positions) turnOf.set(position, turn.runId);

  const firstTime = timed[0]?.ts ?? isoUtc(options.fallbackTime) ?? UNKNOWN_TIME;
  const log = createEpisodic(undefined, { now: () => new Date(firstTime) });
  const episodeIds = new Map<number, number>();
  for (const [position, { entry, ts }] of timed.entries()) {
    const turnId = turnOf.get(position);
    let episode: Episode;
    try {
      if (entry.kind === 'item') {
        const checked = inputItemSchema.safeParse(entry.item);
        if (!checked.success) {
          const issue = checked.error.issues[0];
          throw new EpisodicError({
            code: 'VALIDATION_ERROR',
            message:
              `not a valid ${entry.item.type} item: ${issue?.path.join('.') || 'item'} ${issue?.message ?? ''}`.trim(),
          });
        }
        episode = log.append({
          type: 'item',
          meta: metaOf(source, entry, ts, turnId, entry.source),
          payload: { item: entry.item },
        });
      } else if (entry.kind === 'boundary') {
        episode = log.append({
          type: 'boundary',
          meta: metaOf(source, entry, ts, turnId, 'runtime'),
          payload: entry.payload,
        });
      } else if (entry.kind === 'usage') {
        episode = log.append({
          type: 'meta',
          meta: metaOf(source, entry, ts, turnId, 'runtime'),
          payload: { event: 'turn.usage', data: entry.usage },
        });
      } else {
        episode = log.append({
          ...rawEpisode(entry.reason, entry.entry),
          meta: metaOf(source, entry, ts, turnId, 'runtime'),
        });
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      problems.push({
        ...(options.label === undefined ? {} : { source: options.label }),
        ...(entry.origin.line === undefined ? {} : { line: entry.origin.line }),
        message: `${message}; kept as an import.raw episode`,
      });
      episode = log.append({
        ...rawEpisode(message, entry.kind === 'raw' ? entry.entry : entryValue(entry)),
        meta: metaOf(
          source,
          { kind: 'raw', reason: message, entry, origin: entry.origin },
          ts,
          turnId,
          'runtime',
        ),
      });
    }
    episodeIds.set(position, episode.id);
  }

  const runs: ImportedRun[] = [];
  const toolNames = new Map<string, string>();
  let invokeSeq = 0;
  for (const [index, turn] of turns.entries()) {
    const built = buildTurnRecords({
      source,
      sessionId,
      turn,
      timed,
      isLast: index === turns.length - 1,
      invokeSeqBefore: invokeSeq,
      toolNames,
    });
    runs.push(built.run);
    invokeSeq += built.modelCalls;
  }
  const episodes = log.read({ fromId: 0 });
  const lastTime = timed.at(-1)?.ts ?? firstTime;
  const state: SessionState = {
    schema_version: SESSION_STATE_SCHEMA_VERSION,
    session_id: sessionId,
    updated_at: lastTime,
    ...(runs.length === 0 ? {} : { run_id: (runs.at(-1) as ImportedRun).runId }),
    invoke_seq: invokeSeq,
    messages: snapshotMessages(episodes),
    context: {
      ...(source.title === undefined ? {} : { title: source.title }),
      import: {
        format: source.format,
        key: source.key,
        ...source.context,
        ...(source.parentKey === undefined
          ? {}
          : {
              parent_session_id: importedSessionId({
                format: source.format,
                key: source.parentKey,
              }),
            }),
      },
    },
    revision: 1,
    episodes: episodes.slice(),
  };
  return {
    format: source.format,
    sourceKey: source.key,
    sessionId,
    ...(source.title === undefined ? {} : { title: source.title }),
    ...(options.label === undefined ? {} : { label: options.label }),
    ...(source.parentKey === undefined
      ? {}
      : { parentSessionId: importedSessionId({ format: source.format, key: source.parentKey }) }),
    state,
    episodes,
    runs,
  };
}

function entryValue(entry: SourceEntry): unknown {
  if (entry.kind === 'item') return { item: entry.item, ...(entry.raw ?? {}) };
  if (entry.kind === 'boundary') return { boundary: entry.payload, ...(entry.raw ?? {}) };
  if (entry.kind === 'usage') return { usage: entry.usage, ...(entry.raw ?? {}) };
  return entry.entry;
}
