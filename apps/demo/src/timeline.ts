import type { Episode } from '@episodic/core';

/** One line of a session timeline: an episode of the committed log, or a turn that left none. */
export interface TimelineEntry {
  /** The turn's label (`T3`), or null for an episode no turn of this report wrote. */
  readonly turn: string | null;
  /** The episode id, or null for a turn that committed nothing (it failed). */
  readonly episodeId: number | null;
  /** `user`, `model`, `tool`, `runtime`, or `run` for a turn without episodes. */
  readonly source: string;
  /** `user`, `assistant`, `call`, `output`, `usage`, `interrupt`, `checkpoint`, `meta` or `failed`. */
  readonly kind: string;
  readonly text: string;
}

/** The turns a timeline labels. */
export interface TimelineTurn {
  readonly label: string;
  readonly turnId: string;
  readonly runId: string;
  readonly outcome: string;
  readonly error: string | null;
  readonly compaction: { readonly checkpointId: number } | null;
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
  return JSON.stringify(content);
}

function describe(
  episode: Episode,
  callNames: Map<string, string>,
): { kind: string; text: string } {
  if (episode.type === 'item') {
    const item = episode.payload.item as Record<string, unknown>;
    switch (item.type) {
      case 'message':
        return { kind: String(item.role), text: `"${clip(textOf(item.content), 90)}"` };
      case 'function_call':
        callNames.set(String(item.call_id), String(item.name));
        return {
          kind: 'call',
          text: `${String(item.name)} ${clip(String(item.arguments), 60)}  (${String(item.call_id)})`,
        };
      case 'function_call_output': {
        const output = textOf(item.output);
        const name = callNames.get(String(item.call_id)) ?? String(item.call_id);
        return {
          kind: 'output',
          text: `${name}: ${output.length.toLocaleString('en-US')} chars  (${String(item.call_id)})`,
        };
      }
      default:
        return { kind: String(item.type), text: '' };
    }
  }
  if (episode.type === 'boundary') {
    const payload = episode.payload as {
      reason: string;
      title: string;
      content?: string;
      covers?: { fromId: number; toId: number };
    };
    if (payload.reason === 'checkpoint') {
      const covers = payload.covers
        ? `#${payload.covers.fromId}–#${payload.covers.toId}`
        : 'earlier episodes';
      return {
        kind: 'checkpoint',
        text: `summary of ${covers} (${(payload.content ?? '').length} chars)`,
      };
    }
    return { kind: payload.reason, text: `"${clip(payload.content ?? payload.title, 90)}"` };
  }
  const payload = episode.payload as {
    event: string;
    data?: { inputTokens?: number; outputTokens?: number };
  };
  if (payload.event === 'turn.usage') {
    return {
      kind: 'usage',
      text: `${payload.data?.inputTokens ?? '?'} tokens in, ${payload.data?.outputTokens ?? '?'} out`,
    };
  }
  return { kind: 'meta', text: payload.event };
}

/**
 * The session's committed log, turn by turn, with the turns that committed nothing (a failed
 * turn) in their place, so the timeline shows everything that happened and what was kept.
 */
export function buildTimeline(
  episodes: readonly Episode[],
  turns: readonly TimelineTurn[],
): TimelineEntry[] {
  const labelOfTurn = new Map(turns.map((turn) => [turn.turnId, turn.label]));
  const labelOfCheckpoint = new Map(
    turns.flatMap((turn) =>
      turn.compaction === null ? [] : [[turn.compaction.checkpointId, turn.label] as const],
    ),
  );
  const callNames = new Map<string, string>();
  const entries: TimelineEntry[] = [];
  const seenTurns = new Set<string>();
  const emitEmptyTurnsBefore = (label: string | null) => {
    for (const turn of turns) {
      if (turn.label === label) return;
      if (seenTurns.has(turn.turnId)) continue;
      if (
        turn.outcome === 'failed' &&
        !episodes.some((episode) => episode.meta.turnId === turn.turnId)
      ) {
        seenTurns.add(turn.turnId);
        entries.push({
          turn: turn.label,
          episodeId: null,
          source: 'run',
          kind: 'failed',
          text: `nothing committed (${clip(turn.error ?? 'failed', 80)})`,
        });
      }
    }
  };
  for (const episode of episodes) {
    const label =
      (episode.meta.turnId === undefined ? undefined : labelOfTurn.get(episode.meta.turnId)) ??
      labelOfCheckpoint.get(episode.id) ??
      null;
    if (label !== null) {
      emitEmptyTurnsBefore(label);
      const turn = turns.find((candidate) => candidate.label === label);
      if (turn !== undefined) seenTurns.add(turn.turnId);
    }
    const { kind, text } = describe(episode, callNames);
    entries.push({
      turn: label,
      episodeId: episode.id,
      source: episode.meta.source ?? 'runtime',
      kind,
      text,
    });
  }
  emitEmptyTurnsBefore(null);
  return entries;
}

/** The timeline as aligned text lines. */
export function renderTimeline(entries: readonly TimelineEntry[]): string[] {
  let previous: string | null | undefined;
  return entries.map((entry) => {
    const turn = entry.turn !== previous ? (entry.turn ?? '·') : '';
    previous = entry.turn;
    const id = entry.episodeId === null ? '' : `#${entry.episodeId}`;
    return `  ${turn.padEnd(4)}${id.padStart(4)}  ${entry.source.padEnd(7)} ${entry.kind.padEnd(10)} ${entry.text}`;
  });
}
