import { completeTaskInputSchema } from '@episodic/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toObjectInputSchema } from './object-input-schema.js';

describe('toObjectInputSchema', () => {
  it('advertises complete_episode as one object schema with outcome_type as an enum', () => {
    const json = toObjectInputSchema(
      z.toJSONSchema(completeTaskInputSchema, { io: 'input' }) as Record<string, unknown>,
    );
    expect(json.type).toBe('object');
    expect(json.oneOf).toBeUndefined();
    const properties = json.properties as Record<string, { enum?: string[] }>;
    expect(properties.outcome_type?.enum).toEqual(['success', 'partial_success', 'failure']);
    expect(Object.keys(properties).sort()).toEqual(
      [
        'artifacts',
        'completed',
        'episode_id',
        'error_details',
        'failed',
        'outcome_type',
        'reason',
        'verdict',
      ].sort(),
    );
    expect(json.required).toEqual(['episode_id', 'outcome_type']);
  });

  it('leaves an object schema as it is', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(toObjectInputSchema(schema)).toBe(schema);
  });
});
