import type { InputItem } from '@episodic/core';
import { parseInput } from '@episodic/core/adapter';
import { inputItemSchema } from '@episodic/core/schemas';
import type { ModelMessage } from 'ai';
import * as z from 'zod';
import {
  type AiSdkDetail,
  detailOf,
  type ProviderOptionsRecord,
  providerOptionsOf,
  withDetail,
} from './ai-sdk-detail.js';
import { toJsonSafe } from './binary-data.js';
import {
  type ContentPart,
  type PartRole,
  partFromResponses,
  partToResponses,
} from './content-parts.js';
import { withoutHistoryMark } from './history-tag.js';
import { type OutputLike, outputFromResponses, outputToResponses } from './tool-result-output.js';

/**
 * A message as the AI SDK gives it: a `ModelMessage`, or a message of a language model prompt
 * (what a middleware sees), which has the same roles and parts.
 */
export type MessageLike = {
  role: string;
  content: string | ContentPart[];
  providerOptions?: unknown;
};

/** The item type for a tool message part that has no Responses form (a tool approval response). */
export const AI_SDK_PART_ITEM = 'ai_sdk_part';

const messagesSchema = z.array(
  z.looseObject({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string().min(1) }))]),
  }),
);

const itemsSchema = z.array(inputItemSchema);

function optionsOf(part: ContentPart): ProviderOptionsRecord | undefined {
  return part.providerOptions as ProviderOptionsRecord | undefined;
}

function stringifyInput(input: unknown): string {
  return JSON.stringify(toJsonSafe(input) ?? null);
}

/** The item of an AI SDK `tool-call` part (`input` is the parsed value). */
function toolCallItem(part: ContentPart): InputItem {
  return {
    type: 'function_call',
    call_id: String(part.toolCallId),
    name: String(part.toolName),
    arguments: stringifyInput(part.input),
    ...withDetail({
      providerOptions: optionsOf(part),
      providerExecuted: part.providerExecuted as boolean | undefined,
    }),
  };
}

/** The item of an AI SDK `tool-result` part. */
function toolResultItem(part: ContentPart, inAssistant: boolean): InputItem {
  const stored = outputToResponses(part.output as OutputLike);
  return {
    type: 'function_call_output',
    call_id: String(part.toolCallId),
    output: stored.output,
    ...withDetail({
      ...stored.detail,
      toolName: String(part.toolName),
      providerOptions: optionsOf(part),
      ...(inAssistant ? { inAssistant: true } : {}),
    }),
  };
}

function reasoningItem(part: ContentPart): InputItem {
  return {
    type: 'reasoning',
    summary: [],
    content: [{ type: 'reasoning_text', text: String(part.text) }],
    ...withDetail({ providerOptions: optionsOf(part) }),
  };
}

/** Marks the first item of a message (and carries the message's provider options). */
function lead(items: InputItem[], providerOptions: ProviderOptionsRecord | undefined): InputItem[] {
  const first = items[0];
  if (first === undefined) return items;
  const detail = detailOf(first);
  items[0] = {
    ...first,
    ai_sdk: {
      ...detail,
      message: providerOptions === undefined ? {} : { providerOptions },
    } satisfies AiSdkDetail,
  };
  return items;
}

function assistantItems(content: string | ContentPart[]): InputItem[] {
  if (typeof content === 'string' || content.length === 0) {
    return [
      { type: 'message', role: 'assistant', content: typeof content === 'string' ? content : [] },
    ];
  }
  const items: InputItem[] = [];
  let parts: ContentPart[] | null = null;
  for (const part of content) {
    switch (part.type) {
      case 'reasoning':
        parts = null;
        items.push(reasoningItem(part));
        break;
      case 'tool-call':
        parts = null;
        items.push(toolCallItem(part));
        break;
      case 'tool-result':
        parts = null;
        items.push(toolResultItem(part, true));
        break;
      default:
        if (parts === null) {
          parts = [];
          items.push({ type: 'message', role: 'assistant', content: parts });
        }
        parts.push(partToResponses(part, 'assistant'));
    }
  }
  return items;
}

function toolItems(content: string | ContentPart[]): InputItem[] {
  if (typeof content === 'string' || content.length === 0) return [{ type: AI_SDK_PART_ITEM }];
  return content.map((part) =>
    part.type === 'tool-result'
      ? toolResultItem(part, false)
      : { type: AI_SDK_PART_ITEM, part: toJsonSafe(part) },
  );
}

function systemText(content: string | ContentPart[]): string {
  return typeof content === 'string'
    ? content
    : content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
}

/** One AI SDK message as items (the first item of several carries `ai_sdk.message`). */
export function messageToItems(message: MessageLike): InputItem[] {
  const providerOptions = withoutHistoryMark(message.providerOptions);
  const role = message.role;
  if (role === 'system' || role === 'user') {
    const content =
      role === 'system'
        ? systemText(message.content)
        : typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => partToResponses(part, role as PartRole));
    const item: InputItem = {
      type: 'message',
      role,
      content,
      ...withDetail({ message: providerOptions === undefined ? undefined : { providerOptions } }),
    };
    return [item];
  }
  if (role === 'assistant') return lead(assistantItems(message.content), providerOptions);
  return lead(toolItems(message.content), providerOptions);
}

