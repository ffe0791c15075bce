import type { InputItem } from '@episodic/core';
import { stableHash } from '@episodic/core/adapter';
import {
  countAt,
  isRecord,
  readJsonObjectLines,
  stringAt,
  without,
} from '../conversation/json-lines.js';
import { sourceOfResponsesItem, TOOL_OUTPUT_ITEM_TYPES } from '../conversation/responses-items.js';
import type {
  ImportProblem,
  SourceConversation,
  SourceEntry,
  SourceItemEntry,
  SourceModelCall,
} from '../conversation/source-conversation.js';
import { textOfContent } from '../conversation/text-of.js';

/**
 * Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`): one
 * `{ timestamp, type, payload }` line per rollout item. `session_meta` opens the file;
 * `response_item` payloads are OpenAI Responses items (messages, reasoning, function calls and
 * their outputs, shell and custom tool calls); `turn_context` records the model and directory of a
 * turn; `compacted` replaces history with a summary; `event_msg` payloads are runtime events
 * (`token_count` carries usage). Older rollouts start with a bare `{ id, timestamp, instructions }`
 * line followed by bare Responses items and `{ record_type: "state" }` lines; both are read.
 */

const INJECTED_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '# AGENTS.md',
  '<INSTRUCTIONS>',
];

/** Older Codex versions wrote `output` as `{ content, success }`; Responses items hold text. */
function normalizeOutput(item: Record<string, unknown>): {
  item: Record<string, unknown>;
  raw?: Record<string, unknown>;
  isError?: boolean;
} {
  const output = item.output;
  if (!isRecord(output) || typeof output.content !== 'string') return { item };
  const { content, ...rest } = output;
  return {
    item: { ...item, output: content },
    raw: { output: rest },
    ...(output.success === false ? { isError: true } : {}),
  };
}

function usageOf(info: unknown): SourceModelCall['usage'] {
  if (!isRecord(info)) return undefined;
  const last = isRecord(info.last_token_usage) ? info.last_token_usage : undefined;
  const input = countAt(last, 'input_tokens');
  const output = countAt(last, 'output_tokens');
  if (input === undefined || output === undefined) return undefined;
  const cached = countAt(last, 'cached_input_tokens');
  const total = countAt(last, 'total_tokens');
  return {
    input_tokens: input,
    output_tokens: output,
    ...(total === undefined ? {} : { total_tokens: total }),
    ...(cached === undefined || cached === 0 ? {} : { input_cached_tokens: cached }),
  };
}

function isInjected(text: string): boolean {
  const trimmed = text.trimStart();
  return INJECTED_PREFIXES.some((prefix) => trimmed.startsWith(prefix));
}

