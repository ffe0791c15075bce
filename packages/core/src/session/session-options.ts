// The zod schemas of a session's options and inputs, and the settings they give once validated.
import { z } from 'zod';
import { assemblyOptionsShape, refineBudget } from '../assembly/assemble.js';
import type { AssemblyPlugin } from '../assembly/plugin.js';
import { pluginsSchema } from '../assembly/plugin.js';
import { type InputItem, inputItemSchema } from '../schema/input-item.js';
import { uuidSchema } from '../schema/session-state.js';
import type { SessionStore } from '../store/session-store.js';
import { frozenJsonCopy } from '../util/json.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import type { ToolExecutor } from './model-call.js';
import type {
  CheckpointHook,
  SessionAssemblyOptions,
  SessionContext,
  SessionRecorder,
} from './session-types.js';

const DEFAULT_MAX_MODEL_CALLS = 10;
const MAX_MODEL_CALLS_LIMIT = 1000;

/** A function-valued option; `what` names its shape in the error. */
export const isFunction = (what: string) =>
  z.custom<(...args: never[]) => unknown>(
    (value) => typeof value === 'function',
    `must be a function (${what})`,
  );

/** An `AbortSignal` option. */
export const signalSchema = z.custom<AbortSignal>(
  (value) => value instanceof AbortSignal,
  'must be an AbortSignal',
);

export const storeSchema = z.custom<SessionStore>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SessionStore).load === 'function' &&
    typeof (value as SessionStore).save === 'function' &&
    typeof (value as SessionStore).delete === 'function',
  'must be a SessionStore (createMemorySessionStore() or a store package)',
);

const contextSchema = z.record(z.string(), z.unknown());

/** A session id: a UUID (seed 001 uses UUIDv4). */
export const sessionIdSchema = z
  .string()
  .refine(
    (value) => uuidSchema.safeParse(value).success,
    'must be a UUID, e.g. from crypto.randomUUID()',
  );

/** Options shared by `createSession` and `loadSession` (everything but store, id and context). */
export const sessionBehaviourShape = {
  plugins: pluginsSchema.optional(),
  assembly: z.strictObject(assemblyOptionsShape).superRefine(refineBudget).optional(),
  executeTool: isFunction('call, context → output').optional(),
  maxModelCalls: z.number().int().min(1).max(MAX_MODEL_CALLS_LIMIT).optional(),
  recorder: z
    .custom<SessionRecorder>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as SessionRecorder).agentEvent === 'function',
      'must have an agentEvent(event) method',
    )
    .optional(),
  onCheckpoint: isFunction('info → void').optional(),
  now: isFunction('() → Date').optional(),
  generateId: isFunction('() → string').optional(),
};

export const sessionOptionsSchema = z.strictObject({
  store: storeSchema,
  id: sessionIdSchema.optional(),
  context: contextSchema.optional(),
  ...sessionBehaviourShape,
});

/** Text, one item or several; each shape is checked on its own so errors name the real problem. */
export function parseTurnInput(input: unknown): InputItem[] {
  const subject = 'runTurn input';
  if (typeof input === 'string') {
    parseInput(z.string().min(1), input, subject);
    return [{ type: 'message', role: 'user', content: input }];
  }
  if (Array.isArray(input)) return parseInput(z.array(inputItemSchema), input, subject);
  if (typeof input === 'object' && input !== null)
    return [parseInput(inputItemSchema, input, subject)];
  throw invalidField(
    subject,
    '(root)',
    input,
    'must be text, an input item or an array of input items',
  );
}

export const runTurnOptionsSchema = z
  .strictObject({
    turnId: z.string().min(1).max(200).optional(),
    signal: signalSchema.optional(),
    runId: z.string().min(1).max(200).optional(),
    executeTool: isFunction('call, context → output').optional(),
    maxModelCalls: z.number().int().min(1).max(MAX_MODEL_CALLS_LIMIT).optional(),
  })
  .optional();

/** A turn's options once validated. */
export type TurnSettings = NonNullable<z.output<typeof runTurnOptionsSchema>>;

export const forkOptionsSchema = z
  .strictObject({ id: sessionIdSchema.optional(), context: contextSchema.optional() })
  .optional();

export const updateSchema = z.union([contextSchema, isFunction('current context → new context')]);

export const interruptReasonSchema = z.string().min(1).max(10_000).optional();

export const interruptOptionsSchema = z
  .strictObject({ keep: z.enum(['boundary', 'partial']).optional() })
  .optional();

/** The settings a session runs with, after validation. */
export interface SessionConfig {
  readonly store: SessionStore;
  readonly plugins: readonly AssemblyPlugin[];
  readonly assembly: SessionAssemblyOptions;
  readonly executeTool: ToolExecutor | undefined;
  readonly maxModelCalls: number;
  readonly recorder: SessionRecorder | undefined;
  readonly onCheckpoint: CheckpointHook | undefined;
  readonly now: () => Date;
  readonly generateId: () => string;
}

/** Validates the behaviour options shared by `createSession` and `loadSession`. */
export function toSessionConfig(
  options: z.output<z.ZodObject<typeof sessionBehaviourShape>> & { store: SessionStore },
): SessionConfig {
  return {
    store: options.store,
    plugins: options.plugins ?? [],
    assembly: (options.assembly ?? {}) as SessionAssemblyOptions,
    executeTool: options.executeTool as ToolExecutor | undefined,
    maxModelCalls: options.maxModelCalls ?? DEFAULT_MAX_MODEL_CALLS,
    recorder: options.recorder,
    onCheckpoint: options.onCheckpoint as CheckpointHook | undefined,
    now: (options.now as (() => Date) | undefined) ?? (() => new Date()),
    generateId:
      (options.generateId as (() => string) | undefined) ?? (() => globalThis.crypto.randomUUID()),
  };
}

/** A JSON-safe, frozen copy of a context, or a `VALIDATION_ERROR` naming the field. */
export function freezeContext(value: unknown, subject: string): SessionContext {
  const parsed = parseInput(contextSchema, value, subject);
  return frozenJsonCopy(parsed, subject);
}

/** A fresh session id from `generateId`, checked to be a UUID. */
export function newSessionId(generateId: () => string, subject: string): string {
  const id = generateId();
  if (!uuidSchema.safeParse(id).success) {
    throw invalidField(subject, 'generateId', id, 'must return a UUID for a session id');
  }
  return id;
}
