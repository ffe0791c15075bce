// One turn: fork the committed log, call the model (and the tools it calls, round after round),
// then commit the turn's episodes in one commit, or on abort commit only what an interrupt keeps.
import { assemble } from '../assembly/assemble.js';
import type { AssemblyManifest } from '../assembly/manifest.js';
import { CHAT_MESSAGE_KEY } from '../messages/chat-message-marker.js';
import type { TurnUsage } from '../schema/episode.js';
import type { FunctionCallItem, InputItem } from '../schema/input-item.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import { raceAbort, throwIfAborted } from './abortable.js';
import { type ActiveTurn, commitInterrupt } from './interrupts.js';
import {
  type ModelCall,
  modelResponseSchema,
  type ToolExecutor,
  toolOutputSchema,
} from './model-call.js';
import type { SessionConfig, TurnSettings } from './session-options.js';
import type { TurnResult, TurnStopReason } from './session-types.js';
import type { SessionWriter } from './session-writer.js';

/** The calls of a model output that no output of the same output answers. */
function pendingCalls(output: readonly InputItem[]): FunctionCallItem[] {
  const answered = new Set<string>();
  for (const item of output) {
    if (item.type === 'function_call_output') answered.add(String(item.call_id));
  }
  return output.filter(
    (item): item is FunctionCallItem =>
      item.type === 'function_call' && !answered.has(String(item.call_id)),
  );
}

/** What a turn runs with: the session's writer and settings, and this turn's own. */
export interface TurnContext {
  readonly writer: SessionWriter;
  readonly config: SessionConfig;
  readonly turn: ActiveTurn;
  readonly input: readonly InputItem[];
  readonly modelCall: ModelCall;
  readonly settings: TurnSettings;
}

/**
 * Runs one turn against a working fork of the committed log and commits it on success (inside the
 * session's mutation order). On abort nothing of the turn is committed, except the interrupt
 * boundary (and with `keep: 'partial'` the work so far) when the turn was interrupted; the turn
 * then rejects with the abort's reason.
 */
export async function runTurnLoop({
  writer,
  config,
  turn,
  input,
  modelCall,
  settings,
}: TurnContext): Promise<TurnResult> {
  const { turnId } = turn;
  const executeTool = (settings.executeTool as ToolExecutor | undefined) ?? config.executeTool;
  const maxModelCalls = settings.maxModelCalls ?? config.maxModelCalls;
  const { signal } = turn.controller;
  const startId = writer.log.lastId;
  const working = writer.log.fork();
  const meta = (source: 'model' | 'tool' | 'user' | 'runtime') => ({ source, turnId });
  try {
    throwIfAborted(signal);
    working.appendItems(input, meta('user'));
    const produced: InputItem[] = [];
    const manifests: AssemblyManifest[] = [];
    let usage: TurnUsage | undefined;
    let stopReason: TurnStopReason = 'completed';
    for (let round = 0; ; round++) {
      const assembled = await raceAbort(
        () =>
          assemble(working, {
            ...config.assembly,
            plugins: config.plugins,
            turnId,
            context: writer.context,
            signal,
          }),
        signal,
      );
      manifests.push(assembled.manifest);
      const request = {
        sessionId: writer.id,
        turnId,
        round,
        invokeSeq: writer.countInvocation(),
        items: assembled.items,
        manifest: assembled.manifest,
        context: writer.context,
        signal,
      };
      const response = parseInput(
        modelResponseSchema,
        await raceAbort(() => modelCall(request), signal),
        'model response',
      );
      throwIfAborted(signal);
      working.appendItems(response.output, meta('model'));
      produced.push(...response.output);
      if (response.usage) {
        usage = response.usage;
        working.append({
          type: 'meta',
          meta: meta('runtime'),
          payload: { event: 'turn.usage', data: response.usage },
        });
      }
      const pending = pendingCalls(response.output);
      if (pending.length === 0) break;
      if (executeTool === undefined) {
        stopReason = 'tool-calls-pending';
        break;
      }
      if (round + 1 >= maxModelCalls) {
        stopReason = 'max-model-calls';
        break;
      }
      for (const call of pending) {
        const result = await raceAbort(
          () =>
            executeTool(call, { sessionId: writer.id, turnId, context: writer.context, signal }),
          signal,
        );
        const checked = toolOutputSchema.safeParse(result);
        if (!checked.success) {
          throw invalidField(
            `output of tool ${call.name} (call ${call.call_id})`,
            'executeTool result',
            result,
            'must be a string, an array of content parts ({ type, … }) or { output, outputRef? }',
          );
        }
        const { output, outputRef } =
          typeof checked.data === 'string' || Array.isArray(checked.data)
            ? { output: checked.data, outputRef: undefined }
            : checked.data;
        // The output_ref the run file gave this output, for the seed 001 tool message.
        const outputItem: InputItem = {
          type: 'function_call_output',
          call_id: call.call_id,
          output,
          ...(outputRef === undefined
            ? {}
            : { [CHAT_MESSAGE_KEY]: { fields: { output_ref: outputRef } } }),
        };
        working.appendItems([outputItem], meta('tool'));
        produced.push(outputItem);
      }
    }
    throwIfAborted(signal);
    turn.committing = true;
    const revision = await writer.commit(working, settings.runId);
    const episodes = writer.merge(working, startId);
    return {
      turnId,
      stopReason,
      items: produced,
      ...(usage === undefined ? {} : { usage }),
      manifests,
      episodes,
      revision,
    };
  } catch (error) {
    if (!signal.aborted || turn.committing) throw error;
    turn.finished = true;
    if (turn.interrupt !== null) await commitInterrupt(writer, turn, working, startId);
    throw signal.reason;
  }
}
