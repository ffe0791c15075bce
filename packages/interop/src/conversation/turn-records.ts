import {
  type AgentEvent,
  type InputItem,
  itemsToMessages,
  type LlmUsage,
  type RunRecord,
} from '@episodic/core';
import { RUN_RECORD_SCHEMA_VERSION } from '@episodic/core/schemas';
import type { ImportedRun } from './imported-conversation.js';
import type {
  SourceConversation,
  SourceEntry,
  SourceItemEntry,
  SourceTokenUsage,
} from './source-conversation.js';
import { outputTextOf, textOfContent } from './text-of.js';

/** The `client` of every imported run's header: the importer and its mapping version. */
export const IMPORT_CLIENT = { name: 'episodic-import', version: '1' } as const;

/** One user turn: the entries (by position) that become one run. */
export interface TurnPlan {
  readonly runId: string;
  readonly startTs: string;
  readonly positions: number[];
  hasModelOutput: boolean;
}

export interface TurnRecordsInput {
  readonly source: SourceConversation;
  readonly sessionId: string;
  readonly turn: TurnPlan;
  readonly timed: ReadonlyArray<{ readonly entry: SourceEntry; readonly ts: string }>;
  /** The conversation's last turn: left open (no `run.end`) while a tool call has no output. */
  readonly isLast: boolean;
  /** Model calls of the turns before (so `llm.response.seq` counts across the session). */
  readonly invokeSeqBefore: number;
  /** Tool names by call id, shared across turns (an output may come in a later turn). */
  readonly toolNames: Map<string, string>;
}

function isUserText(entry: SourceEntry): entry is SourceItemEntry {
  return entry.kind === 'item' && entry.item.type === 'message' && entry.item.role === 'user';
}

/** The text that started the turn: what a person typed, else every user message before the model answered. */
function inputTextOf(entries: readonly SourceEntry[]): string {
  const leading: SourceItemEntry[] = [];
  for (const entry of entries) {
    if (entry.kind === 'item' && entry.source === 'model') break;
    if (isUserText(entry)) leading.push(entry);
  }
  const typed = leading.filter((entry) => entry.userInput === true);
  return (typed.length > 0 ? typed : leading)
    .map((entry) => textOfContent((entry.item as { content?: unknown }).content))
    .filter((text) => text !== '')
    .join('\n\n');
}

function usageOf(usage: SourceTokenUsage, model: string | undefined): LlmUsage {
  return {
    model: model ?? 'unknown',
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens ?? usage.input_tokens + usage.output_tokens,
    ...(usage.input_cached_tokens === undefined
      ? {}
      : { input_cached_tokens: usage.input_cached_tokens }),
    ...(usage.input_cache_creation_tokens === undefined
      ? {}
      : { input_cache_creation_tokens: usage.input_cache_creation_tokens }),
  };
}

function argumentsOf(item: Record<string, unknown>): string {
  if (typeof item.arguments === 'string') return item.arguments;
  if (typeof item.input === 'string') return item.input;
  return JSON.stringify(item.arguments ?? item.input ?? item.action ?? {});
}

function reasoningText(item: InputItem): string {
  return textOfContent((item as { summary?: unknown }).summary);
}

/**
 * The seed 001 records of one imported turn, in the order a live run writes them: `header`,
 * `run.start`, `run.status: running`; for each model response an `llm.response` (its messages,
 * usage and stop reason) with `agent.event`s for its text and tool calls; a `tool.output` and a
 * `tool_result` event for each tool output; then `final`, `run.status: completed` and `run.end`.
 * No `llm.request` is written: transcripts do not say exactly what was sent.
 */
