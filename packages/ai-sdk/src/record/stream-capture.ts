import type { FinishReasonLike, OutputContent, UsageLike } from './model-output.js';

/** A stream part of a language model (`LanguageModelV3StreamPart` / `V4`), structurally. */
export type StreamPartLike = { type: string; [key: string]: unknown };

/** What a streamed step produced, gathered from its parts. */
export interface CapturedStep {
  /** The content in the order it started; only parts that finished (text-end, a whole tool call). */
  readonly content: OutputContent[];
  readonly usage: UsageLike | undefined;
  readonly finishReason: FinishReasonLike;
  readonly providerMetadata: unknown;
  readonly response: Record<string, unknown>;
  /** Error parts the stream carried. */
  readonly errors: unknown[];
  /** True once a `finish` part arrived. */
  readonly finished: boolean;
}

interface Entry {
  part: OutputContent;
  complete: boolean;
}

/**
 * Gathers the parts of a streamed step into the content the step produced, as the AI SDK does:
 * text and reasoning from their start, deltas and end (by id); tool calls, tool results, files
 * and approval requests as they come. Parts that had not finished when the stream stopped are not
 * part of `content`, so an aborted step keeps exactly what was complete.
 */
export class StreamCapture {
  private readonly entries: Entry[] = [];
  private readonly open = new Map<string, Entry>();
  private usage: UsageLike | undefined;
  private finishReason: FinishReasonLike;
  private providerMetadata: unknown;
  private readonly response: Record<string, unknown> = {};
  private readonly errors: unknown[] = [];
  private finished = false;

  add(part: StreamPartLike): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const kind = part.type === 'text-start' ? 'text' : 'reasoning';
        const entry: Entry = {
          part: { type: kind, text: '', ...metadataOf(part) },
          complete: false,
        };
        this.entries.push(entry);
        this.open.set(`${kind}:${String(part.id)}`, entry);
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const entry = this.open.get(`${part.type.split('-')[0]}:${String(part.id)}`);
        if (entry === undefined) return;
        entry.part.text = `${String(entry.part.text)}${String(part.delta ?? '')}`;
        Object.assign(entry.part, metadataOf(part));
        return;
      }
      case 'text-end':
      case 'reasoning-end': {
        const key = `${part.type.split('-')[0]}:${String(part.id)}`;
        const entry = this.open.get(key);
        if (entry === undefined) return;
        Object.assign(entry.part, metadataOf(part));
        entry.complete = true;
        this.open.delete(key);
        return;
      }
      case 'tool-call':
      case 'tool-result':
      case 'file':
      case 'tool-approval-request':
      case 'source':
      case 'custom':
      case 'reasoning-file':
        if (part.type === 'tool-result' && part.preliminary === true) return;
        this.entries.push({ part: { ...part }, complete: true });
        return;
      case 'response-metadata': {
        const { type: _type, ...metadata } = part;
        Object.assign(this.response, metadata);
        return;
      }
      case 'finish':
        this.usage = part.usage as UsageLike | undefined;
        this.finishReason = part.finishReason as FinishReasonLike;
        this.providerMetadata = part.providerMetadata;
        this.finished = true;
        return;
      case 'error':
        this.errors.push(part.error);
        return;
      default:
        // stream-start, tool-input-*, raw and parts of newer versions carry nothing to record.
        return;
    }
  }

  result(): CapturedStep {
    return {
      content: this.entries.filter((entry) => entry.complete).map((entry) => entry.part),
      usage: this.usage,
      finishReason: this.finishReason,
      providerMetadata: this.providerMetadata,
      response: { ...this.response },
      errors: [...this.errors],
      finished: this.finished,
    };
  }
}

function metadataOf(part: StreamPartLike): { providerMetadata?: unknown } {
  return part.providerMetadata === undefined ? {} : { providerMetadata: part.providerMetadata };
}
