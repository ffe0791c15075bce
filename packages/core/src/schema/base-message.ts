import * as z from 'zod';

/**
 * Chat-style messages as seed 001 stores them in `llm.request`, `llm.response` and session
 * snapshots. Unknown fields and unknown roles are kept (forward compatibility).
 */

/** A tool call inside an assistant message. */
export const toolCallSchema = z.looseObject({
  id: z.string().min(1),
  type: z.string().default('function'),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

/** One chat message. `role` is usually `system`, `developer`, `user`, `assistant` or `tool`. */
export const baseMessageSchema = z.looseObject({
  role: z.string().min(1),
  content: z.union([z.string(), z.null(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  tool_calls: z.array(toolCallSchema).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
  /** When the message was observed (ISO-8601 UTC). */
  message_ts: z.string().optional(),
});

export type ToolCall = z.infer<typeof toolCallSchema>;
export type BaseMessage = z.infer<typeof baseMessageSchema>;
