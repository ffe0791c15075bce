import * as z from 'zod';
import { utf8ByteLength } from '../util/utf8.js';
import { isoTimestampSchema } from './episode.js';
import { metadataSchema } from './metadata.js';
import { uuidSchema } from './session-state.js';

/**
 * Task episodes (seed 004): a task tracked through create → steps → complete, with the seed's
 * field names and enums. The input schemas below are the MCP tool input schemas: every field has a
 * `.describe()` a model can follow, and none uses a transform, so `z.toJSONSchema` works on them.
 */

/** The kinds of task (seed 004 `task_type`). */
export const TASK_TYPES = [
  'code_generation',
  'debugging',
  'refactoring',
  'testing',
  'analysis',
  'documentation',
] as const;
export type TaskType = (typeof TASK_TYPES)[number];

/** How hard a task is (seed 004 `complexity`); `moderate` when not given. */
export const TASK_COMPLEXITIES = ['simple', 'moderate', 'complex'] as const;
export type TaskComplexity = (typeof TASK_COMPLEXITIES)[number];

/** The result of one step (seed 004 `result.type`). */
export const TASK_STEP_RESULT_TYPES = ['success', 'error', 'timeout'] as const;
export type TaskStepResultType = (typeof TASK_STEP_RESULT_TYPES)[number];

/** A step's `result_type` on the timeline: `pending` when the step has no result. */
export const TASK_TIMELINE_RESULT_TYPES = ['success', 'error', 'timeout', 'pending'] as const;
export type TaskTimelineResultType = (typeof TASK_TIMELINE_RESULT_TYPES)[number];

/** How a task ended (seed 004 `outcome_type`). */
export const TASK_OUTCOME_TYPES = ['success', 'partial_success', 'failure'] as const;
export type TaskOutcomeType = (typeof TASK_OUTCOME_TYPES)[number];

/** The longest task description, in UTF-8 bytes. */
export const TASK_DESCRIPTION_MAX_BYTES = 10_000;
/** The most steps one task may record. */
export const TASK_MAX_STEPS = 1_000;
/** The longest step output (and error message, verdict, reason), in UTF-8 bytes. */
export const TASK_STEP_OUTPUT_MAX_BYTES = 10_000;
/** The largest step `parameters`, in UTF-8 bytes of its JSON: 1 MB (1,048,576 bytes). */
export const TASK_STEP_PARAMETERS_MAX_BYTES = 1_048_576;

/**
 * `10000` → `10,000`. Not `toLocaleString`: its first call loads ICU's number formats (~10 ms),
 * and these messages are built when the module loads, before an MCP server can answer `initialize`.
 */
function groupThousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A non-empty string of at most `maxBytes` UTF-8 bytes. */
function boundedText(maxBytes: number) {
  return z
    .string()
    .min(1)
    .refine((text) => utf8ByteLength(text) <= maxBytes, {
      message: `must be at most ${groupThousands(maxBytes)} bytes of UTF-8: shorten it`,
    });
}

/** The UTF-8 size of `value` as JSON, or `undefined` when it cannot be written as JSON. */
function jsonBytes(value: unknown): number | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : utf8ByteLength(text);
  } catch {
    return undefined;
  }
}

const shortName = (what: string) => z.string().min(1).max(200).describe(what);
const episodeId = uuidSchema.describe(
  'The task episode id returned by create_episode (a UUID, e.g. "123e4567-e89b-12d3-a456-426614174000").',
);
const textList = (what: string) => z.array(z.string().min(1).max(500)).max(100).describe(what);

// ---------------------------------------------------------------------------------------------
// Inputs (the six lifecycle tools)
// ---------------------------------------------------------------------------------------------

