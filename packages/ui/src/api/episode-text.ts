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

/**
 * A tool output for people. Codex wraps shell output as JSON text (`{"output": "…", "metadata":
 * {"exit_code": 1, …}}`): its `output` is shown with its own line breaks, after the exit code.
 */
export function toolOutputText(output: unknown): string {
  if (typeof output === 'string' && output.startsWith('{"output":')) {
    try {
      const parsed = JSON.parse(output) as { output?: unknown; metadata?: { exit_code?: unknown } };
      if (typeof parsed.output === 'string') {
        const exit = parsed.metadata?.exit_code;
        return typeof exit === 'number' ? `exit ${exit}\n${parsed.output}` : parsed.output;
      }
    } catch {
      // Not the wrapper after all: shown as it is.
    }
  }
  return contentText(output);
}

/** UTF-8 bytes of a string. */
function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * A reasoning item for people: its summary text, and `encrypted reasoning (N bytes)` for the
 * provider's opaque `encrypted_content` (never the base64 itself).
 */
function reasoningText(item: Record<string, unknown>): string {
  const summary = contentText(item.summary ?? item.content ?? '');
  const encrypted =
    typeof item.encrypted_content === 'string' && item.encrypted_content !== ''
      ? `encrypted reasoning (${utf8Bytes(item.encrypted_content).toLocaleString('en-US')} bytes)`
      : '';
  return [summary, encrypted].filter((part) => part !== '').join('\n') || '(empty reasoning)';
}

/** An `import.raw` episode in one line: why it was kept raw and what its source entry was. */
function rawImportText(data: unknown): string {
  const { reason, entry } = (data ?? {}) as { reason?: unknown; entry?: unknown };
  const type = (entry as { type?: unknown } | null)?.type;
  return [
    typeof reason === 'string' ? reason : 'raw entry',
    typeof type === 'string' ? `(${type})` : '',
  ]
    .filter((part) => part !== '')
    .join(' ');
}

/** Boundaries that assembly renders into a model input (`intent` and `segment` are never sent). */
const SENT_BOUNDARIES = new Set(['checkpoint', 'interrupt', 'overflow']);

/**
 * True for an episode that could have been in a model input (an item, or a boundary assembly
 * renders): the only ones a "why did the model (not) see it" question means something for.
 */
export function couldBeSent(episode: Episode): boolean {
  if (episode.type === 'item') return true;
  if (episode.type === 'boundary') {
    return SENT_BOUNDARIES.has(String((episode.payload as { reason?: unknown }).reason));
  }
  return false;
}

/** How the timeline shows an episode: in line, folded into its turn's header, or behind a toggle. */
function foldOf(episode: Episode): TimelineEpisode['fold'] {
  if (episode.type !== 'meta') return null;
  const event = String((episode.payload as { event?: unknown }).event);
  if (event === 'import.raw') return 'raw';
  if (event === 'turn.usage') return 'usage';
  // A parse error is news, not bookkeeping: it stays in line.
  if (event === 'error.parse') return null;
  return 'meta';
}

function describe(episode: Episode): { kind: string; text: string; callId: string | null } {
  const payload = episode.payload as Record<string, unknown>;
  if (episode.type === 'item') {
    const item = (payload.item ?? {}) as Record<string, unknown>;
    const kind = String(item.type ?? 'item');
    const callId = typeof item.call_id === 'string' ? item.call_id : null;
    if (kind === 'reasoning') return { kind, text: reasoningText(item), callId };
    if (kind === 'message')
      return { kind, text: `${String(item.role)}: ${contentText(item.content)}`, callId };
    if (kind === 'function_call') {
      return { kind, text: `${String(item.name)}(${String(item.arguments ?? '')})`, callId };
    }
    if (kind === 'function_call_output' || kind === 'custom_tool_call_output') {
      return { kind, text: toolOutputText(item.output), callId };
    }
    if (typeof item.encrypted_content === 'string') {
      const { encrypted_content: _encrypted, ...rest } = item;
      return { kind, text: `${JSON.stringify(rest)}\n${reasoningText(item)}`, callId };
    }
    return { kind, text: JSON.stringify(item), callId };
  }
  if (episode.type === 'boundary') {
    const reason = String(payload.reason);
    const title = typeof payload.title === 'string' ? payload.title : '';
    const content = typeof payload.content === 'string' ? payload.content : '';
    return { kind: reason, text: content === '' ? title : `${title}: ${content}`, callId: null };
  }
  if (payload.event === 'import.raw') {
    return { kind: 'import.raw', text: rawImportText(payload.data), callId: null };
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
    fold: foldOf(episode),
    could_be_sent: couldBeSent(episode),
  };
}
