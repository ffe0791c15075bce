import * as z from 'zod';

/**
 * Model input items in the OpenAI Responses style (seed 000 stores them raw). The known kinds are
 * validated; any other `type` passes through untouched so new provider item kinds are never lost.
 */

const contentPartSchema = z.looseObject({ type: z.string().min(1) });

/** A chat message. `content` is text or a list of typed parts (`input_text`, `output_text`, …). */
export const messageItemSchema = z.looseObject({
  type: z.literal('message'),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPartSchema)]),
  id: z.string().optional(),
});

/** A tool call made by the model. `call_id` pairs it with its `function_call_output`. */
export const functionCallItemSchema = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  id: z.string().optional(),
});

/** The output of a tool call, paired with its call by `call_id`. */
export const functionCallOutputItemSchema = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(contentPartSchema)]),
  id: z.string().optional(),
});

/** Model reasoning, kept for providers that need it echoed back. */
export const reasoningItemSchema = z.looseObject({
  type: z.literal('reasoning'),
  summary: z.array(contentPartSchema).optional(),
  id: z.string().optional(),
});

const knownItemSchemas = {
  message: messageItemSchema,
  function_call: functionCallItemSchema,
  function_call_output: functionCallOutputItemSchema,
  reasoning: reasoningItemSchema,
} as const satisfies Record<KnownItemType, z.ZodType>;

/** The `type` of an item kind Episodic understands. */
type KnownItemType = (
  | MessageItem
  | FunctionCallItem
  | FunctionCallOutputItem
  | ReasoningItem
)['type'];

export type MessageItem = z.infer<typeof messageItemSchema>;
export type FunctionCallItem = z.infer<typeof functionCallItemSchema>;
export type FunctionCallOutputItem = z.infer<typeof functionCallOutputItemSchema>;
export type ReasoningItem = z.infer<typeof reasoningItemSchema>;
/** An item of a kind Episodic does not interpret; it is stored and sent as it is. */
export type UnknownItem = { type: string; [key: string]: unknown };

/** Any model input item. */
export type InputItem =
  | MessageItem
  | FunctionCallItem
  | FunctionCallOutputItem
  | ReasoningItem
  | UnknownItem;

/** The item kinds Episodic understands; any other `type` passes through. */
export const KNOWN_ITEM_TYPES = Object.keys(knownItemSchemas) as Array<
  (MessageItem | FunctionCallItem | FunctionCallOutputItem | ReasoningItem)['type']
>;

/** Validates a model input item: known kinds strictly, unknown kinds only for a non-empty `type`. */
export const inputItemSchema: z.ZodType<InputItem> = z
  .looseObject({ type: z.string().min(1) })
  .transform((item, context) => {
    const known = knownItemSchemas[item.type as keyof typeof knownItemSchemas];
    if (!known) return item as InputItem;
    const result = known.safeParse(item);
    if (result.success) return result.data as InputItem;
    for (const issue of result.error.issues) context.issues.push(issue as never);
    return z.NEVER;
  }) as unknown as z.ZodType<InputItem>;

/** True when `item` is a tool call. */
export function isFunctionCall(item: InputItem): item is FunctionCallItem {
  return item.type === 'function_call';
}

/** True when `item` is a tool call output. */
export function isFunctionCallOutput(item: InputItem): item is FunctionCallOutputItem {
  return item.type === 'function_call_output';
}
