#!/usr/bin/env node
// Checks that every workspace package.json follows the house shape, so the published
// packages stay consistent as they grow. Exits non-zero and lists every problem.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const published = [
  'core',
  'store-fs',
  'store-sqlite',
  'store-postgres',
  'mcp',
  'interop',
  'cli',
].map((name) => `packages/${name}`);
const all = [...published, 'apps/demo'];
const requiredScripts = ['build', 'dev', 'clean', 'typecheck', 'test', 'lint'];
const problems = [];
const read = (dir) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
const problem = (dir, message) => problems.push(`${dir}/package.json: ${message}`);

const rootPackage = read('.');
const workspaceDirs = ['packages', 'apps'].flatMap((parent) =>
  readdirSync(join(root, parent))
    .map((name) => `${parent}/${name}`)
    .filter((dir) => existsSync(join(root, dir, 'package.json'))),
);
for (const dir of workspaceDirs)
  if (!all.includes(dir))
    problem(dir, 'is not a known workspace package; add it to scripts/check-packages.mjs');

const versions = new Set();
const repositories = new Set();
const peerZod = new Set();
for (const dir of all) {
  const pkg = read(dir);
  const expectedName = dir === 'apps/demo' ? '@episodic/demo' : `@episodic/${dir.split('/')[1]}`;
  if (pkg.name !== expectedName) problem(dir, `name is ${pkg.name}, expected ${expectedName}`);
  if (pkg.type !== 'module') problem(dir, 'must be "type": "module"');
  if (pkg.sideEffects !== false) problem(dir, 'must declare "sideEffects": false');
  if (pkg.license !== rootPackage.license)
    problem(dir, `license ${pkg.license} differs from the root's ${rootPackage.license}`);
  if (pkg.engines?.node !== rootPackage.engines.node)
    problem(dir, `engines.node must be ${rootPackage.engines.node}`);
  for (const script of requiredScripts)
    if (typeof pkg.scripts?.[script] !== 'string') problem(dir, `missing the "${script}" script`);
  for (const [name, range] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
    if (name.startsWith('@episodic/') && range !== 'workspace:*')
      problem(dir, `${name} must use "workspace:*" (found ${range})`);
    if (!name.startsWith('@episodic/') && range !== 'catalog:')
      problem(dir, `${name} must come from the catalog ("catalog:"), found ${range}`);
  }
  if (pkg.private) continue;
  versions.add(pkg.version);
  if (pkg.repository?.directory !== dir) problem(dir, `repository.directory must be ${dir}`);
  if (pkg.publishConfig?.access !== 'public' || pkg.publishConfig?.provenance !== true) {
    problem(dir, 'publishConfig must be { "access": "public", "provenance": true }');
  }
  if (JSON.stringify(pkg.files) !== JSON.stringify(['dist', 'README.md', 'CHANGELOG.md'])) {
    problem(dir, 'files must be ["dist", "README.md", "CHANGELOG.md"]');
  }
  if (pkg.exports?.['./package.json'] !== './package.json')
    problem(dir, 'exports must include "./package.json"');
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (subpath === './package.json') continue;
    // The JSON Schemas a package ships (scripts/ship-schemas.mjs): data files, no types.
    if (subpath === './schemas/*') {
      if (target !== './dist/schemas/*')
        problem(dir, 'exports["./schemas/*"] must be "./dist/schemas/*"');
      continue;
    }
    const keys = Object.keys(target ?? {});
    if (keys[0] !== 'types' || !keys.includes('import') || keys.includes('require')) {
      problem(dir, `exports["${subpath}"] must be ESM-only with "types" first, then "import"`);
    }
  }
  if (pkg.peerDependencies?.zod === undefined) problem(dir, 'zod must be a peer dependency');
  if (pkg.dependencies?.zod !== undefined)
    problem(dir, 'zod must be a peer dependency, not a dependency');
  if (!existsSync(join(root, dir, 'README.md'))) problem(dir, 'has no README.md');
  for (const gate of ['biome check .', 'publint --strict', 'attw --pack . --profile esm-only']) {
    if (!pkg.scripts?.lint?.includes(gate)) problem(dir, `the "lint" script must run "${gate}"`);
  }
  for (const tool of ['publint', '@arethetypeswrong/cli']) {
    if (pkg.devDependencies?.[tool] === undefined) problem(dir, `${tool} must be a devDependency`);
  }
  repositories.add(pkg.repository?.url);
  peerZod.add(pkg.peerDependencies?.zod);
  for (const [name, target] of Object.entries(pkg.bin ?? {})) {
    if (!target.startsWith('./dist/')) problem(dir, `bin "${name}" must point into ./dist`);
  }
  // The version every bin, server and run header reports is injected at build time.
  const tsup = join(root, dir, 'tsup.config.ts');
  const config = existsSync(tsup) ? readFileSync(tsup, 'utf8') : '';
  if (!/__EPISODIC_VERSION__:\s*JSON\.stringify\(packageJson\.version\)/.test(config)) {
    problem(dir, "tsup.config.ts must define __EPISODIC_VERSION__ from package.json's version");
  }
}
if (repositories.size > 1)
  problems.push(
    `published packages must share one repository.url, found ${[...repositories].join(', ')}`,
  );
if (peerZod.size > 1)
  problems.push(
    `published packages must accept the same zod range, found ${[...peerZod].join(', ')}`,
  );
if (versions.size > 1)
  problems.push(
    `published packages must share one version (fixed group), found ${[...versions].join(', ')}`,
  );

if (problems.length > 0) {
  console.error(
    `Package manifests are inconsistent:\n${problems.map((line) => `  - ${line}`).join('\n')}`,
  );
  process.exit(1);
}
console.log(`package manifests: ${all.length} packages consistent`);
