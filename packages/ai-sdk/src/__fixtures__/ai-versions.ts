import {
  createMemoryRunStore,
  createMemorySessionStore,
  createSession,
  type RunRecord,
  type RunStore,
  type Session,
  type SessionStore,
} from '@episodic/core';
import * as ai7 from 'ai';
import * as test7 from 'ai/test';
import * as ai6 from 'ai-v6';
import * as test6 from 'ai-v6/test';

/**
 * The AI SDK majors the adapter supports, each with its own mock models: every middleware test
 * runs against both (AI SDK 6 hands the middleware V3 prompts and results; 7 hands it V4 ones).
 */
export const AI_VERSIONS = [
  { name: 'ai 7', ai: ai7, test: test7 },
  { name: 'ai 6', ai: ai6 as unknown as typeof ai7, test: test6 as unknown as typeof test7 },
] as const;

export type AiVersion = (typeof AI_VERSIONS)[number];

export const fixedNow = () => new Date('2026-03-01T10:00:00.000Z');

/** Deterministic UUIDs: …-000000000001, …-000000000002, … */
export function uuidSequence(prefix = 1): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `00000000-0000-4000-8000-${String(prefix * 1_000_000 + next).padStart(12, '0')}`;
  };
}

export const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

const finish = (unified: string, raw: string) => ({ unified, raw }) as never;

/** A generate result that calls one tool. */
export function callsTool(toolCallId: string, toolName: string, input: object) {
  return {
    content: [{ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: finish('tool-calls', 'tool_calls'),
    usage: usage(20, 5),
    warnings: [],
  };
}

/** A generate result that answers with text. */
export function answers(text: string, input = 30) {
  return {
    content: [{ type: 'text' as const, text }],
    finishReason: finish('stop', 'stop'),
    usage: usage(input, 3),
    warnings: [],
  };
}

/** A mock model that returns `results` in order, one per call, and keeps every prompt it saw. */
export function scriptedModel(
  version: AiVersion,
  results: ReadonlyArray<ReturnType<typeof answers> | ReturnType<typeof callsTool>>,
) {
  const queue = [...results];
  const prompts: unknown[] = [];
  const model = new version.test.MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      const next = queue.shift();
      if (next === undefined) throw new Error('the scripted model ran out of results');
      return next as never;
    },
  });
  return { model, prompts };
}

/** The stream parts of a result, split the way a provider streams them. */
export function streamParts(
  result: ReturnType<typeof answers> | ReturnType<typeof callsTool>,
): unknown[] {
  const parts: unknown[] = [{ type: 'stream-start', warnings: [] }];
  for (const part of result.content) {
    if (part.type === 'text') {
      parts.push({ type: 'text-start', id: 't1' });
      for (const word of part.text.split(/(?<= )/))
        parts.push({ type: 'text-delta', id: 't1', delta: word });
      parts.push({ type: 'text-end', id: 't1' });
    } else {
      parts.push(part);
    }
  }
  parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
  return parts;
}

/** A mock streaming model: each call streams the next result (or the given raw parts). */
export function scriptedStreamModel(
  version: AiVersion,
  results: ReadonlyArray<
    | ReturnType<typeof answers>
    | ReturnType<typeof callsTool>
    | { parts: unknown[]; chunkDelayInMs?: number }
  >,
) {
  const queue = [...results];
  const model = new version.test.MockLanguageModelV3({
    doStream: async () => {
      const next = queue.shift();
      if (next === undefined) throw new Error('the scripted model ran out of results');
      const chunks = 'parts' in next ? next.parts : streamParts(next);
      const delay = 'parts' in next ? (next.chunkDelayInMs ?? null) : null;
      return {
        stream: version.test.simulateReadableStream({
          chunks: chunks as never[],
          initialDelayInMs: null,
          chunkDelayInMs: delay,
        }),
      } as never;
    },
  });
  return { model };
}

export interface Conversation {
  session: Session;
  sessions: SessionStore;
  runs: RunStore;
}

export function newConversation(): Conversation {
  const sessions = createMemorySessionStore();
  return {
    sessions,
    runs: createMemoryRunStore(),
    session: createSession({ store: sessions, now: fixedNow, generateId: uuidSequence(9) }),
  };
}

/** The record types of a run, in order. */
export function recordTypes(records: readonly RunRecord[]): string[] {
  return records.map((record) =>
    record.type === 'run.status' || record.type === 'run.end'
      ? `${record.type}:${String((record as { status?: string; outcome?: string }).status ?? (record as { outcome?: string }).outcome)}`
      : record.type,
  );
}
