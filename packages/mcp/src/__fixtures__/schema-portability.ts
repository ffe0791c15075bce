// What the MCP Inspector's strict mode (`inspector --cli --method tools/list --strict`, v2.12)
// reports about a tool's JSON Schema, restated from its documented rules so unit tests can check
// schemas without spawning it (test/schema-driven-clients.e2e.test.ts runs the real Inspector):
//   type-union      `type` is an array
//   untyped-schema  a schema with no validation keyword (except directly under `not`)
//   boolean-schema  a bare true/false where a schema object is expected
//   remote-ref      a `$ref` outside the document

type Node = Record<string, unknown>;

const CONSTRAINING =
  'type enum const multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength minLength pattern format contentMediaType contentEncoding contentSchema maxItems minItems uniqueItems maxContains minContains maxProperties minProperties required dependentRequired allOf anyOf oneOf not items prefixItems contains additionalItems unevaluatedItems properties patternProperties additionalProperties unevaluatedProperties propertyNames dependentSchemas dependencies $ref $dynamicRef $recursiveRef'.split(
    ' ',
  );
const BOOLEAN_VALUED = [
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
];
const SINGLE = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  ...BOOLEAN_VALUED,
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

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Each finding as `<rule> at <path>`; empty when the schema is portable. */
export function portabilityFindings(schema: unknown): string[] {
  const findings: string[] = [];
  const walk = (node: unknown, path: string, keyword: string | undefined) => {
    if (typeof node === 'boolean') {
      if (keyword === undefined || !BOOLEAN_VALUED.includes(keyword))
        findings.push(`boolean-schema at ${path}`);
      return;
    }
    if (!isNode(node)) return;
    if (Array.isArray(node.type)) findings.push(`type-union at ${path}`);
    if (typeof node.$ref === 'string' && node.$ref !== '' && !node.$ref.startsWith('#'))
      findings.push(`remote-ref at ${path}`);
    const constrains =
      Object.keys(node).some((key) => CONSTRAINING.includes(key)) ||
      ('if' in node && ('then' in node || 'else' in node));
    if (!constrains && keyword !== 'not') findings.push(`untyped-schema at ${path}`);
    for (const key of SINGLE) if (key in node) walk(node[key], `${path}.${key}`, key);
    for (const key of LISTS) {
      const list = node[key];
      if (Array.isArray(list)) {
        for (const [index, item] of list.entries()) walk(item, `${path}.${key}[${index}]`, key);
      }
    }
    for (const key of MAPS) {
      const map = node[key];
      if (isNode(map))
        for (const [name, item] of Object.entries(map)) walk(item, `${path}.${key}.${name}`, key);
    }
  };
  walk(schema, '$', undefined);
  return findings;
}