/** Reads one Codex rollout file into one conversation. Damaged lines go to `problems`. */
export function parseCodex(
  text: string,
  problems: ImportProblem[],
  label?: string,
): SourceConversation[] {
  const lines = readJsonObjectLines(text, problems, label);
  if (lines.length === 0) return [];
  const entries: SourceEntry[] = [];
  let meta: Record<string, unknown> | undefined;
  let model: string | undefined;
  let cwd: string | undefined;
  let title: string | undefined;
  let call: SourceModelCall | undefined;
  // The last response: Codex reports its token_count after the tool outputs it led to.
  let lastCall: SourceModelCall | undefined;
  let calls = 0;
  const typed = new Set<string>();
  // The user messages the rollout holds as Responses items, by text: an `event_msg`
  // `user_message` with the same text is the same prompt (Codex CLI writes both); one without is
  // the only record of the prompt (Codex Desktop writes only the event).
  const itemTexts = new Map<string, number>();
  for (const { value } of lines) {
    const payload = value.payload;
    if (
      value.type === 'event_msg' &&
      isRecord(payload) &&
      payload.type === 'user_message' &&
      typeof payload.message === 'string'
    )
      typed.add(payload.message.trim());
    const item = value.type === 'response_item' ? payload : value;
    if (isRecord(item) && item.type === 'message' && item.role === 'user') {
      const text = textOfContent(item.content).trim();
      itemTexts.set(text, (itemTexts.get(text) ?? 0) + 1);
    }
  }

  const pushItem = (value: Record<string, unknown>, line: number, ts: string | undefined) => {
    // Older rollouts write `"id": null`; Responses items have no id or a string one.
    const item = value.id === null ? without(value, ['id']) : value;
    const normalized = TOOL_OUTPUT_ITEM_TYPES.has(String(item.type))
      ? normalizeOutput(item)
      : { item };
    const source = sourceOfResponsesItem(normalized.item);
    if (source === 'model') {
      if (call === undefined) {
        calls++;
        call = { key: `response-${calls}`, ...(model === undefined ? {} : { model }) };
        lastCall = call;
      }
    } else {
      call = undefined;
    }
    const userText = source === 'user' ? textOfContent(normalized.item.content) : undefined;
    const id = typeof normalized.item.id === 'string' ? normalized.item.id : undefined;
    entries.push({
      kind: 'item',
      item: normalized.item as InputItem,
      source,
      origin: { line, ...(id === undefined ? {} : { id }) },
      ...(ts === undefined ? {} : { ts }),
      ...(normalized.raw === undefined ? {} : { raw: normalized.raw }),
      ...(source === 'model' && call !== undefined ? { call } : {}),
      ...(userText !== undefined &&
      (typed.has(userText.trim()) || (typed.size === 0 && !isInjected(userText)))
        ? { userInput: true }
        : {}),
      ...(normalized.isError === true ? { isError: true } : {}),
    });
  };

  /** A prompt recorded only as an `event_msg` `user_message`: the user message it was. */
  const pushUserMessage = (
    text: string,
    line: number,
    ts: string | undefined,
    rest: Record<string, unknown>,
  ) => {
    call = undefined;
    entries.push({
      kind: 'item',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
      source: 'user',
      origin: { line },
      ...(ts === undefined ? {} : { ts }),
      raw: { event_msg: 'user_message', ...rest },
      userInput: true,
    });
  };

  for (const [index, { line, value }] of lines.entries()) {
    const ts = stringAt(value, 'timestamp');
    const timing = ts === undefined ? {} : { ts };
    const payload = value.payload;
    const rawEntry = (reason: string, routine = true) =>
      entries.push({
        kind: 'raw',
        reason,
        entry: value,
        origin: { line },
        ...timing,
        ...(routine ? { routine } : {}),
      });
    // The legacy layout: a bare session header, then bare items.
    if (
      index === 0 &&
      value.type === undefined &&
      typeof value.id === 'string' &&
      payload === undefined
    ) {
      meta = value;
      rawEntry('session_meta');
      continue;
    }
    if (payload === undefined && typeof value.type === 'string' && value.type !== 'session_meta') {
      if (
        value.record_type !== undefined ||
        ['event_msg', 'turn_context', 'compacted'].includes(value.type)
      ) {
        rawEntry(String(value.record_type ?? value.type));
      } else {
        pushItem(value, line, ts);
      }
      continue;
    }
    if (!isRecord(payload)) {
      rawEntry(
        value.record_type === undefined
          ? `${String(value.type ?? 'untyped')} line`
          : `${String(value.record_type)} record`,
        value.record_type !== undefined,
      );
      continue;
    }
    switch (value.type) {
      case 'session_meta':
        meta ??= payload;
        rawEntry('session_meta');
        break;
      case 'response_item':
        if (typeof payload.type === 'string' && payload.type !== '') pushItem(payload, line, ts);
        else rawEntry('response_item without a type', false);
        break;
      case 'turn_context':
        if (typeof payload.model === 'string') model = payload.model;
        if (typeof payload.cwd === 'string') cwd = payload.cwd;
        rawEntry('turn_context');
        break;
      case 'compacted':
        call = undefined;
        entries.push({
          kind: 'boundary',
          payload: {
            reason: 'checkpoint',
            title: 'conversation compacted',
            content: typeof payload.message === 'string' ? payload.message : '',
          },
          origin: { line },
          ...timing,
          ...(Object.keys(without(payload, ['message'])).length === 0
            ? {}
            : { raw: without(payload, ['message']) }),
        });
        break;
      case 'event_msg': {
        if (payload.type === 'token_count') {
          const usage = usageOf(payload.info);
          if (usage !== undefined) {
            if (lastCall !== undefined && lastCall.usage === undefined) lastCall.usage = usage;
            entries.push({
              kind: 'usage',
              usage: {
                inputTokens: usage.input_tokens,
                outputTokens: usage.output_tokens,
                ...(usage.total_tokens === undefined ? {} : { totalTokens: usage.total_tokens }),
              },
              origin: { line },
              ...timing,
              raw: without(payload, ['type']),
            });
            call = undefined;
            lastCall = undefined;
            break;
          }
        }
        if (payload.type === 'user_message' && typeof payload.message === 'string') {
          const text = payload.message.trim();
          const items = itemTexts.get(text) ?? 0;
          if (items > 0) itemTexts.set(text, items - 1);
          else {
            const rest = without(payload, ['type', 'message']);
            pushUserMessage(payload.message, line, ts, rest);
            break;
          }
        }
        if (payload.type === 'thread_name_updated' && typeof payload.thread_name === 'string')
          title = payload.thread_name;
        rawEntry(`event_msg ${String(payload.type ?? '')}`.trim());
        break;
      }
      default:
        rawEntry(`${String(value.type ?? 'untyped')} line`, false);
    }
  }

  const id = meta === undefined ? undefined : stringAt(meta, 'id');
  const key = id ?? `content-${stableHash(text.slice(0, 65_536))}`;
  if (id === undefined) {
    problems.push({
      ...(label === undefined ? {} : { source: label }),
      message:
        'no session_meta line with an id: the session id is derived from the file content instead',
    });
  }
  const version = meta === undefined ? undefined : stringAt(meta, 'cli_version');
  const provider = (meta === undefined ? undefined : stringAt(meta, 'model_provider')) ?? 'openai';
  cwd ??= meta === undefined ? undefined : stringAt(meta, 'cwd');
  const instructions = meta?.base_instructions ?? meta?.instructions;
  const systemPrompt =
    typeof instructions === 'string'
      ? instructions
      : isRecord(instructions) && typeof instructions.text === 'string'
        ? instructions.text
        : undefined;
  const firstCall = entries.find(
    (entry): entry is SourceItemEntry => entry.kind === 'item' && entry.call?.model !== undefined,
  );
  const firstModel = firstCall?.call?.model ?? model;
  const context =
    meta === undefined
      ? {}
      : without(meta, ['base_instructions', 'instructions', 'id', 'timestamp']);
  return [
    {
      format: 'codex',
      key,
      ...(title === undefined ? {} : { title }),
      agent: { name: 'codex', ...(version === undefined ? {} : { version }) },
      model: { provider, ...(firstModel === undefined ? {} : { name: firstModel }) },
      ...(cwd === undefined ? {} : { runtime: { cwd } }),
      ...(systemPrompt === undefined ? {} : { systemPrompt }),
      context: { ...(id === undefined ? {} : { session_id: id }), ...context },
      entries,
    },
  ];
}