export function buildTurnRecords(input: TurnRecordsInput): {
  run: ImportedRun;
  modelCalls: number;
} {
  const { source, sessionId, turn, timed } = input;
  const runId = turn.runId;
  const entries = turn.positions.map((position) => timed[position] as (typeof timed)[number]);
  const records: RunRecord[] = [];
  let eventSeq = 0;
  const event = (ts: string, agentEvent: AgentEvent) =>
    records.push({ type: 'agent.event', run_id: runId, ts, seq: eventSeq++, event: agentEvent });

  const firstCall = entries.find(({ entry }) => entry.kind === 'item' && entry.call?.model)
    ?.entry as SourceItemEntry | undefined;
  const modelName = firstCall?.call?.model ?? source.model?.name;
  const model =
    modelName === undefined && source.model === undefined
      ? undefined
      : { ...source.model, ...(modelName === undefined ? {} : { name: modelName }) };
  records.push({
    type: 'header',
    schema_version: RUN_RECORD_SCHEMA_VERSION,
    run_id: runId,
    session_id: sessionId,
    started_at: turn.startTs,
    client: { ...IMPORT_CLIENT },
    ...(source.agent === undefined
      ? {}
      : { server: { name: source.agent.name, version: source.agent.version ?? 'unknown' } }),
    ...(model === undefined ? {} : { model }),
    ...(source.systemPrompt === undefined ? {} : { prompts: { system: source.systemPrompt } }),
    ...(source.runtime === undefined ? {} : { runtime: { ...source.runtime } }),
    meta: { import: { format: source.format, key: source.key } },
  });
  records.push({
    type: 'run.start',
    run_id: runId,
    ts: turn.startTs,
    session_id: sessionId,
    input: { type: 'text', text: inputTextOf(entries.map(({ entry }) => entry)) },
  });
  records.push({ type: 'run.status', run_id: runId, ts: turn.startTs, status: 'running' });

  let seq = input.invokeSeqBefore;
  let lastText: string | undefined;
  const emittedCalls = new Set<string>();
  const pending = new Set<string>();
  // Items of one response share a key: the source's response key, else one key per run of
  // consecutive model items that carry none.
  let synthetic = 0;
  let inBareRun = false;
  const keys: string[] = entries.map(({ entry }) => {
    const bare = entry.kind === 'item' && entry.source === 'model' && entry.call === undefined;
    if (bare && !inBareRun) synthetic++;
    inBareRun = bare;
    return entry.kind === 'item' && entry.call !== undefined
      ? `call:${entry.call.key}`
      : `~${synthetic}`;
  });

  for (const [index, { entry, ts }] of entries.entries()) {
    if (entry.kind !== 'item') continue;
    if (entry.source === 'model') {
      const key = keys[index] as string;
      if (emittedCalls.has(key)) continue;
      emittedCalls.add(key);
      const group = entries
        .map((timedEntry, position) => ({ ...timedEntry, key: keys[position] }))
        .filter(
          (candidate, position) =>
            position >= index &&
            candidate.key === key &&
            candidate.entry.kind === 'item' &&
            candidate.entry.source === 'model',
        )
        .map(({ entry: member }) => member as SourceItemEntry);
      seq++;
      const callModel = group.find((member) => member.call?.model)?.call?.model ?? modelName;
      const usage = group.find((member) => member.call?.usage)?.call?.usage;
      const stopReason = group.find((member) => member.call?.stopReason)?.call?.stopReason;
      records.push({
        type: 'llm.response',
        run_id: runId,
        ts,
        seq,
        ...(callModel === undefined ? {} : { model: { ...source.model, name: callModel } }),
        output: {
          messages: itemsToMessages(group.map((member) => member.item)),
          ...(usage === undefined ? {} : { usage: usageOf(usage, callModel) }),
          ...(stopReason === undefined ? {} : { stop_reason: stopReason }),
        },
      });
      for (const member of group) {
        const item = member.item as InputItem & Record<string, unknown>;
        if (item.type === 'message' && item.role === 'assistant') {
          const text = textOfContent(item.content);
          if (text !== '') {
            event(ts, { type: 'text', content: text });
            lastText = text;
          }
        } else if (typeof item.call_id === 'string') {
          // A function call, or a shell, custom or search tool call (paired by call_id too).
          const callId = item.call_id;
          const name = typeof item.name === 'string' ? item.name : item.type;
          input.toolNames.set(callId, name);
          pending.add(callId);
          event(ts, {
            type: 'tool_call',
            tool: name,
            args: argumentsOf(item),
            tool_call_id: callId,
          });
        } else if (item.type === 'reasoning') {
          const text = reasoningText(item);
          if (text !== '') event(ts, { type: 'reasoning', content: text });
        }
      }
      continue;
    }
    const output = entry.item as InputItem & { call_id?: unknown; output?: unknown };
    if (entry.source === 'tool' && typeof output.call_id === 'string') {
      const item = output as InputItem & { call_id: string; output: unknown };
      const tool = input.toolNames.get(item.call_id) ?? 'unknown';
      const resultRaw = outputTextOf(item.output);
      const isError = entry.isError === true;
      records.push({
        type: 'tool.output',
        run_id: runId,
        ts,
        tool,
        tool_call_id: item.call_id,
        result_raw: resultRaw,
        is_error: isError,
      });
      event(ts, {
        type: 'tool_result',
        tool,
        tool_call_id: item.call_id,
        is_error: isError,
        output_chars: resultRaw.length,
      });
      pending.delete(item.call_id);
    }
  }

  const endTs = entries.at(-1)?.ts ?? turn.startTs;
  // The conversation's last turn stays open while it waits: for a tool output, or for the model's
  // first answer (the transcript ended there).
  if (!(input.isLast && (pending.size > 0 || !turn.hasModelOutput))) {
    if (lastText !== undefined) event(endTs, { type: 'final', content: lastText });
    records.push({ type: 'run.status', run_id: runId, ts: endTs, status: 'completed' });
    records.push({
      type: 'run.end',
      run_id: runId,
      ts: endTs,
      outcome: 'completed',
      ...(lastText === undefined ? {} : { final: lastText }),
    });
  }
  return { run: { runId, records }, modelCalls: seq - input.invokeSeqBefore };
}
