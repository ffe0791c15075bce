import {
  detailOf,
  type ProviderOptionsRecord,
  providerOptionsOf,
  withDetail,
} from './ai-sdk-detail.js';
import { describeData, parseDataUrl, toDataUrl, toJsonSafe } from './binary-data.js';

/** A content part of a message, AI SDK or Responses style. */
export type ContentPart = { type: string; [key: string]: unknown };

/** Which side of the conversation a part belongs to (Responses names text parts by it). */
export type PartRole = 'user' | 'assistant' | 'system';

function dataFields(
  value: unknown,
  mediaType: string | undefined,
  dataField: 'image_url' | 'file_data',
  urlField: 'image_url' | 'file_url',
): { fields: Record<string, unknown>; mediaType?: string; data?: unknown } {
  const described = describeData(value, mediaType);
  if (described.kind === 'bytes') {
    return { fields: { [dataField]: toDataUrl(described.base64, described.mediaType) } };
  }
  if (described.kind === 'url') {
    return {
      fields: { [urlField]: described.href },
      ...(mediaType === undefined ? {} : { mediaType }),
    };
  }
  return { fields: {}, ...(mediaType === undefined ? {} : { mediaType }), data: described.value };
}

/**
 * An AI SDK content part (text, image, file; anything else is kept as it is) as a Responses
 * content part: `input_text`/`output_text`, `input_image` (`image_url` is a URL or a data URL),
 * `input_file` (`file_data` is a data URL, or `file_url`).
 */
export function partToResponses(part: ContentPart, role: PartRole): ContentPart {
  const providerOptions = part.providerOptions as ProviderOptionsRecord | undefined;
  switch (part.type) {
    case 'text':
      return {
        type: role === 'assistant' ? 'output_text' : 'input_text',
        text: String(part.text),
        ...withDetail({ providerOptions }),
      };
    case 'image': {
      const mediaType = part.mediaType as string | undefined;
      const stored = dataFields(part.image, mediaType, 'image_url', 'image_url');
      return {
        type: 'input_image',
        ...stored.fields,
        ...withDetail({ providerOptions, mediaType: stored.mediaType, data: stored.data }),
      };
    }
    case 'file': {
      const mediaType = part.mediaType as string | undefined;
      const stored = dataFields(part.data, mediaType, 'file_data', 'file_url');
      return {
        type: 'input_file',
        ...stored.fields,
        ...(typeof part.filename === 'string' ? { filename: part.filename } : {}),
        ...withDetail({ providerOptions, mediaType: stored.mediaType, data: stored.data }),
      };
    }
    default:
      return toJsonSafe(part) as ContentPart;
  }
}

function urlOrText(href: string): URL | string {
  try {
    return new URL(href);
  } catch {
    return href;
  }
}

/**
 * A Responses content part back to an AI SDK part: text, image (`image` is base64 text or a `URL`)
 * or file (`data` is base64 text or a `URL`). Other parts are returned as they are.
 */
export function partFromResponses(part: ContentPart): ContentPart {
  const detail = detailOf(part);
  const options = providerOptionsOf(detail);
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: String(part.text ?? ''), ...options };
    case 'input_image': {
      if (typeof part.image_url !== 'string') {
        if (detail.data === undefined) return part;
        return {
          type: 'image',
          image: detail.data,
          ...(detail.mediaType === undefined ? {} : { mediaType: detail.mediaType }),
          ...options,
        };
      }
      const data = parseDataUrl(part.image_url);
      const mediaType = detail.mediaType ?? data?.mediaType;
      return {
        type: 'image',
        image: data === null ? urlOrText(part.image_url) : data.base64,
        ...(mediaType === undefined ? {} : { mediaType }),
        ...options,
      };
    }
    case 'input_file': {
      const fileData = typeof part.file_data === 'string' ? parseDataUrl(part.file_data) : null;
      const data =
        fileData !== null
          ? fileData.base64
          : typeof part.file_url === 'string'
            ? urlOrText(part.file_url)
            : detail.data;
      if (data === undefined) return part;
      return {
        type: 'file',
        data,
        ...(typeof part.filename === 'string' ? { filename: part.filename } : {}),
        mediaType: detail.mediaType ?? fileData?.mediaType ?? 'application/octet-stream',
        ...options,
      };
    }
    default:
      return part;
  }
}