/** `create_episode`: start tracking a task. */
export const createTaskInputSchema = z
  .strictObject({
    task_description: boundedText(TASK_DESCRIPTION_MAX_BYTES).describe(
      'A clear description of the task to perform (at most 10,000 bytes).',
    ),
    domain: shortName('The task domain, e.g. "web-api", "cli" or "data-processing".'),
    task_type: z
      .enum(TASK_TYPES)
      .describe(
        'One of "code_generation", "debugging", "refactoring", "testing", "analysis", "documentation".',
      ),
    language: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('The programming language, e.g. "rust" or "python".'),
    framework: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('The framework, e.g. "axum" or "tokio".'),
    tags: z
      .array(z.string().min(1).max(100))
      .max(50)
      .optional()
      .describe('Context tags for organization, e.g. ["auth", "security"].'),
    complexity: z
      .enum(TASK_COMPLEXITIES)
      .default('moderate')
      .describe('One of "simple", "moderate", "complex" (default "moderate").'),
    metadata: metadataSchema
      .optional()
      .describe(
        'Optional metadata for filtering and access control: at most 10 keys; values are strings, numbers, booleans or arrays of those.',
      ),
    session_id: uuidSchema
      .optional()
      .describe(
        'Optional: the session (UUID) this task belongs to, so it is listed with its runs.',
      ),
  })
  .describe('Create a task episode to track a task.');
export type CreateTaskInput = z.input<typeof createTaskInputSchema>;
export type CreateTaskRequest = z.output<typeof createTaskInputSchema>;

/** The result of one step: `success` with an output, `error` with a message, or `timeout`. */
export const taskStepResultSchema = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('success'),
      output: boundedText(TASK_STEP_OUTPUT_MAX_BYTES)
        .optional()
        .describe('What the step produced (at most 10,000 bytes).'),
    }),
    z.strictObject({
      type: z.literal('error'),
      message: boundedText(TASK_STEP_OUTPUT_MAX_BYTES).describe(
        'The error message (at most 10,000 bytes).',
      ),
    }),
    z.strictObject({ type: z.literal('timeout') }),
  ])
  .describe(
    'The step result: {"type": "success", "output": "..."}, {"type": "error", "message": "..."} or {"type": "timeout"}. Omit while the step is still running.',
  );
export type TaskStepResult = z.infer<typeof taskStepResultSchema>;

/** `add_episode_step`: record one step of a running task. */
export const addStepInputSchema = z
  .strictObject({
    episode_id: episodeId,
    step_number: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .describe('The step number: 1 for the first step, then increasing (gaps are allowed).'),
    tool: shortName('The tool or component that performed the action, e.g. "code_generator".'),
    action: z
      .string()
      .min(1)
      .max(2_000)
      .describe('What the step did, e.g. "Generating authentication module".'),
    parameters: z
      .record(z.string(), z.unknown())
      .refine(
        (parameters) => {
          const bytes = jsonBytes(parameters);
          return bytes !== undefined && bytes <= TASK_STEP_PARAMETERS_MAX_BYTES;
        },
        { message: 'must be a JSON object of at most 1 MB (1,048,576 bytes): shrink it' },
      )
      .optional()
      .describe('The parameters the step used (a JSON object, at most 1 MB).'),
    result: taskStepResultSchema.optional(),
    latency_ms: z
      .number()
      .int()
      .nonnegative()
      .max(86_400_000)
      .optional()
      .describe('How long the step took, in milliseconds.'),
  })
  .describe('Add an execution step to a running task episode.');
export type AddStepInput = z.input<typeof addStepInputSchema>;

const verdict = boundedText(TASK_STEP_OUTPUT_MAX_BYTES).describe(
  'A description of the outcome (at most 10,000 bytes).',
);

/** `complete_episode`: finish a task with its outcome (and run the learning cycle). */
export const completeTaskInputSchema = z
  .discriminatedUnion('outcome_type', [
    z.strictObject({
      episode_id: episodeId,
      outcome_type: z.literal('success').describe('The task achieved its goal.'),
      verdict,
      artifacts: textList('Names of the artifacts created, e.g. ["auth.rs"].').optional(),
    }),
    z.strictObject({
      episode_id: episodeId,
      outcome_type: z
        .literal('partial_success')
        .describe('Some goals were achieved and some failed.'),
      verdict,
      completed: textList('The items that were completed.'),
      failed: textList('The items that failed.'),
    }),
    z.strictObject({
      episode_id: episodeId,
      outcome_type: z.literal('failure').describe('The task could not be completed.'),
      reason: boundedText(TASK_STEP_OUTPUT_MAX_BYTES).describe(
        'Why the task failed (at most 10,000 bytes).',
      ),
      error_details: boundedText(TASK_STEP_OUTPUT_MAX_BYTES)
        .optional()
        .describe('Detailed error information (at most 10,000 bytes).'),
    }),
  ])
  .describe(
    'Complete a task episode. outcome_type "success" needs verdict (artifacts optional); "partial_success" needs verdict, completed and failed; "failure" needs reason (error_details optional).',
  );
