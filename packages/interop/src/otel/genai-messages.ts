import type { BaseMessage } from '@episodic/core';
import { textOfContent } from '../conversation/text-of.js';

/** A message part in the OpenTelemetry GenAI message format (`gen_ai.input.messages`). */
type GenAiPart =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string };

/** A message in the OpenTelemetry GenAI message format. */
export interface GenAiMessage {
  role: string;
  parts: GenAiPart[];
  finish_reason?: string;
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Chat messages (seed 001's `BaseMessage`) in the GenAI semantic conventions' message format:
 * `{ role, parts: [{ type: 'text', content }, { type: 'tool_call', id, name, arguments },
 * { type: 'tool_call_response', id, response }] }`.
 */
export function toGenAiMessages(
  messages: readonly BaseMessage[],
  finishReason?: string,
): GenAiMessage[] {
  return messages.map((message) => {
    const parts: GenAiPart[] = [];
    const text = textOfContent(message.content);
    if (message.role === 'tool' && typeof message.tool_call_id === 'string') {
      parts.push({ type: 'tool_call_response', id: message.tool_call_id, response: text });
    } else if (text !== '') {
      parts.push({ type: 'text', content: text });
    }
    for (const call of message.tool_calls ?? []) {
      parts.push({
        type: 'tool_call',
        id: call.id,
        name: call.function.name,
        arguments: parsedArguments(call.function.arguments),
      });
    }
    return {
      role: message.role,
      parts,
      ...(finishReason === undefined || message.role !== 'assistant'
        ? {}
        : { finish_reason: finishReason }),
    };
  });
}
