import { normalizeTrusted, type SourcedItem } from '../assembly/normalize-items.js';
import type { BaseMessage } from '../schema/base-message.js';
import type { Episode } from '../schema/episode.js';
import { convertItems } from './items-to-messages.js';

/**
 * The `messages` of a state snapshot (seed 001) for a committed log: its items as chat messages,
 * healed so that a reader resuming from them never meets an unpaired call. A tool output whose
 * call is not before it is left out, and a call without an output gets one saying it was
 * interrupted (`INTERRUPTED_CALL_OUTPUT`), as model input assembly heals them. The log itself keeps
 * the truth; only this view is healed. Every other message keeps every field (see
 * `messagesToItems`), so a seed 001 snapshot resumed and committed again keeps its messages.
 */
export function snapshotMessages(episodes: readonly Episode[]): BaseMessage[] {
  return deriveMessages(episodes, false);
}

/**
 * `snapshotMessages` for a base a store is to write: it also remembers where each message began,
 * so that `stableMessageCount` given these messages counts them without deriving them again.
 */
export function baseMessages(episodes: readonly Episode[]): BaseMessage[] {
  return deriveMessages(episodes, true);
}

function deriveMessages(episodes: readonly Episode[], remember: boolean): BaseMessage[] {
  const sourced: SourcedItem[] = [];
  const indexes = new Map<number, number>();
  episodes.forEach((episode, index) => {
    if (episode.type !== 'item') return;
    sourced.push({ item: episode.payload.item, episodeId: episode.id });
    indexes.set(episode.id, index);
  });
  const { items } = normalizeTrusted(sourced, {
    danglingCalls: 'synthesize',
    maxToolOutputChars: Number.MAX_SAFE_INTEGER,
  });
  const indexOf = (entry: SourcedItem | undefined) =>
    entry?.episodeId === undefined ? undefined : indexes.get(entry.episodeId);
  const itemOrigins: number[] | undefined = remember ? [] : undefined;
  const messages = convertItems(
    items.map((entry) => entry.item),
    items.map((entry) =>
      entry.synthetic === true ? undefined : episodes[indexOf(entry) ?? -1]?.meta.ts,
    ),
    itemOrigins,
  );
  if (itemOrigins !== undefined) {
    messageOrigins.set(
      messages,
      itemOrigins.map((item) => indexOf(items[item]) ?? Number.NaN),
    );
  }
  return messages;
}

/** For each list `baseMessages` made: the index of the episode each message began at. */
const messageOrigins = new WeakMap<readonly BaseMessage[], number[]>();

/**
 * How many of `snapshotMessages(episodes.slice(0, count))`'s messages every longer log that starts
 * with those episodes (`episodes` itself included) keeps as they are: the messages of the
 * episodes before the last user message at or before `count` (`episodes[count]` counts: it is the
 * next one) that is preceded by no unanswered call. A later item cannot change them: the user
 * message closes the assistant message calls would be joined to, and every call before it has
 * its output, so none is healed differently. A store folding `episodes` onto a base of `count`
 * episodes keeps that many of the base's messages and writes the rest again. `messages`, when it
 * is `baseMessages(episodes)` as that returned it, saves deriving them again.
 */
export function stableMessageCount(
  episodes: readonly Episode[],
  count: number,
  messages?: readonly BaseMessage[],
): number {
  const end = Math.min(count, episodes.length - 1);
  const openCalls = new Set<string>();
  let cut = 0;
  for (let index = 0; index <= end; index++) {
    const episode = episodes[index] as Episode;
    if (episode.type !== 'item') continue;
    const { item } = episode.payload;
    if (item.type === 'function_call') openCalls.add(String(item.call_id));
    else if (item.type === 'function_call_output') openCalls.delete(String(item.call_id));
    else if (item.type === 'message' && item.role === 'user' && openCalls.size === 0) cut = index;
  }
  if (cut === 0) return 0;
  const origins = messages === undefined ? undefined : messageOrigins.get(messages);
  if (origins === undefined) return snapshotMessages(episodes.slice(0, cut)).length;
  // The messages before the cut's user message are those of the episodes before it.
  const stable = origins.findIndex((origin) => !(origin < cut));
  return stable === -1 ? origins.length : stable;
}
