import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { portabilityFindings } from './__fixtures__/schema-portability.js';
import { toPortableJsonSchema } from './portable-json-schema.js';

// The rewrite must accept exactly the values the original accepts (checked with the same ajv the
// official MCP client validates structuredContent with), and leave nothing the MCP Inspector's
// strict mode reports.

const validator = new AjvJsonSchemaValidator();
const accepts = (schema: Record<string, unknown>, value: unknown) =>
  validator.getValidator(schema)(value).valid;

const SCHEMAS: Array<Record<string, unknown>> = [
  { type: ['string', 'number', 'boolean'] },
  { type: 'array', items: { type: ['string', 'number', 'boolean'] } },
  { type: ['integer', 'string'], anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string' }] },
  { type: ['string', 'null'], maxLength: 3 },
  { type: 'object', properties: { payload: {}, note: { description: 'anything' } } },
  { type: 'object', additionalProperties: {}, propertyNames: { type: 'string' } },
  { type: 'object', properties: { gone: false, any: true }, required: [] },
  {
    type: 'object',
    $defs: { value: { type: ['number', 'string'] } },
    properties: { list: { type: 'array', items: { $ref: '#/$defs/value' } } },
  },
  { not: {} },
  {},
];

const json = fc.jsonValue({ maxDepth: 3 });
const samples = fc.oneof(
  json,
  fc.record(
    { payload: json, note: json, list: fc.array(json), gone: json, any: json },
    {
      requiredKeys: [],
    },
  ),
);

describe('toPortableJsonSchema', () => {
  it('leaves nothing the Inspector strict mode reports', () => {
    for (const schema of SCHEMAS) {
      // `{ "not": {} }` is already portable: the empty schema under `not` is the usual spelling.
      if (!('not' in schema))
        expect(portabilityFindings(schema), JSON.stringify(schema)).not.toEqual([]);
      expect(portabilityFindings(toPortableJsonSchema(schema)), JSON.stringify(schema)).toEqual([]);
    }
  });

  it('spells an array type as typed anyOf branches, and `{}` as any JSON value', () => {
    expect(toPortableJsonSchema({ type: ['string', 'number'] })).toEqual({
      anyOf: [{ type: 'string' }, { type: 'number' }],
    });
    expect(
      toPortableJsonSchema({ type: 'object', additionalProperties: {}, properties: { a: {} } }),
    ).toEqual({
      type: 'object',
      additionalProperties: true,
      properties: {
        a: {
          anyOf: ['object', 'array', 'string', 'number', 'boolean', 'null'].map((type) => ({
            type,
          })),
        },
      },
    });
  });

  it('accepts exactly the values the original accepts', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SCHEMAS), samples, (schema, value) => {
        expect(accepts(toPortableJsonSchema(schema), value)).toBe(accepts(schema, value));
      }),
      { numRuns: 400 },
    );
  });

  it('does not change its input', () => {
    const schema = { type: 'object', properties: { a: { type: ['string', 'null'] }, b: {} } };
    const copy = structuredClone(schema);
    toPortableJsonSchema(schema);
    expect(schema).toEqual(copy);
  });
});
