import {
  type AiSdkDetail,
  detailOf,
  type ProviderOptionsRecord,
  providerOptionsOf,
  withDetail,
} from './ai-sdk-detail.js';
import { parseDataUrl, toDataUrl, toJsonSafe } from './binary-data.js';
import type { ContentPart } from './content-parts.js';

/** An AI SDK tool result `output` (`ToolResultOutput`) or one of its parts, structurally. */
export type OutputLike = { type: string; [key: string]: unknown };

/** What a Responses `function_call_output` stores for an AI SDK tool result output. */
export interface StoredOutput {
  /** The `output` field: text, or content parts. */
  output: string | ContentPart[];
  /** The detail needed to rebuild the AI SDK output exactly. */
  detail: AiSdkDetail;
}

/** What a model reads for a denied tool call without a reason. */
export const EXECUTION_DENIED_TEXT = 'Tool execution denied.';

function stringifyJson(value: unknown): string {
  return JSON.stringify(value === undefined ? null : toJsonSafe(value));
}

function optionsOf(part: OutputLike): ProviderOptionsRecord | undefined {
  return part.providerOptions as ProviderOptionsRecord | undefined;
}

/** One part of a `content` tool result as a Responses output part. */
function contentPartToResponses(part: OutputLike): ContentPart {
  const providerOptions = optionsOf(part);
  switch (part.type) {
    case 'text':
      return { type: 'input_text', text: String(part.text), ...withDetail({ providerOptions }) };
    case 'image-data':
      return {
        type: 'input_image',
        image_url: toDataUrl(String(part.data), part.mediaType as string | undefined),
        ...withDetail({ providerOptions }),
      };
    case 'image-url': {
      const url = String(part.url);
      return {
        type: 'input_image',
        image_url: url,
        // A data URL here would read back as image-data without the marker.
        ...withDetail({
          providerOptions,
          partType: url.startsWith('data:') ? 'image-url' : undefined,
        }),
      };
    }
    case 'file-data':
    case 'media':
      return {
        type: 'input_file',
        file_data: toDataUrl(String(part.data), part.mediaType as string | undefined),
        ...(typeof part.filename === 'string' ? { filename: part.filename } : {}),
        ...withDetail({ providerOptions, partType: part.type === 'media' ? 'media' : undefined }),
      };
    case 'file-url': {
      const url = String(part.url);
      return {
        type: 'input_file',
        file_url: url,
        ...withDetail({
          providerOptions,
          mediaType: part.mediaType as string | undefined,
          partType: url.startsWith('data:') ? 'file-url' : undefined,
        }),
      };
    }
    default:
      // file-id, image-file-id, custom and the parts of newer versions: kept as they are.
      return toJsonSafe(part) as ContentPart;
  }
}

/** A Responses output part back to the `content` tool result part it came from. */
function contentPartFromResponses(part: ContentPart): OutputLike {
  const detail = detailOf(part);
  const options = providerOptionsOf(detail);
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: String(part.text ?? ''), ...options };
    case 'input_image': {
      const url = String(part.image_url ?? '');
      const data = detail.partType === 'image-url' ? null : parseDataUrl(url);
      return data === null
        ? { type: 'image-url', url, ...options }
        : { type: 'image-data', data: data.base64, mediaType: data.mediaType ?? '', ...options };
    }
    case 'input_file': {
      const filename = typeof part.filename === 'string' ? { filename: part.filename } : {};
      const fileData = typeof part.file_data === 'string' ? part.file_data : undefined;
      const data =
        fileData === undefined || detail.partType === 'file-url' ? null : parseDataUrl(fileData);
      if (data !== null) {
        const mediaType = data.mediaType ?? '';
        if (detail.partType === 'media') return { type: 'media', data: data.base64, mediaType };
        return { type: 'file-data', data: data.base64, mediaType, ...filename, ...options };
      }
      return {
        type: 'file-url',
        url: String(part.file_url ?? fileData ?? ''),
        ...(detail.mediaType === undefined ? {} : { mediaType: detail.mediaType }),
        ...options,
      };
    }
    default:
      return part;
  }
}

/** An AI SDK tool result output as a `function_call_output`'s `output` and its detail. */
export function outputToResponses(output: OutputLike): StoredOutput {
  const outputProviderOptions = optionsOf(output);
  const base: AiSdkDetail = outputProviderOptions === undefined ? {} : { outputProviderOptions };
  switch (output.type) {
    case 'text':
      return { output: String(output.value ?? ''), detail: base };
    case 'error-text':
      return { output: String(output.value ?? ''), detail: { ...base, output: 'error-text' } };
    case 'json':
    case 'error-json':
      return { output: stringifyJson(output.value), detail: { ...base, output: output.type } };
    case 'execution-denied': {
      const reason = typeof output.reason === 'string' ? output.reason : undefined;
      return {
        output: reason ?? EXECUTION_DENIED_TEXT,
        detail: { ...base, output: 'execution-denied', reason },
      };
    }
    case 'content':
      return {
        output: (Array.isArray(output.value) ? (output.value as OutputLike[]) : []).map(
          contentPartToResponses,
        ),
        detail: base,
      };
    default:
      // An output kind of a newer AI SDK: kept whole so it can be rebuilt.
      return { output: stringifyJson(output), detail: { output: 'json', partType: 'raw' } };
  }
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A `function_call_output`'s `output` back to the AI SDK tool result output. */
export function outputFromResponses(output: unknown, detail: AiSdkDetail): OutputLike {
  const options =
    detail.outputProviderOptions === undefined
      ? {}
      : { providerOptions: detail.outputProviderOptions };
  if (Array.isArray(output)) {
    return {
      type: 'content',
      value: (output as ContentPart[]).map(contentPartFromResponses),
      ...options,
    };
  }
  const text = typeof output === 'string' ? output : JSON.stringify(output ?? null);
  switch (detail.output) {
    case 'json':
      if (detail.partType === 'raw') {
        const raw = parseJsonText(text);
        if (typeof raw === 'object' && raw !== null && typeof (raw as OutputLike).type === 'string')
          return raw as OutputLike;
      }
      return { type: 'json', value: parseJsonText(text), ...options };
    case 'error-json':
      return { type: 'error-json', value: parseJsonText(text), ...options };
    case 'error-text':
      return { type: 'error-text', value: text, ...options };
    case 'execution-denied':
      return {
        type: 'execution-denied',
        ...(detail.reason === undefined ? {} : { reason: detail.reason }),
        ...options,
      };
    default:
      return { type: 'text', value: text, ...options };
  }
}

/** The text of a tool result output, as `tool.output.result_raw` records it. */
export function outputText(stored: StoredOutput): string {
  if (typeof stored.output === 'string') return stored.output;
  return stored.output
    .map((part) => (typeof part.text === 'string' ? part.text : `[${part.type}]`))
    .join('');
}

/** True for tool result kinds that report a failure. */
export function isErrorOutput(detail: AiSdkDetail): boolean {
  return (
    detail.output === 'error-text' ||
    detail.output === 'error-json' ||
    detail.output === 'execution-denied'
  );
}
