type JsonSchema = Record<string, unknown>;

/**
 * MCP requires a tool's `inputSchema` to be an object schema, and model providers reject a
 * top-level `oneOf` in function parameters. A discriminated union (`complete_episode`) is therefore
 * advertised as one object: every branch's properties (the discriminator as an enum of its values),
 * required = the fields every branch requires. The handler still validates the exact union.
 */
export function toObjectInputSchema(schema: JsonSchema): JsonSchema {
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (!Array.isArray(branches))
    return schema.type === undefined ? { type: 'object', ...schema } : schema;
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
  return { ...rest, type: 'object', properties, required, additionalProperties: false };
}
