import { type BaseMessage, type InputItem, messagesToItems } from '@episodic/core';
import { canonicalJson, safeJsonParse, stableHash } from '@episodic/core/adapter';
import { isoUtc } from '../conversation/build-conversation.js';
import {
  countAt,
  isRecord,
  readJsonObjectLines,
  stringAt,
  without,
} from '../conversation/json-lines.js';
import { sourceOfResponsesItem } from '../conversation/responses-items.js';
import type {
  ImportProblem,
  SourceConversation,
  SourceEntry,
  SourceModelCall,
} from '../conversation/source-conversation.js';

/**
 * OpenAI conversations, in the shapes people save them:
 *
 * - Responses input items (`{ type: 'message' | 'function_call' | 'function_call_output' |
 *   'reasoning' | …, … }`, or a bare `{ role, content }` message);
 * - Chat Completions messages (`{ role, content, tool_calls }`, `{ role: 'tool', tool_call_id }`);
 * - containers: a Responses request (`{ model, instructions, input }`), a response
 *   (`{ object: 'response', output, usage }`), a Chat request (`{ model, messages }`), a chat
 *   completion (`{ choices: [{ message }] }`), a batch line (`{ custom_id, body }`).
 *
 * A JSON document is one conversation (an array of items or messages, or one container). In JSONL,
 * consecutive item or message lines form one conversation and each container line is its own
 * (fine-tuning and batch files hold one conversation per line).
 */

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);
const CHAT_MESSAGE_FIELDS = ['role', 'content', 'tool_calls', 'tool_call_id'];

interface Element {
  readonly value: Record<string, unknown>;
  readonly line?: number;
}

interface Container {
  readonly elements: Element[];
  readonly key?: string;
  readonly model?: string;
  readonly instructions?: string;
  readonly ts?: string;
  /** Output items of a response or the message of a completion: one model call. */
  readonly call?: SourceModelCall;
  readonly outputs: Element[];
  /** The container's fields the conversation does not hold (tools, settings, usage, …). */
  readonly rest?: Record<string, unknown>;
}

/** Container fields the conversation itself holds; the others are kept in the session context. */
const CONVERSATION_FIELDS = [
  'input',
  'output',
  'messages',
  'choices',
  'instructions',
  'model',
  'id',
];

function isChatMessage(value: Record<string, unknown>): boolean {
  return (
    value.type === undefined &&
    typeof value.role === 'string' &&
    (value.role === 'tool' ||
      value.role === 'function' ||
      value.tool_calls !== undefined ||
      value.function_call !== undefined)
  );
}

function responsesUsage(usage: unknown): SourceModelCall['usage'] {
  if (!isRecord(usage)) return undefined;
  const input = countAt(usage, 'input_tokens') ?? countAt(usage, 'prompt_tokens');
  const output = countAt(usage, 'output_tokens') ?? countAt(usage, 'completion_tokens');
  if (input === undefined || output === undefined) return undefined;
  const details = isRecord(usage.input_tokens_details)
    ? usage.input_tokens_details
    : isRecord(usage.prompt_tokens_details)
      ? usage.prompt_tokens_details
      : undefined;
  const cached = countAt(details, 'cached_tokens');
  const total = countAt(usage, 'total_tokens');
  return {
    input_tokens: input,
    output_tokens: output,
    ...(total === undefined ? {} : { total_tokens: total }),
    ...(cached === undefined || cached === 0 ? {} : { input_cached_tokens: cached }),
  };
}

function createdAt(value: Record<string, unknown>): string | undefined {
  const seconds = countAt(value, 'created_at') ?? countAt(value, 'created');
  return seconds === undefined ? undefined : isoUtc(seconds * 1000);
}

function elementsOf(list: unknown, line: number | undefined): Element[] {
  if (typeof list === 'string')
    return [{ value: { role: 'user', content: list }, ...(line === undefined ? {} : { line }) }];
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).map((value) => ({ value, ...(line === undefined ? {} : { line }) }));
}

