export { rejection } from '../../__fixtures__/episodic-errors.js';

import type { InputItem } from '../../schema/index.js';
import { createMemorySessionStore, type SessionStore } from '../../store/index.js';
import { createSession } from '../create-session.js';
import type { ModelCall, ModelRequest, ModelResponse } from '../model-call.js';
import type { SessionOptions } from '../session-types.js';

export const fixedClock = () => new Date('2026-02-03T12:00:00.000Z');

/** Deterministic UUIDv4-shaped ids: …-000000000001, …-000000000002, … */
export function idSequence(prefix = 0): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `00000000-0000-4000-8000-${String(prefix * 1_000_000 + next).padStart(12, '0')}`;
  };
}

export const say = (role: 'user' | 'assistant', content: string): InputItem => ({
  type: 'message',
  role,
  content,
});
export const call = (callId: string, name = 'read_file', args = '{}'): InputItem => ({
  type: 'function_call',
  call_id: callId,
  name,
  arguments: args,
});

/** A model that answers from a script and records every request it was given. */
export function scriptedModel(
  ...responses: Array<
    ModelResponse | ((request: ModelRequest) => ModelResponse | Promise<ModelResponse>)
  >
) {
  const requests: ModelRequest[] = [];
  const model: ModelCall = async (request) => {
    requests.push(request);
    const next = responses.shift();
    if (next === undefined) throw new Error('the scripted model ran out of responses');
    return typeof next === 'function' ? next(request) : next;
  };
  return { model, requests };
}

/** A model that echoes the last user message. */
export const echoModel: ModelCall = (request) => {
  const last = [...request.items]
    .reverse()
    .find((item) => item.type === 'message' && item.role === 'user');
  return {
    output: [
      say('assistant', `echo: ${String((last as { content?: unknown } | undefined)?.content)}`),
    ],
    usage: { inputTokens: request.items.length * 10, outputTokens: 5 },
  };
};

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export function newSession(
  options: Partial<SessionOptions> = {},
  store: SessionStore = createMemorySessionStore(),
) {
  const session = createSession({ store, now: fixedClock, generateId: idSequence(), ...options });
  return { session, store };
}

/** The error a promise rejects with (any kind), or a failure if it resolves. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