export type CompleteTaskInput = z.input<typeof completeTaskInputSchema>;

/** `get_episode`: name one task episode. */
export const taskIdInputSchema = z
  .strictObject({ episode_id: episodeId })
  .describe('Name one task episode.');
export type TaskIdInput = z.input<typeof taskIdInputSchema>;

/** `get_episode_timeline`: one task episode, and optionally one page of its steps. */
export const taskTimelineInputSchema = z
  .strictObject({
    episode_id: episodeId,
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Skip this many steps (storage order) before the page. Default 0.'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(TASK_MAX_STEPS)
      .optional()
      .describe(`At most this many steps (1–${TASK_MAX_STEPS}). Default: all of them.`),
  })
  .describe(
    'Name one task episode; offset and limit return one page of its timeline (next_offset says where the next page starts).',
  );
export type TaskTimelineInput = z.input<typeof taskTimelineInputSchema>;

/** `delete_episode`: delete a task episode; `confirm` must be `true`. */
export const deleteTaskInputSchema = z
  .strictObject({
    episode_id: episodeId,
    confirm: z
      .boolean()
      .describe('Must be true to confirm the permanent deletion. This cannot be undone.'),
  })
  .describe('Delete a task episode permanently (requires confirm: true).');
export type DeleteTaskInput = z.input<typeof deleteTaskInputSchema>;

// ---------------------------------------------------------------------------------------------
// The stored task episode and what the learning cycle derives from it
// ---------------------------------------------------------------------------------------------

/** The context a task ran in (seed 004 `context`). */
export const taskContextSchema = z.object({
  domain: z.string(),
  language: z.string().optional(),
  framework: z.string().optional(),
  complexity: z.enum(TASK_COMPLEXITIES),
  tags: z.array(z.string()),
});
export type TaskContext = z.infer<typeof taskContextSchema>;

/** One recorded step. `timestamp` is when the step was recorded (the injected clock). */
export const taskStepSchema = z.object({
  step_number: z.number().int().min(1),
  timestamp: isoTimestampSchema,
  tool: z.string(),
  action: z.string(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  result: taskStepResultSchema.optional(),
  latency_ms: z.number().int().nonnegative().optional(),
});
export type TaskStep = z.infer<typeof taskStepSchema>;

/** How a task ended, by `type`. */
export const taskOutcomeSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('success'),
    verdict: z.string(),
    artifacts: z.array(z.string()),
  }),
  z.object({
    type: z.literal('partial_success'),
    verdict: z.string(),
    completed: z.array(z.string()),
    failed: z.array(z.string()),
  }),
  z.object({
    type: z.literal('failure'),
    reason: z.string(),
    error_details: z.string().optional(),
  }),
]);
export type TaskOutcome = z.infer<typeof taskOutcomeSchema>;

/**
 * The reward of a completed task and its components. `total` is the raw reward
 * `base × efficiency × complexity_bonus × quality_multiplier + learning_bonus` (0 to 3.2);
 * `reward_score` is `1 − e^(−total)`, in [0, 1) and increasing in `total`.
 */
export const taskRewardSchema = z.object({
  /** From the outcome: success 1; partial success 0.25 + 0.5 × completed share; failure 0. */
  base: z.number(),
  /** From duration and step count: 0.5 to 1.5. */
  efficiency: z.number(),
  /** From complexity: simple 1.0, moderate 1.1, complex 1.2. */
  complexity_bonus: z.number(),
  /** From artifacts and the step error rate: 0.5 to 1.5. */
  quality_multiplier: z.number(),
  /** For tool diversity, reliable steps, error recovery and speed: 0 to 0.5. */
  learning_bonus: z.number(),
  /** The raw reward. */
  total: z.number(),
  /** The normalized reward in [0, 1]. */
  reward_score: z.number().min(0).max(1),
});
export type TaskReward = z.infer<typeof taskRewardSchema>;

/** A rule-based reflection on a completed task; each list is in a stable, documented order. */
export const taskReflectionSchema = z.object({
  successes: z.array(z.string()),
  improvements: z.array(z.string()),
  insights: z.array(z.string()),
});
export type TaskReflection = z.infer<typeof taskReflectionSchema>;