/** A container's conversation, or undefined when `value` is a bare item or message. */
function containerOf(
  value: Record<string, unknown>,
  line: number | undefined,
): Container | undefined {
  if (
    isRecord(value.body) &&
    (value.body.messages !== undefined || value.body.input !== undefined)
  ) {
    const inner = containerOf(value.body, line);
    if (inner === undefined) return undefined;
    const customId = stringAt(value, 'custom_id');
    const rest = without(value, ['body', 'custom_id']);
    return {
      ...inner,
      ...(customId === undefined ? {} : { key: `batch:${customId}` }),
      rest: { ...rest, ...(inner.rest === undefined ? {} : { body: inner.rest }) },
    };
  }
  const model = stringAt(value, 'model');
  const ts = createdAt(value);
  const id = stringAt(value, 'id');
  const base = {
    ...(model === undefined ? {} : { model }),
    ...(ts === undefined ? {} : { ts }),
    rest: without(value, CONVERSATION_FIELDS),
  };
  const callOf = (key: string, usage: unknown, stopReason: string | undefined): SourceModelCall => {
    const counted = responsesUsage(usage);
    return {
      key,
      ...(model === undefined ? {} : { model }),
      ...(counted === undefined ? {} : { usage: counted }),
      ...(stopReason === undefined ? {} : { stopReason }),
    };
  };
  if (Array.isArray(value.choices)) {
    const choice = value.choices.find(isRecord);
    const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
    return {
      ...base,
      ...(id === undefined ? {} : { key: id }),
      elements: elementsOf(value.messages, line),
      outputs:
        message === undefined ? [] : [{ value: message, ...(line === undefined ? {} : { line }) }],
      call: callOf(
        id ?? 'completion',
        value.usage,
        isRecord(choice) ? stringAt(choice, 'finish_reason') : undefined,
      ),
    };
  }
  const instructions = stringAt(value, 'instructions');
  const withInstructions = instructions === undefined ? {} : { instructions };
  if (Array.isArray(value.output) && (value.object === 'response' || value.input === undefined)) {
    const incomplete = isRecord(value.incomplete_details)
      ? stringAt(value.incomplete_details, 'reason')
      : undefined;
    return {
      ...base,
      ...withInstructions,
      ...(id === undefined ? {} : { key: id }),
      elements: elementsOf(value.input, line),
      outputs: elementsOf(value.output, line),
      call: callOf(id ?? 'response', value.usage, incomplete ?? stringAt(value, 'status')),
    };
  }
  if (value.input !== undefined && value.type === undefined && value.role === undefined) {
    return {
      ...base,
      ...withInstructions,
      elements: elementsOf(value.input, line),
      outputs: elementsOf(value.output, line),
    };
  }
  if (Array.isArray(value.messages) && value.role === undefined) {
    return { ...base, elements: elementsOf(value.messages, line), outputs: [] };
  }
  return undefined;
}

/** The entries of one element (a Responses item or a chat message). */
function entriesOf(
  element: Element,
  index: number,
  call: SourceModelCall | undefined,
  ts: string | undefined,
  calls: { next: number } | undefined,
): SourceEntry[] {
  const { value } = element;
  const origin = {
    ...(element.line === undefined ? {} : { line: element.line }),
    ...(typeof value.id === 'string' ? { id: value.id } : {}),
  };
  const timing = ts === undefined ? {} : { ts };
  if (typeof value.type === 'string' && value.type !== '' && value.type !== 'message') {
    const source = sourceOfResponsesItem(value);
    return [
      {
        kind: 'item',
        item: value as InputItem,
        source,
        origin,
        ...timing,
        ...(source === 'model' && call !== undefined ? { call } : {}),
      },
    ];
  }
  if (typeof value.role !== 'string' || !(MESSAGE_ROLES.has(value.role) || value.role === 'tool')) {
    return [
      {
        kind: 'raw',
        reason: `not an item or message (element ${index + 1})`,
        entry: value,
        origin,
        ...timing,
      },
    ];
  }
  if (value.type === 'message' || !isChatMessage(value)) {
    // A Responses message (with or without `type`): chat-style content parts are converted.
    const [item] = messagesToItems([{ role: value.role, content: value.content } as BaseMessage]);
    const rest = without(value, ['type', 'role', 'content']);
    const source = sourceOfResponsesItem({ type: 'message', role: value.role });
    // In a chat-style list each assistant message is one model call; Responses items that carry
    // no call are grouped by adjacency instead.
    const messageCall =
      source === 'model'
        ? (call ?? (calls === undefined ? undefined : { key: `message-${calls.next++}` }))
        : undefined;
    return [
      {
        kind: 'item',
        item: (item ?? { type: 'message', role: value.role, content: '' }) as InputItem,
        source,
        origin,
        ...timing,
        ...(Object.keys(rest).length === 0 ? {} : { raw: rest }),
        ...(messageCall === undefined ? {} : { call: messageCall }),
        ...(source === 'user' ? { userInput: true } : {}),
      },
    ];
  }
  if (value.role === 'function') {
    return [
      {
        kind: 'raw',
        reason: 'legacy function message (no call id)',
        entry: value,
        origin,
        ...timing,
      },
    ];
  }
  const items = messagesToItems([value as BaseMessage]);
  const rest = without(value, CHAT_MESSAGE_FIELDS);
  const messageCall =
    value.role === 'assistant'
      ? (call ?? { key: `message-${calls === undefined ? index : calls.next++}` })
      : undefined;
  if (items.length === 0) {
    return [
      {
        kind: 'raw',
        reason: `${value.role} message without content`,
        entry: value,
        origin,
        ...timing,
      },
    ];
  }
  return items.map((item, position) => {
    const source =
      value.role === 'tool' ? 'tool' : sourceOfResponsesItem(item as Record<string, unknown>);
    return {
      kind: 'item' as const,
      item,
      source,
      origin,
      ...timing,
      ...(position === 0 && Object.keys(rest).length > 0 ? { raw: rest } : {}),
      ...(messageCall === undefined ? {} : { call: messageCall }),
    };
  });
}

