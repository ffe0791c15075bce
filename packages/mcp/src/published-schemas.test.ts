import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { portabilityFindings } from './__fixtures__/schema-portability.js';
import { toPortableJsonSchema } from './portable-json-schema.js';

// The JSON Schemas this package publishes (`schemas/mcp/*.json`, shipped as
// `@episodic/mcp/schemas/*.json`) are read by the same clients as tools/list, so they are spelled
// as portably: `scripts/generate-schemas.mjs` writes them through `toPortableJsonSchema`.

const root = fileURLToPath(new URL('../../../schemas/', import.meta.url));
const index = JSON.parse(readFileSync(join(root, 'index.json'), 'utf8')) as {
  schemas: Array<{ package: string; file: string }>;
};
const published = index.schemas
  .filter((entry) => entry.package === '@episodic/mcp')
  .map((entry) => ({
    file: entry.file,
    schema: JSON.parse(readFileSync(join(root, entry.file), 'utf8')) as Record<string, unknown>,
  }));

describe('the published MCP schemas', () => {
  it('are the tool schemas and the home config', () => {
    const files = published.map((entry) => entry.file);
    expect(files).toContain('mcp/tool.create_episode.input.v1.json');
    expect(files).toContain('mcp/tool.replay_session.output.v1.json');
    expect(files).toContain('mcp/home-config.v1.json');
  });

  it('have no array type, no unconstrained schema and no bare boolean schema', () => {
    for (const { file, schema } of published) expect(portabilityFindings(schema), file).toEqual([]);
  });

  it('are already what the portable rewrite makes of them', () => {
    for (const { file, schema } of published)
      expect(toPortableJsonSchema(schema), file).toEqual(schema);
  });
});