/**
 * Converts AI SDK messages (`ModelMessage`s, or a language model prompt) to Episodic items
 * (Responses style): a system or user message becomes one `message` item (text, `input_image`
 * and `input_file` parts); an assistant message becomes its `message`, `reasoning` and
 * `function_call` items in order (provider-executed tool results as `function_call_output`s);
 * each tool result becomes a `function_call_output`. Binary data becomes data URLs. What a
 * Responses item has no field for is kept under `ai_sdk`, so `itemsToModelMessages` gives the
 * messages back. The `episodic` history mark of `sessionMessages` is not stored.
 */
export function modelMessagesToItems(messages: readonly ModelMessage[]): InputItem[] {
  parseInput(messagesSchema, messages, 'modelMessagesToItems messages');
  return (messages as unknown as MessageLike[]).flatMap(messageToItems);
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function reasoningText(item: InputItem): string {
  const pick = (list: unknown, type: string) =>
    Array.isArray(list)
      ? (list as ContentPart[])
          .filter((part) => part.type === type && typeof part.text === 'string')
          .map((part) => part.text as string)
      : [];
  const content = pick(item.content, 'reasoning_text');
  return content.length > 0 ? content.join('') : pick(item.summary, 'summary_text').join('\n');
}

interface OpenMessage {
  role: 'assistant' | 'tool';
  message: {
    role: 'assistant' | 'tool';
    content: string | ContentPart[];
    providerOptions?: unknown;
  };
}

/**
 * Converts Episodic items back to AI SDK `ModelMessage`s: the inverse of `modelMessagesToItems`
 * for items it made, and a faithful reading of other Responses-style items (consecutive assistant
 * text, reasoning and calls become one assistant message; consecutive outputs one tool message,
 * each output taking its tool name from its call). `developer` messages become `system` messages;
 * item kinds with no message form (e.g. a provider's `web_search_call`) are left out.
 */
export function itemsToModelMessages(items: readonly InputItem[]): ModelMessage[] {
  parseInput(itemsSchema, items, 'itemsToModelMessages items');
  return convertItems(items).messages;
}

/** The messages of `items`, and for each message the indexes of the items it came from. */
export function convertItems(items: readonly InputItem[]): {
  messages: ModelMessage[];
  sources: number[][];
} {
  const messages: MessageLike[] = [];
  const toolNames = new Map<string, string>();
  let open: OpenMessage | null = null;

  const side = (role: 'assistant' | 'tool', detail: AiSdkDetail): ContentPart[] => {
    if (open === null || open.role !== role || detail.message !== undefined) {
      const providerOptions = detail.message?.providerOptions;
      const message = {
        role,
        content: [] as ContentPart[],
        ...(providerOptions === undefined ? {} : { providerOptions }),
      };
      messages.push(message);
      open = { role, message };
    }
    const current = open as OpenMessage;
    if (typeof current.message.content === 'string') {
      const text = current.message.content;
      current.message.content = text === '' ? [] : [{ type: 'text', text }];
    }
    return current.message.content as ContentPart[];
  };

  const sources: number[][] = [];
  for (const [index, item] of items.entries()) {
    const detail = detailOf(item);
    let handled = true;
    switch (item.type) {
      case 'message': {
        const role = String(item.role);
        const providerOptions = detail.message?.providerOptions;
        const options = providerOptions === undefined ? {} : { providerOptions };
        if (role === 'assistant') {
          const content = item.content as string | ContentPart[];
          if (typeof content === 'string') {
            const startsMessage =
              open === null || open.role !== 'assistant' || detail.message !== undefined;
            if (startsMessage) {
              const message = { role: 'assistant', content, ...options };
              messages.push(message);
              open = { role: 'assistant', message: message as OpenMessage['message'] };
            } else if (content !== '') {
              side('assistant', detail).push({ type: 'text', text: content });
            }
          } else {
            side('assistant', detail).push(...content.map(partFromResponses));
          }
          break;
        }
        open = null;
        if (role === 'user') {
          const content = item.content as string | ContentPart[];
          messages.push({
            role: 'user',
            content: typeof content === 'string' ? content : content.map(partFromResponses),
            ...options,
          });
        } else {
          messages.push({
            role: 'system',
            content: systemText(item.content as string | ContentPart[]),
            ...options,
          });
        }
        break;
      }
      case 'reasoning':
        side('assistant', detail).push({
          type: 'reasoning',
          text: reasoningText(item),
          ...providerOptionsOf(detail),
        });
        break;
      case 'function_call': {
        const callId = String(item.call_id);
        toolNames.set(callId, String(item.name));
        side('assistant', detail).push({
          type: 'tool-call',
          toolCallId: callId,
          toolName: String(item.name),
          input: parseArguments(String(item.arguments)),
          ...(detail.providerExecuted === undefined
            ? {}
            : { providerExecuted: detail.providerExecuted }),
          ...providerOptionsOf(detail),
        });
        break;
      }
      case 'function_call_output': {
        const callId = String(item.call_id);
        side(detail.inAssistant === true ? 'assistant' : 'tool', detail).push({
          type: 'tool-result',
          toolCallId: callId,
          toolName: detail.toolName ?? toolNames.get(callId) ?? 'unknown',
          output: outputFromResponses(item.output, detail),
          ...providerOptionsOf(detail),
        });
        break;
      }
      case AI_SDK_PART_ITEM: {
        const content = side('tool', detail);
        if (typeof item.part === 'object' && item.part !== null)
          content.push(item.part as ContentPart);
        break;
      }
      default:
        handled = false;
        break;
    }
    if (handled) {
      const at = messages.length - 1;
      sources[at] = [...(sources[at] ?? []), index];
    }
  }
  return { messages: messages as unknown as ModelMessage[], sources };
}
