import type { InputItem, LlmUsage, TurnUsage } from '@episodic/core';
import { toJsonSafe } from '../convert/binary-data.js';
import type { ContentPart } from '../convert/content-parts.js';
import { messageToItems } from '../convert/model-messages.js';

/** One part of a language model's output (`LanguageModelV3Content` / `V4`), structurally. */
export type OutputContent = { type: string; [key: string]: unknown };

/** A language model's usage, V3/V4 (token objects) or V2 (plain numbers). */
export type UsageLike = {
  inputTokens?: number | { total?: number; cacheRead?: number; cacheWrite?: number } | undefined;
  outputTokens?: number | { total?: number; reasoning?: number } | undefined;
  totalTokens?: number;
  [key: string]: unknown;
};

/** A finish reason, V3/V4 (`{ unified, raw }`) or V2 (a string). */
export type FinishReasonLike = string | { unified?: string; raw?: string } | undefined;

/** The unified finish reason (`stop`, `length`, `tool-calls`, …). */
export function unifiedFinishReason(reason: FinishReasonLike): string {
  if (typeof reason === 'string') return reason;
  return reason?.unified ?? 'other';
}

/** The provider's own finish reason, when it gave one. */
export function rawFinishReason(reason: FinishReasonLike): string | undefined {
  return typeof reason === 'object' ? reason?.raw : undefined;
}

function total(value: UsageLike['inputTokens']): number | undefined {
  const count = typeof value === 'number' ? value : value?.total;
  return typeof count === 'number' && Number.isFinite(count) && count >= 0 ? count : undefined;
}

function field(value: UsageLike['inputTokens'] | UsageLike['outputTokens'], key: string) {
  if (typeof value !== 'object' || value === null) return undefined;
  const count = (value as Record<string, unknown>)[key];
  return typeof count === 'number' && Number.isFinite(count) && count >= 0 ? count : undefined;
}

/** The usage as seed 001's `llm.response.output.usage`, or null when the provider reported none. */
export function toLlmUsage(usage: UsageLike | undefined, model: string): LlmUsage | null {
  const input = total(usage?.inputTokens);
  const output = total(usage?.outputTokens);
  if (input === undefined && output === undefined) return null;
  const llm: LlmUsage = {
    model,
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    total_tokens:
      typeof usage?.totalTokens === 'number' ? usage.totalTokens : (input ?? 0) + (output ?? 0),
  };
  const cached = field(usage?.inputTokens, 'cacheRead');
  const created = field(usage?.inputTokens, 'cacheWrite');
  if (cached !== undefined) llm.input_cached_tokens = cached;
  if (created !== undefined) llm.input_cache_creation_tokens = created;
  return llm;
}

/** The usage as the `turn.usage` meta episode (drives core's budget rule), or null. */
export function toTurnUsage(usage: UsageLike | undefined): TurnUsage | null {
  const input = total(usage?.inputTokens);
  if (input === undefined) return null;
  const output = total(usage?.outputTokens);
  const turn: TurnUsage = { inputTokens: Math.round(input) };
  if (output !== undefined) {
    turn.outputTokens = Math.round(output);
    turn.totalTokens = Math.round(input + output);
  }
  return turn;
}

function providerResultOutput(part: OutputContent): ContentPart {
  const error = part.isError === true;
  const value = toJsonSafe(part.result);
  if (typeof value === 'string') return { type: error ? 'error-text' : 'text', value };
  return { type: error ? 'error-json' : 'json', value: value ?? null };
}

/**
 * A model's output as the assistant message the AI SDK builds from it (provider metadata becomes
 * the parts' provider options, as in the AI SDK's response messages), then as items. Tool call
 * `arguments` keep the exact text the model generated. Sources are not part of any message.
 */
export function outputToItems(content: readonly OutputContent[]): InputItem[] {
  const parts: ContentPart[] = [];
  const rawArguments = new Map<string, string>();
  for (const part of content) {
    const options =
      part.providerMetadata === undefined ? {} : { providerOptions: part.providerMetadata };
    switch (part.type) {
      case 'text':
      case 'reasoning':
        parts.push({ type: part.type, text: String(part.text ?? ''), ...options });
        break;
      case 'file':
        parts.push({ type: 'file', data: part.data, mediaType: part.mediaType, ...options });
        break;
      case 'tool-call': {
        const callId = String(part.toolCallId);
        const text = typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {});
        rawArguments.set(callId, text);
        parts.push({
          type: 'tool-call',
          toolCallId: callId,
          toolName: part.toolName,
          input: {},
          ...(part.providerExecuted === undefined
            ? {}
            : { providerExecuted: part.providerExecuted }),
          ...options,
        });
        break;
      }
      case 'tool-result':
        parts.push({
          type: 'tool-result',
          toolCallId: String(part.toolCallId),
          toolName: part.toolName,
          output: providerResultOutput(part),
          ...options,
        });
        break;
      case 'source':
        break;
      default: {
        const { providerMetadata: _metadata, ...rest } = part;
        parts.push({ ...rest, ...options });
      }
    }
  }
  if (parts.length === 0) return [];
  return messageToItems({ role: 'assistant', content: parts }).map((item) =>
    item.type === 'function_call' && rawArguments.has(String(item.call_id))
      ? { ...item, arguments: rawArguments.get(String(item.call_id)) as string }
      : item,
  );
}

/** The text of an output (its `output_text` parts), e.g. for `run.end.final`. */
export function outputText(items: readonly InputItem[]): string {
  let text = '';
  for (const item of items) {
    if (item.type !== 'message') continue;
    if (typeof item.content === 'string') text += item.content;
    else
      for (const part of item.content as ContentPart[])
        if (typeof part.text === 'string') text += part.text;
  }
  return text;
}
