import type { Episode, RunRecord, RunStore, SessionStore } from '@episodic/core';
import * as z from 'zod';
import type { InputMessage, ModelInput, ModelInputsResponse } from './api-types.js';
import { contentText, preview } from './episode-text.js';
import { explainInInput, manifestView } from './manifest-view.js';
import { parseQuery } from './query-params.js';
import { storedEpisodes } from './session-relatives.js';

const querySchema = z.strictObject({ episode: z.coerce.number().int().min(1).optional() });

type AnyRecord = RunRecord & Record<string, unknown>;

function messageView(message: Record<string, unknown>): InputMessage {
  const full = contentText(message.content);
  const shown = preview(full, 300);
  const calls = Array.isArray(message.tool_calls)
    ? (message.tool_calls as Array<Record<string, unknown>>)
    : [];
  return {
    role: String(message.role ?? '?'),
    text: shown.text,
    cut: shown.cut,
    chars: full.length,
    tool_calls: calls.map((call) => {
      const fn = (call.function ?? {}) as Record<string, unknown>;
      return `${String(fn.name ?? '?')} (${String(call.id ?? '?')})`;
    }),
    tool_call_id: typeof message.tool_call_id === 'string' ? message.tool_call_id : null,
  };
}

/**
 * `GET /api/runs/:id/inputs[?episode=N]`: every model input of a run (`llm.request`): the messages
 * sent, what the recorded assembly manifest says was left out and why, the budget, the healed calls
 * and truncated outputs; with `episode`, what happened to that session episode in each input.
 */
export async function modelInputs(
  deps: { runs: RunStore; sessions: SessionStore },
  rawRunId: string,
  rawQuery: Record<string, string>,
): Promise<ModelInputsResponse> {
  const runId = await deps.runs.resolveRunId(rawRunId, { subject: 'run id' });
  const query = parseQuery(querySchema, rawQuery, 'model inputs query');
  const run = await deps.runs.read(runId);
  const header = run.header as Record<string, unknown> | null;
  const sessionId = typeof header?.session_id === 'string' ? header.session_id : null;
  let episode: Episode | undefined;
  if (query.episode !== undefined && sessionId !== null) {
    const episodes = await storedEpisodes(deps.sessions, sessionId).catch(
      (): readonly Episode[] => [],
    );
    episode = episodes.find((candidate) => candidate.id === query.episode);
  }
  const usageBySeq = new Map<number, { input_tokens: number; output_tokens: number }>();
  let responses = 0;
  for (const record of run.records as AnyRecord[]) {
    if (record.type === 'llm.response') responses++;
    if (record.type !== 'llm.response' || typeof record.seq !== 'number') continue;
    const usage = (record.output as { usage?: Record<string, unknown> | null })?.usage;
    if (
      usage &&
      typeof usage.input_tokens === 'number' &&
      typeof usage.output_tokens === 'number'
    ) {
      usageBySeq.set(record.seq, {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
      });
    }
  }
  const inputs: ModelInput[] = [];
  (run.records as AnyRecord[]).forEach((record, index) => {
    if (record.type !== 'llm.request') return;
    const meta = (record.meta ?? {}) as Record<string, unknown>;
    const recorded = meta.manifest;
    const view = manifestView(recorded);
    const model = record.model as { provider?: string; name?: string } | undefined;
    const seq = typeof record.seq === 'number' ? record.seq : null;
    const ts = typeof record.ts === 'string' ? record.ts : null;
    inputs.push({
      index,
      seq,
      ts,
      turn_id: typeof meta.turn_id === 'string' ? meta.turn_id : null,
      round: typeof meta.round === 'number' ? meta.round : null,
      model: model === undefined ? null : `${model.provider ?? '?'}/${model.name ?? '?'}`,
      messages: (
        ((record.input as { messages?: unknown[] })?.messages ?? []) as Array<
          Record<string, unknown>
        >
      ).map(messageView),
      manifest: view,
      explanation:
        query.episode === undefined
          ? null
          : explainInInput(recorded, view, query.episode, episode, ts),
      usage: seq === null ? null : (usageBySeq.get(seq) ?? null),
    });
  });
  const imported = (header?.meta as { import?: { format?: unknown } } | undefined)?.import;
  return {
    run_id: runId,
    session_id: sessionId,
    episode: query.episode ?? null,
    inputs,
    model_responses: responses,
    imported_from:
      imported === undefined || imported === null
        ? null
        : typeof imported.format === 'string'
          ? imported.format
          : 'a transcript',
  };
}
