type JsonSchema = Record<string, unknown>;

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The local definition a `$ref` such as `#/$defs/__schema0` points at, if any. */
function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null) return undefined;
  const defs = root[match[1] as string] as Record<string, JsonSchema> | undefined;
  return defs?.[match[2] as string];
}

/**
 * The JSON types a property schema admits, read through `$ref`, `anyOf`/`oneOf`/`allOf`, `const`
 * and `enum`; undefined when that cannot be told (then no `type` is added).
 */
function typesOf(property: JsonSchema, root: JsonSchema, depth = 0): string[] | undefined {
  if (depth > 8) return undefined;
  const { type } = property;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type as string[];
  if (typeof property.$ref === 'string') {
    const target = resolveRef(root, property.$ref);
    return target === undefined ? undefined : typesOf(target, root, depth + 1);
  }
  const branches = (property.anyOf ?? property.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches)) {
    const types = new Set<string>();
    for (const branch of branches) {
      const branchTypes = typesOf(branch, root, depth + 1);
      if (branchTypes === undefined) return undefined;
      for (const branchType of branchTypes) types.add(branchType);
    }
    return [...types];
  }
  if (Array.isArray(property.allOf)) {
    for (const part of property.allOf as JsonSchema[]) {
      const partTypes = typesOf(part, root, depth + 1);
      if (partTypes !== undefined) return partTypes;
    }
    return undefined;
  }
  if ('const' in property) return [jsonTypeOf(property.const)];
  if (Array.isArray(property.enum)) return [...new Set(property.enum.map(jsonTypeOf))];
  return undefined;
}

/**
 * Gives every top-level property a `type`. Schema-driven clients (the MCP Inspector's forms, model
 * tool UIs) decide how to send a value from its property's `type`: an object behind a union or a
 * `$ref` without one is sent as a string and refused. `type` is added next to the union when every branch has the same one
 * (e.g. `"type": "object"` beside `oneOf`); nothing else changes.
 */
function withPropertyTypes(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties === undefined) return schema;
  let changed = false;
  const typed: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries(properties)) {
    const types = property.type === undefined ? typesOf(property, schema) : undefined;
    // A union of several types keeps its `anyOf` branches (each typed): an array `type` beside
    // them is less portable (see toPortableJsonSchema) and no client reads it better.
    if (types === undefined || types.length !== 1) {
      typed[name] = property;
      continue;
    }
    typed[name] = { type: types[0], ...property };
    changed = true;
  }
  return changed ? { ...schema, properties: typed } : schema;
}

/**
 * MCP requires a tool's `inputSchema` to be an object schema, and model providers reject a
 * top-level `oneOf` in function parameters. A discriminated union (`complete_episode`) is therefore
 * advertised as one object: every branch's properties (the discriminator as an enum of its values),
 * required = the fields every branch requires. The handler still validates the exact union. Every
 * top-level property gets a `type` too (see `withPropertyTypes`).
 */
export function toObjectInputSchema(schema: JsonSchema): JsonSchema {
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (!Array.isArray(branches))
    return withPropertyTypes(schema.type === undefined ? { type: 'object', ...schema } : schema);
  const properties: Record<string, JsonSchema> = {};
  for (const branch of branches) {
    for (const [name, property] of Object.entries(
      (branch.properties ?? {}) as Record<string, JsonSchema>,
    )) {
      const existing = properties[name];
      if (existing === undefined) {
        properties[name] = property;
      } else if (existing.const !== undefined || existing.enum !== undefined) {
        const values = [
          ...((existing.enum as unknown[]) ?? [existing.const]),
          ...((property.enum as unknown[]) ?? [property.const]),
        ];
        const { const: _const, ...rest } = existing;
        properties[name] = {
          ...rest,
          enum: [...new Set(values)],
          description: [existing.description, property.description].filter(Boolean).join(' '),
        };
      }
    }
  }
  const requiredSets = branches.map(
    (branch) => new Set((branch.required as string[] | undefined) ?? []),
  );
  const required = [...(requiredSets[0] ?? [])].filter((name) =>
    requiredSets.every((set) => set.has(name)),
  );
  const { oneOf: _oneOf, anyOf: _anyOf, ...rest } = schema;
  return withPropertyTypes({
    ...rest,
    type: 'object',
    properties,
    required,
    additionalProperties: false,
  });
}
