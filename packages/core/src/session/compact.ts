import { z } from 'zod';
import { assemble } from '../assembly/assemble.js';
import type { Episodic } from '../episodic/create-episodic.js';
import type { BoundaryEpisode, Episode } from '../schema/episode.js';
import type { InputItem } from '../schema/input-item.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import { raceAbort } from './abortable.js';
import { type SessionParts, sessionParts } from './create-session.js';
import { isFunction, signalSchema } from './session-options.js';
import type { CheckpointHook, CheckpointInfo, Session } from './session-types.js';

/** What a summarizer receives: the episodes to summarize and their model-visible rendering. */
export interface SummarizeInput {
  readonly sessionId: string;
  /** The episodes since the previous checkpoint (all of them, including meta and boundaries). */
  readonly episodes: readonly Episode[];
  /** The previous checkpoint, whose summary the new one must carry forward, or null. */
  readonly previous: BoundaryEpisode | null;
  /**
   * The same history as the model sees it: the previous checkpoint's summary (as a
   * `<checkpoint>` user message) and the episodes after it, normalized. Hand these to a model
   * with "summarize this conversation".
   */
  readonly items: readonly InputItem[];
  /** The first and last episode ids being summarized (inclusive). */
  readonly covers: { readonly fromId: number; readonly toId: number };
  /** Fires when `compact`'s `signal` does. */
  readonly signal: AbortSignal;
}

/** A summary: its text, or its text and a title for the checkpoint. */
export type CompactSummary = string | { content: string; title?: string };

export interface CompactOptions {
  /** Writes the summary: a model call in an agent, a deterministic function in tests. */
  summarize: (input: SummarizeInput) => CompactSummary | Promise<CompactSummary>;
  /**
   * The checkpoint's title when the summary does not give one.
   * @default 'conversation summary'
   */
  title?: string;
  /** Cancels the compaction (nothing is written). */
  signal?: AbortSignal;
  /** Called after the checkpoint is committed, after the session's own `onCheckpoint`. */
  onCheckpoint?: CheckpointHook;
}

/** What `compact` did. */
export interface CompactResult {
  /** The committed checkpoint, or null when there was nothing new to summarize. */
  readonly checkpoint: BoundaryEpisode | null;
  /** The first and last episode ids the summary covers, or null. */
  readonly covers: { readonly fromId: number; readonly toId: number } | null;
  /** Every episode id the summary covers, ascending (empty when nothing was compacted). */
  readonly episodeIds: readonly number[];
  /** The session revision after the compaction. */
  readonly revision: number;
}

/** The default checkpoint title. */
export const DEFAULT_CHECKPOINT_TITLE = 'conversation summary';

const compactOptionsSchema = z.strictObject({
  summarize: isFunction('input → summary'),
  title: z.string().min(1).max(500).optional(),
  signal: signalSchema.optional(),
  onCheckpoint: isFunction('info → void').optional(),
});

const summarySchema = z.union([
  z.string().min(1),
  z.strictObject({ content: z.string().min(1), title: z.string().min(1).max(500).optional() }),
]);

function lastCheckpoint(log: Episodic): BoundaryEpisode | null {
  let limit = 16;
  for (;;) {
    const page = log.read({ type: 'boundary', limit });
    for (let index = page.length - 1; index >= 0; index--) {
      const episode = page[index] as Episode;
      if (episode.type === 'boundary' && episode.payload.reason === 'checkpoint') return episode;
    }
    if (page.length < limit) return null;
    limit *= 4;
  }
}

async function emit(
  { writer, config }: SessionParts,
  event: { type: string; [key: string]: unknown },
): Promise<void> {
  // Seed 001's compaction events carry `timestamp` (milliseconds since the epoch, as Codelia's).
  await config.recorder?.agentEvent({
    ...event,
    timestamp: config.now().getTime(),
    session_id: writer.id,
  });
}

/**
 * Non-destructive compaction: summarizes the episodes since the previous checkpoint and appends
 * a `checkpoint` boundary with the summary as its content and `covers: { fromId, toId }` in its
 * payload. Nothing is deleted; the next assembly starts at the checkpoint (the default
 * `startAt`). Runs in the session's mutation order. When the session has a `recorder`, emits
 * `compaction_start` and `compaction_complete` agent events (seed 001's, with its `timestamp`
 * and, on completion, `compacted`: true when a checkpoint was written). After the commit it calls
 * the session's and this call's `onCheckpoint` so the summary can be associated, as an artifact,
 * with the episodes it covers. With nothing new since the last checkpoint it does nothing.
 */
export async function compact(session: Session, options: CompactOptions): Promise<CompactResult> {
  const parts = sessionParts(session, 'compact');
  const { writer, config } = parts;
  const settings = parseInput(compactOptionsSchema, options, 'compact options');
  writer.assertOpen();
  const signal = settings.signal ?? new AbortController().signal;
  return writer.exclusive(async () => {
    const log = writer.log;
    const previous = lastCheckpoint(log);
    const episodes = log.read({ fromId: previous?.id ?? 0 });
    const first = episodes[0];
    const last = episodes[episodes.length - 1];
    if (first === undefined || last === undefined) {
      return { checkpoint: null, covers: null, episodeIds: [], revision: writer.revision };
    }
    const covers = { fromId: first.id, toId: last.id };
    const span = { from_id: covers.fromId, to_id: covers.toId };
    await emit(parts, {
      type: 'compaction_start',
      ...span,
      episode_count: episodes.length,
    });

    let checkpoint: BoundaryEpisode;
    let summaryText: string;
    try {
      const { items } = await assemble(log, { startAt: 'checkpoint', signal });
      const returned = await raceAbort(
        () =>
          (settings.summarize as CompactOptions['summarize'])({
            sessionId: writer.id,
            episodes,
            previous,
            items,
            covers,
            signal,
          }),
        signal,
      );
      const parsed = summarySchema.safeParse(returned);
      if (!parsed.success) {
        throw invalidField(
          'compact',
          'summarize result',
          returned,
          'must be a non-empty string or { content: non-empty string, title? }',
        );
      }
      const summary = typeof parsed.data === 'string' ? { content: parsed.data } : parsed.data;
      summaryText = summary.content;
      const [stored] = await writer.appendCommitted([
        {
          type: 'boundary',
          meta: { source: 'runtime' },
          payload: {
            reason: 'checkpoint',
            title: summary.title ?? settings.title ?? DEFAULT_CHECKPOINT_TITLE,
            content: summary.content,
            covers,
          },
        },
      ]);
      checkpoint = stored as BoundaryEpisode;
    } catch (error) {
      // The run file should show that the compaction ended; a recorder failure here must not
      // hide the error that stopped the compaction, so it is not allowed to replace it.
      await emit(parts, {
        type: 'compaction_complete',
        ...span,
        compacted: false,
        status: signal.aborted ? 'aborted' : 'failed',
        error: error instanceof Error ? error.message : String(error),
      }).catch(() => undefined);
      throw error;
    }

    await emit(parts, {
      type: 'compaction_complete',
      ...span,
      compacted: true,
      status: 'completed',
      checkpoint_id: checkpoint.id,
      summary_chars: summaryText.length,
    });
    const info: CheckpointInfo = {
      sessionId: writer.id,
      checkpoint,
      covers,
      episodeIds: episodes.map((episode) => episode.id),
      summary: summaryText,
    };
    await config.onCheckpoint?.(info);
    await (settings.onCheckpoint as CheckpointHook | undefined)?.(info);
    return {
      checkpoint,
      covers,
      episodeIds: info.episodeIds,
      revision: writer.revision,
    };
  });
}
