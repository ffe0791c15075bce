type JsonSchema = Record<string, unknown>;

// What a schema-consuming client can read. The MCP Inspector's strict mode (`--cli --method
// tools/list --strict`) flags three shapes that are legal JSON Schema but travel badly: an array
// `type` (single-`type` dialects such as Gemini's function declarations reject the tool or drop
// the constraint), a schema with no validation keyword at all (`{}` or a bare `true`), and a bare
// boolean where an object schema is expected. `toPortableJsonSchema` rewrites each into an
// equivalent spelling that every client reads.

/** The keywords that constrain a value (a node with none of them accepts anything). */
const CONSTRAINING = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'items',
  'prefixItems',
  'contains',
  'additionalItems',
  'unevaluatedItems',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  'dependencies',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
]);

/** Keywords whose value may stay a boolean (`additionalProperties: true` is everywhere understood). */
const BOOLEAN_VALUED = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
]);
const SINGLE = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contentSchema',
];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAPS = [
  'properties',
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  '$defs',
  'definitions',
];

/** Any JSON value, spelled with one `type` per branch. */
const ANY_JSON: readonly JsonSchema[] = [
  'object',
  'array',
  'string',
  'number',
  'boolean',
  'null',
].map((type) => ({ type }));

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function constrains(node: JsonSchema): boolean {
  return (
    Object.keys(node).some((key) => CONSTRAINING.has(key)) ||
    ('if' in node && ('then' in node || 'else' in node))
  );
}

function portable(node: unknown, keyword: string | undefined): unknown {
  if (typeof node === 'boolean') {
    if (keyword !== undefined && BOOLEAN_VALUED.has(keyword)) return node;
    return node ? { anyOf: ANY_JSON.map((branch) => ({ ...branch })) } : { not: {} };
  }
  if (!isObject(node)) return node;
  const copy: JsonSchema = { ...node };
  for (const key of SINGLE) {
    if (key in copy) copy[key] = portable(copy[key], key);
  }
  for (const key of LISTS) {
    if (Array.isArray(copy[key]))
      copy[key] = (copy[key] as unknown[]).map((item) => portable(item, key));
  }
  for (const key of MAPS) {
    const map = copy[key];
    if (!isObject(map)) continue;
    copy[key] = Object.fromEntries(
      Object.entries(map).map(([name, item]) => [name, portable(item, key)]),
    );
  }
  const type = copy.type;
  if (Array.isArray(type)) {
    // `["string", "number"]` becomes `anyOf` branches of one type each (same values accepted).
    delete copy.type;
    const branches = [...new Set(type as string[])].map((single) => ({ type: single }));
    if (Array.isArray(copy.anyOf)) {
      const existing = copy.anyOf;
      delete copy.anyOf;
      copy.allOf = [
        ...((copy.allOf as unknown[] | undefined) ?? []),
        { anyOf: branches },
        { anyOf: existing },
      ];
    } else {
      copy.anyOf = branches;
    }
  }
  if (!constrains(copy) && keyword !== 'not') {
    // An unconstrained value under a boolean-valued keyword is the bare `true` every client reads.
    if (keyword !== undefined && BOOLEAN_VALUED.has(keyword) && Object.keys(copy).length === 0)
      return true;
    copy.anyOf = ANY_JSON.map((branch) => ({ ...branch }));
  }
  return copy;
}

/**
 * A copy of a JSON Schema that accepts the same values and that the MCP Inspector's strict mode
 * reports nothing about: array `type`s become `anyOf` branches of one type each, a schema with no
 * constraint becomes "any JSON value" spelled as six typed branches (or `true` where a boolean is
 * usual, e.g. `additionalProperties`), and a bare `false` becomes `{ "not": {} }`. The server
 * advertises every tool's schemas through it, and `schemas/mcp/*.json` (the published files) are
 * written through it; use it for the schemas of your own tools.
 */
export function toPortableJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return portable(schema, undefined) as JsonSchema;
}