/** The kinds of pattern the learning cycle extracts. */
export const TASK_PATTERN_TYPES = [
  'tool_sequence',
  'decision_point',
  'error_recovery',
  'context',
] as const;
export type TaskPatternType = (typeof TASK_PATTERN_TYPES)[number];

/**
 * A pattern extracted from a task. `key` is derived from the pattern's content only, so the same
 * pattern found in several tasks has the same key and is stored as ONE artifact associated with
 * all of them.
 */
export const taskPatternSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('tool_sequence'),
    key: z.string(),
    /** The tools in step order. */
    tools: z.array(z.string()),
  }),
  z.object({
    type: z.literal('decision_point'),
    key: z.string(),
    /** The tool that took the decision. */
    tool: z.string(),
    /** The step action, lowercased with whitespace collapsed. */
    condition: z.string(),
    /** The decision words found in it, e.g. ["check", "if"]. */
    decision_words: z.array(z.string()),
  }),
  z.object({
    type: z.literal('error_recovery'),
    key: z.string(),
    failed_tool: z.string(),
    /** The error, normalized (lowercase, numbers as `#`), or `timeout`. */
    error: z.string(),
    recovery_tool: z.string(),
    /** The recovering step's action, lowercased with whitespace collapsed. */
    recovery_action: z.string(),
  }),
  z.object({
    type: z.literal('context'),
    key: z.string(),
    /** `task_type:…`, `domain:…`, `language:…`, `framework:…`, `complexity:…`, `tag:…` (sorted tags). */
    context_features: z.array(z.string()),
    /** The tools of the successful steps, in first-use order. */
    recommended_tools: z.array(z.string()),
  }),
]);
export type TaskPattern = z.infer<typeof taskPatternSchema>;

/** Whether the completed task passed the quality gate (null when the gate is off). */
export const taskQualityGateSchema = z.object({
  threshold: z.number(),
  score: z.number(),
  passed: z.boolean(),
});
export type TaskQualityGate = z.infer<typeof taskQualityGateSchema>;

/** A task episode as `get_episode` returns it. */
export const taskEpisodeSchema = z.object({
  /** The task episode id: the UUIDv4 id of the run that records it. */
  id: uuidSchema,
  task_description: z.string(),
  task_type: z.enum(TASK_TYPES),
  context: taskContextSchema,
  metadata: metadataSchema.optional(),
  session_id: uuidSchema.optional(),
  start_time: isoTimestampSchema,
  /** When the task was completed; null while it runs. */
  end_time: isoTimestampSchema.nullable(),
  steps: z.array(taskStepSchema),
  /** Null while the task runs. */
  outcome: taskOutcomeSchema.nullable(),
  reflection: taskReflectionSchema.nullable(),
  reward: taskRewardSchema.nullable(),
  /** `reward.reward_score`, or null while the task runs. */
  reward_score: z.number().nullable(),
  patterns: z.array(taskPatternSchema),
  quality_gate: taskQualityGateSchema.nullable(),
});
export type TaskEpisode = z.infer<typeof taskEpisodeSchema>;

/** One line of the timeline. */
export const taskTimelineEntrySchema = z.object({
  step_number: z.number().int(),
  timestamp: isoTimestampSchema,
  tool: z.string(),
  action: z.string(),
  result_type: z.enum(TASK_TIMELINE_RESULT_TYPES),
  latency_ms: z.number().int().nullable(),
});
export type TaskTimelineEntry = z.infer<typeof taskTimelineEntrySchema>;

/** `get_episode_timeline`: the steps in order, with the duration and outcome once ended. */
export const taskTimelineSchema = z.object({
  episode_id: uuidSchema,
  task_description: z.string(),
  start_time: isoTimestampSchema,
  end_time: isoTimestampSchema.nullable(),
  /** Seconds from start to completion; null before completion. */
  duration_seconds: z.number().nullable(),
  step_count: z.number().int(),
  /** The outcome type; null before completion. */
  outcome: z.enum(TASK_OUTCOME_TYPES).nullable(),
  /** The steps of this page (all of them unless `offset`/`limit` were given), in storage order. */
  timeline: z.array(taskTimelineEntrySchema),
  /** Where the next page starts (`offset` of the next call); null when this page is the last. */
  next_offset: z.number().int().nullable(),
});
export type TaskTimeline = z.infer<typeof taskTimelineSchema>;
