import type { Episode } from '@episodic/core';
import type { TimelineEpisode } from './api-types.js';

/** The longest text a list shows for one episode or message; the full text is one click away. */
export const TEXT_PREVIEW_CHARS = 400;

/** Cuts `text` to `max` characters (on a code point boundary), saying whether it was cut. */
export function preview(text: string, max = TEXT_PREVIEW_CHARS): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: `${text.slice(0, end)}…`, cut: true };
}

/** The text of a message's content: a string, or the text parts of an array. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === 'string'
          ? part
          : typeof (part as { text?: unknown })?.text === 'string'
            ? (part as { text: string }).text
            : '',
      )
      .filter((text) => text !== '')
      .join(' ');
  }
  if (content === null || content === undefined) return '';
  return JSON.stringify(content);
}

function describe(episode: Episode): { kind: string; text: string; callId: string | null } {
  const payload = episode.payload as Record<string, unknown>;
  if (episode.type === 'item') {
    const item = (payload.item ?? {}) as Record<string, unknown>;
    const kind = String(item.type ?? 'item');
    const callId = typeof item.call_id === 'string' ? item.call_id : null;
    if (kind === 'message')
      return { kind, text: `${String(item.role)}: ${contentText(item.content)}`, callId };
    if (kind === 'function_call') {
      return { kind, text: `${String(item.name)}(${String(item.arguments ?? '')})`, callId };
    }
    if (kind === 'function_call_output') return { kind, text: contentText(item.output), callId };
    return { kind, text: JSON.stringify(item), callId };
  }
  if (episode.type === 'boundary') {
    const reason = String(payload.reason);
    const title = typeof payload.title === 'string' ? payload.title : '';
    const content = typeof payload.content === 'string' ? payload.content : '';
    return { kind: reason, text: content === '' ? title : `${title}: ${content}`, callId: null };
  }
  const data = payload.data === undefined ? '' : ` ${JSON.stringify(payload.data)}`;
  return { kind: String(payload.event), text: `${String(payload.event)}${data}`, callId: null };
}

/** An episode as the session timeline lists it. */
export function timelineEpisode(episode: Episode, max = TEXT_PREVIEW_CHARS): TimelineEpisode {
  const { kind, text, callId } = describe(episode);
  const shown = preview(text, max);
  const covers = (episode.payload as { covers?: { fromId?: unknown; toId?: unknown } }).covers;
  return {
    id: episode.id,
    type: episode.type,
    kind,
    source: episode.meta.source ?? 'runtime',
    ts: episode.meta.ts ?? null,
    turn_id: episode.meta.turnId ?? null,
    text: shown.text,
    cut: shown.cut,
    covers:
      episode.type === 'boundary' &&
      typeof covers?.fromId === 'number' &&
      typeof covers?.toId === 'number'
        ? { from_id: covers.fromId, to_id: covers.toId }
        : null,
    call_id: callId,
  };
}
