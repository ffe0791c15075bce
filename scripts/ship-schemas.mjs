// @ts-check
// Copies a package's JSON Schemas from the repository's `schemas/` (see generate-schemas.mjs) into
// its `dist/schemas/`, so the package ships them: `@episodic/core/schemas/session-state.v1.json`.
// Called by each owning package's tsup config after a build.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const schemas = fileURLToPath(new URL('../schemas/', import.meta.url));

/**
 * @param {string} packageName  e.g. `@episodic/core`
 * @param {string} dist         the package's dist folder
 */
export function shipSchemas(packageName, dist) {
  const { schemas: index } = /** @type {{ schemas: Array<{ package: string, file: string }> }} */ (
    JSON.parse(readFileSync(join(schemas, 'index.json'), 'utf8'))
  );
  const own = index.filter((entry) => entry.package === packageName);
  const target = join(dist, 'schemas');
  mkdirSync(target, { recursive: true });
  for (const entry of own)
    copyFileSync(join(schemas, entry.file), join(target, basename(entry.file)));
  writeFileSync(
    join(target, 'index.json'),
    `${JSON.stringify({ schemas: own.map((entry) => ({ ...entry, file: basename(entry.file) })) }, null, 2)}\n`,
  );
}
