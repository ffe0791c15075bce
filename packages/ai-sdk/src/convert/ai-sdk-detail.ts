/**
 * Episodic stores model input as Responses-style items (seed 000). What an AI SDK message says that
 * a Responses item has no field for (provider options, the tool name of an output, the kind of a
 * tool result, where one message ends and the next begins) is kept on the item or part under one
 * key, `ai_sdk`, so the conversion back is exact. Other readers of the items ignore it.
 */

/** The key of the AI SDK detail on an item or a content part. */
export const AI_SDK_DETAIL_KEY = 'ai_sdk';

/** Provider options, as the AI SDK types them (`Record<provider, Record<key, JSON>>`). */
export type ProviderOptionsRecord = Record<string, Record<string, unknown>>;

/** The AI SDK detail of one item or part. */
export interface AiSdkDetail {
  /**
   * Present on the first item of an AI SDK message: the items up to the next one with `message`
   * (or the next user or system message) came from one message. Holds that message's options.
   */
  message?: { providerOptions?: ProviderOptionsRecord };
  /** The part's own provider options. */
  providerOptions?: ProviderOptionsRecord;
  /** A tool call the provider executed itself. */
  providerExecuted?: boolean;
  /** The tool name of a tool result (a Responses output has none). */
  toolName?: string;
  /** The kind of a tool result other than plain text or content parts. */
  output?: 'json' | 'error-text' | 'error-json' | 'execution-denied';
  /** The reason of an `execution-denied` tool result, when it has one. */
  reason?: string;
  /** The provider options of a tool result's `output` object. */
  outputProviderOptions?: ProviderOptionsRecord;
  /** A tool result the provider returned inside the assistant message. */
  inAssistant?: boolean;
  /** The media type when the data itself does not carry it (a URL). */
  mediaType?: string;
  /** The AI SDK part type when it is not the default one for the Responses part. */
  partType?: string;
  /** AI SDK 7 file data the item keeps as it is (`{ type: 'text' | 'reference', … }`). */
  data?: unknown;
}

/** The `ai_sdk` detail of an item or part, if any. */
export function detailOf(value: { [key: string]: unknown }): AiSdkDetail {
  const detail = value[AI_SDK_DETAIL_KEY];
  return typeof detail === 'object' && detail !== null ? (detail as AiSdkDetail) : {};
}

/** `{ ai_sdk: detail }` when the detail has any field, else `{}` (so plain items stay plain). */
export function withDetail(detail: AiSdkDetail): { ai_sdk?: AiSdkDetail } {
  const entries = Object.entries(detail).filter(([, value]) => value !== undefined);
  return entries.length === 0 ? {} : { [AI_SDK_DETAIL_KEY]: Object.fromEntries(entries) };
}

/** `{ providerOptions }` from a detail's own provider options, or `{}` when it has none. */
export function providerOptionsOf(detail: AiSdkDetail): {
  providerOptions?: ProviderOptionsRecord;
} {
  return detail.providerOptions === undefined ? {} : { providerOptions: detail.providerOptions };
}
