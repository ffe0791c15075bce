import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseInput } from '../validation/index.js';
import {
  addStepInputSchema,
  completeTaskInputSchema,
  createTaskInputSchema,
  deleteTaskInputSchema,
  TASK_DESCRIPTION_MAX_BYTES,
  TASK_STEP_OUTPUT_MAX_BYTES,
  TASK_STEP_PARAMETERS_MAX_BYTES,
  taskIdInputSchema,
} from './task.js';

const id = '123e4567-e89b-12d3-a456-426614174000';

function issue(schema: z.ZodType, value: unknown): string {
  try {
    parseInput(schema, value, 'task input');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a validation error');
}

describe('task input schemas', () => {
  const inputs = {
    create_episode: createTaskInputSchema,
    add_episode_step: addStepInputSchema,
    complete_episode: completeTaskInputSchema,
    get_episode: taskIdInputSchema,
    get_episode_timeline: taskIdInputSchema,
    delete_episode: deleteTaskInputSchema,
  };

  it('convert to JSON Schema and describe every property (MCP tool inputs)', () => {
    for (const [name, schema] of Object.entries(inputs)) {
      const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
      const variants = (json.oneOf as Array<Record<string, unknown>> | undefined) ?? [json];
      for (const variant of variants) {
        const properties = variant.properties as Record<string, { description?: string }>;
        for (const [field, property] of Object.entries(properties)) {
          expect(property.description, `${name}.${field}`).toBeTruthy();
        }
      }
      expect(() => z.toJSONSchema(schema, { io: 'output' })).not.toThrow();
    }
    const create = z.toJSONSchema(createTaskInputSchema, { io: 'input' }) as { required: string[] };
    expect(create.required).toEqual(['task_description', 'domain', 'task_type']);
  });

  it("accepts seed 004's examples and defaults complexity to moderate", () => {
    const created = createTaskInputSchema.parse({
      task_description: 'Add rate limiting to API endpoints',
      domain: 'web-api',
      task_type: 'code_generation',
      language: 'rust',
      framework: 'axum',
      tags: ['api', 'security', 'rate-limiting'],
    });
    expect(created.complexity).toBe('moderate');
    expect(
      addStepInputSchema.parse({
        episode_id: id,
        step_number: 2,
        tool: 'code_generator',
        action: 'Implementing rate limiter middleware',
        parameters: { algorithm: 'token-bucket', backend: 'redis' },
        result: { type: 'success', output: 'Created middleware and tests' },
        latency_ms: 450,
      }).result,
    ).toEqual({ type: 'success', output: 'Created middleware and tests' });
    for (const outcome of [
      { outcome_type: 'success', verdict: 'done', artifacts: ['auth.rs'] },
      { outcome_type: 'partial_success', verdict: 'half', completed: ['login'], failed: ['2fa'] },
      {
        outcome_type: 'failure',
        reason: 'Incompatible dependency versions',
        error_details: 'axum 0.7',
      },
    ]) {
      expect(completeTaskInputSchema.safeParse({ episode_id: id, ...outcome }).success).toBe(true);
    }
  });

  it('enforces the limits in UTF-8 bytes', () => {
    const base = { domain: 'd', task_type: 'analysis' };
    expect(
      createTaskInputSchema.safeParse({
        ...base,
        task_description: 'a'.repeat(TASK_DESCRIPTION_MAX_BYTES),
      }).success,
    ).toBe(true);
    // 3,334 three-byte characters = 10,002 bytes, though only 3,334 UTF-16 units.
    expect(
      issue(createTaskInputSchema, { ...base, task_description: '€'.repeat(3_334) }),
    ).toContain('task_description must be at most 10,000 bytes');
    const step = { episode_id: id, step_number: 1, tool: 't', action: 'a' };
    expect(
      addStepInputSchema.safeParse({
        ...step,
        result: { type: 'success', output: '😀'.repeat(2_500) },
      }).success,
    ).toBe(true);
    expect(
      issue(addStepInputSchema, {
        ...step,
        result: { type: 'success', output: 'x'.repeat(TASK_STEP_OUTPUT_MAX_BYTES + 1) },
      }),
    ).toContain('result.output');
    const big = { blob: 'x'.repeat(TASK_STEP_PARAMETERS_MAX_BYTES) };
    expect(issue(addStepInputSchema, { ...step, parameters: big })).toContain(
      'parameters must be a JSON object of at most 1 MB',
    );
    expect(
      addStepInputSchema.safeParse({ ...step, parameters: { blob: 'x'.repeat(1_000_000) } })
        .success,
    ).toBe(true);
  });

  it('names the field, the value and the allowed values on bad input', () => {
    expect(
      issue(createTaskInputSchema, { task_description: 'x', domain: 'd', task_type: 'coding' }),
    ).toContain('task_type must be one of "analysis", "code_generation"');
    expect(issue(taskIdInputSchema, { episode_id: 'not-a-uuid' })).toContain(
      'episode_id must be a UUID',
    );
    expect(
      issue(completeTaskInputSchema, {
        episode_id: id,
        outcome_type: 'partial_success',
        verdict: 'v',
        completed: [],
      }),
    ).toContain('failed');
    expect(issue(completeTaskInputSchema, { episode_id: id, outcome_type: 'won' })).toContain(
      'outcome_type',
    );
    expect(
      issue(addStepInputSchema, {
        episode_id: id,
        step_number: 1,
        tool: 't',
        action: 'a',
        result: { type: 'error' },
      }),
    ).toContain('result.message');
    expect(
      issue(addStepInputSchema, { episode_id: id, step_number: 0, tool: 't', action: 'a' }),
    ).toContain('step_number');
    expect(
      issue(createTaskInputSchema, {
        task_description: 'x',
        domain: 'd',
        task_type: 'testing',
        metadata: { a: { b: 1 } },
      }),
    ).toContain('metadata.a');
    expect(issue(deleteTaskInputSchema, { episode_id: id, confirm: 'yes' })).toContain('confirm');
  });
});
