import { completeTaskInputSchema } from '@episodic/core/schemas';
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

  it('gives a union or $ref property the type a schema-driven client needs to send it', () => {
    const json = toObjectInputSchema({
      type: 'object',
      $defs: { filter: { type: 'object', properties: { type: { type: 'string' } } } },
      properties: {
        result: { oneOf: [{ type: 'object' }, { type: 'object', properties: {} }] },
        fromTs: { anyOf: [{ type: 'integer' }, { type: 'string', format: 'date-time' }] },
        metadata: { $ref: '#/$defs/filter', description: 'a filter' },
        mode: { enum: ['a', 'b'] },
        anything: {},
      },
    });
    const properties = json.properties as Record<string, Record<string, unknown>>;
    expect(properties.result?.type).toBe('object');
    // Several types: the typed anyOf branches say it; an array `type` would not be portable.
    expect(properties.fromTs?.type).toBeUndefined();
    expect(properties.metadata).toMatchObject({ type: 'object', $ref: '#/$defs/filter' });
    expect(properties.mode?.type).toBe('string');
    expect(properties.anything).toEqual({});
  });
});
