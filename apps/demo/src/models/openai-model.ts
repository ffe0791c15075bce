import { type BaseMessage, type InputItem, itemsToMessages, messagesToItems } from '@episodic/core';
import type { ToolDefinition } from '../tools/workspace-tools.js';
import type {
  DemoModel,
  ModelTurnRequest,
  ModelTurnResponse,
  SummarizeRequest,
} from './demo-model.js';

/** Where and how to reach an OpenAI-compatible Chat Completions endpoint. */
export interface OpenAiModelOptions {
  /** The model name sent with every request, e.g. `gpt-4o-mini` or `llama3.1`. */
  readonly model: string;
  /** The API base URL, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string;
  /**
   * How long one request may take.
   * @default 120000
   */
  readonly timeoutMs?: number;
  /**
   * The fetch implementation.
   * @default globalThis.fetch
   */
  readonly fetch?: typeof fetch;
}

/** A failed request to the endpoint; the message says what to check. */
export class ModelEndpointError extends Error {
  override readonly name = 'ModelEndpointError';
}

interface ChatCompletion {
  choices?: Array<{ message?: BaseMessage; finish_reason?: string | null }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

const SUMMARY_PROMPT =
  'Summarize the conversation below for your own later use: every question, the facts and numbers ' +
  'found, what failed or was interrupted. Plain sentences, at most 12 lines.';

const CHAT_ROLES: ReadonlySet<string> = new Set([
  'system',
  'developer',
  'user',
  'assistant',
  'tool',
]);

/**
 * Chat messages for the endpoint: the items converted by `itemsToMessages` (tool calls stay
 * paired with their outputs), with a system prompt first and only the fields the API knows.
 */
function toChatMessages(system: string, items: readonly InputItem[]): BaseMessage[] {
  return [
    { role: 'system', content: system },
    ...itemsToMessages(items)
      // Reasoning messages (and roles Chat Completions does not know) are not sent.
      .filter((message) => CHAT_ROLES.has(message.role))
      .map((message) => {
        const clean: BaseMessage = { role: message.role, content: message.content ?? null };
        if (message.tool_calls !== undefined) clean.tool_calls = message.tool_calls;
        if (message.tool_call_id !== undefined) clean.tool_call_id = message.tool_call_id;
        return clean;
      }),
  ];
}

function toolsPayload(tools: readonly ToolDefinition[]) {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** Creates a model that talks to an OpenAI-compatible Chat Completions endpoint. */
export function createOpenAiModel(options: OpenAiModelOptions): DemoModel {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const fetchImplementation = options.fetch ?? globalThis.fetch;

  const complete = async (body: Record<string, unknown>, signal: AbortSignal) => {
    let response: Response;
    try {
      response = await fetchImplementation(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${options.apiKey}`,
        },
        body: JSON.stringify({ model: options.model, ...body }),
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error;
      throw new ModelEndpointError(
        `Could not reach ${endpoint}: ${error instanceof Error ? error.message : String(error)}. Check OPENAI_BASE_URL.`,
      );
    }
    const text = await response.text();
    if (!response.ok) {
      throw new ModelEndpointError(
        `${endpoint} answered HTTP ${response.status}: ${text.slice(0, 300)}${response.status === 401 ? ' (check OPENAI_API_KEY)' : ''}`,
      );
    }
    let parsed: ChatCompletion;
    try {
      parsed = JSON.parse(text) as ChatCompletion;
    } catch {
      throw new ModelEndpointError(`${endpoint} did not answer with JSON: ${text.slice(0, 200)}`);
    }
    const choice = parsed.choices?.[0];
    if (choice?.message === undefined || typeof choice.message.role !== 'string') {
      throw new ModelEndpointError(
        `${endpoint} answered without choices[0].message: ${text.slice(0, 200)}`,
      );
    }
    return {
      message: choice.message,
      finishReason: choice.finish_reason ?? null,
      usage: parsed.usage ?? null,
    };
  };

  return {
    label: `openai:${options.model}`,
    info: { provider: 'openai-compatible', name: options.model },
    offline: false,
    async respond(request: ModelTurnRequest): Promise<ModelTurnResponse> {
      const { message, finishReason, usage } = await complete(
        {
          messages: toChatMessages(request.system, request.items),
          tools: toolsPayload(request.tools),
          tool_choice: 'auto',
        },
        request.signal,
      );
      const output = messagesToItems([{ ...message, role: 'assistant' }]);
      const calls = output.some((item) => item.type === 'function_call');
      return {
        output,
        usage: {
          inputTokens: Math.max(0, Math.trunc(usage?.prompt_tokens ?? 0)),
          outputTokens: Math.max(0, Math.trunc(usage?.completion_tokens ?? 0)),
        },
        stopReason: finishReason ?? (calls ? 'tool_use' : 'end_turn'),
      };
    },
    async summarize(request: SummarizeRequest): Promise<string> {
      const { message } = await complete(
        {
          messages: toChatMessages(SUMMARY_PROMPT, [
            ...request.items,
            { type: 'message', role: 'user', content: 'Write the summary now.' },
          ]),
        },
        request.signal,
      );
      const text = typeof message.content === 'string' ? message.content.trim() : '';
      return text === ''
        ? `Summary of episodes ${request.covers.fromId}–${request.covers.toId}: (the model returned no text)`
        : text;
    },
  };
}