function conversationOf(
  elements: readonly Element[],
  container: Omit<Container, 'elements' | 'outputs'> & { outputs?: readonly Element[] },
  keyText: string,
): SourceConversation {
  const entries: SourceEntry[] = [];
  const chatStyle = !elements.some((element) => typeof element.value.type === 'string');
  const calls = chatStyle ? { next: 1 } : undefined;
  elements.forEach((element, index) => {
    entries.push(...entriesOf(element, index, undefined, container.ts, calls));
  });
  for (const [index, element] of (container.outputs ?? []).entries()) {
    entries.push(
      ...entriesOf(element, elements.length + index, container.call, container.ts, calls),
    );
  }
  const key = container.key ?? `sha:${stableHash(keyText)}`;
  return {
    format: 'openai',
    key,
    agent: { name: 'openai' },
    model: {
      provider: 'openai',
      ...(container.model === undefined ? {} : { name: container.model }),
    },
    ...(container.instructions === undefined ? {} : { systemPrompt: container.instructions }),
    context: {
      ...(container.key === undefined ? {} : { id: container.key }),
      ...(container.rest === undefined || Object.keys(container.rest).length === 0
        ? {}
        : { container: container.rest }),
    },
    entries,
  };
}

function safeCanonical(value: unknown): string {
  try {
    return canonicalJson(value);
  } catch {
    return JSON.stringify(value) ?? '';
  }
}

/** Reads an OpenAI JSON or JSONL text into conversations. Damaged lines go to `problems`. */
export function parseOpenAI(
  text: string,
  problems: ImportProblem[],
  label?: string,
): SourceConversation[] {
  const where = label === undefined ? {} : { source: label };
  const document = safeJsonParse(text.replace(/^\uFEFF/, '').trim());
  if (document.success) {
    const value = document.value;
    if (Array.isArray(value)) {
      const elements = value.filter(isRecord).map((item) => ({ value: item }));
      if (elements.length !== value.length)
        problems.push({
          ...where,
          message: `${value.length - elements.length} array element(s) are not JSON objects; skipped`,
        });
      return elements.length === 0 ? [] : [conversationOf(elements, {}, safeCanonical(value))];
    }
    if (isRecord(value)) {
      const container = containerOf(value, undefined);
      if (container !== undefined)
        return [conversationOf(container.elements, container, safeCanonical(value))];
      return [conversationOf([{ value }], {}, safeCanonical(value))];
    }
    problems.push({
      ...where,
      message: 'the document is neither an array nor an object; nothing to import',
    });
    return [];
  }
  const conversations: SourceConversation[] = [];
  let stream: Element[] = [];
  const flush = () => {
    if (stream.length === 0) return;
    conversations.push(
      conversationOf(stream, {}, safeCanonical(stream.map((element) => element.value))),
    );
    stream = [];
  };
  for (const { line, value } of readJsonObjectLines(text, problems, label)) {
    const container = containerOf(value, line);
    if (container === undefined) {
      stream.push({ value, line });
      continue;
    }
    flush();
    conversations.push(conversationOf(container.elements, container, safeCanonical(value)));
  }
  flush();
  return conversations;
}
