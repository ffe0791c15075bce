import type { BoundaryPayload, BoundaryReason, Episode } from '../schema/episode.js';
import type { MessageItem } from '../schema/input-item.js';
import type { AssemblyDrop } from './manifest.js';

/** Boundary reasons the model sees (as user messages). `intent` and `segment` stay audit-only. */
export const VISIBLE_BOUNDARY_REASONS: ReadonlySet<BoundaryReason> = new Set([
  'checkpoint',
  'interrupt',
  'overflow',
]);

/**
 * Renders a `checkpoint`, `interrupt` or `overflow` boundary as the user message the model sees:
 * `<reason>\n{content ?? title}\n</reason>`. Returns null for `intent` and `segment` boundaries,
 * which are never sent.
 */
export function renderBoundary(payload: BoundaryPayload): MessageItem | null {
  if (!VISIBLE_BOUNDARY_REASONS.has(payload.reason)) return null;
  const content =
    'content' in payload && typeof payload.content === 'string' ? payload.content : payload.title;
  return {
    type: 'message',
    role: 'user',
    content: `<${payload.reason}>\n${content}\n</${payload.reason}>`,
  };
}

/** The drop entry for an episode that is never sent (a `meta` episode, an `intent` or `segment` boundary). */
export function neverSentDrop(episode: Episode): AssemblyDrop | null {
  if (episode.type === 'meta') {
    return {
      episodeId: episode.id,
      reason: 'meta',
      detail: `meta episodes (here ${JSON.stringify(episode.payload.event)}) are audit data and are never sent to the model.`,
    };
  }
  if (episode.type === 'boundary' && !VISIBLE_BOUNDARY_REASONS.has(episode.payload.reason)) {
    return {
      episodeId: episode.id,
      reason: 'invisible-boundary',
      detail: `${episode.payload.reason} boundaries mark history for audit and queries; they are never sent to the model.`,
    };
  }
  return null;
}
