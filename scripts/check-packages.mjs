#!/usr/bin/env node
// Checks that every workspace package.json follows the house shape, so the published
// packages stay consistent as they grow. Exits non-zero and lists every problem.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const published = [
  'core',
  'store-fs',
  'store-sqlite',
  'store-postgres',
  'home',
  'mcp',
  'interop',
  'ui',
  'cli',
  'ai-sdk',
  'langgraph',
  'claude-agent-sdk',
  'openai-agents',
  'google-adk',
].map((name) => `packages/${name}`);
const all = [...published, 'apps/demo', 'apps/store-example'];
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
  const files = [...(pkg.bin === undefined ? [] : ['bin']), 'dist', 'README.md', 'CHANGELOG.md'];
  if (JSON.stringify(pkg.files) !== JSON.stringify(files)) {
    problem(dir, `files must be ${JSON.stringify(files)}`);
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
    // ESM, also loadable with require() on Node >= 20.19: "default" (last) is what require()
    // and every other resolver without the "import" condition fall back to; no CommonJS build.
    const keys = Object.keys(target ?? {});
    if (
      keys.join(',') !== 'types,import,default' ||
      target.default !== target.import ||
      !target.import.endsWith('.js')
    ) {
      problem(
        dir,
        `exports["${subpath}"] must be { "types", "import", "default" } in that order, with "default" the same ESM file as "import"`,
      );
    }
  }
  if (pkg.peerDependencies?.zod === undefined) problem(dir, 'zod must be a peer dependency');
  if (pkg.dependencies?.zod !== undefined)
    problem(dir, 'zod must be a peer dependency, not a dependency');
  if (!existsSync(join(root, dir, 'README.md'))) problem(dir, 'has no README.md');
  const attw = 'attw --pack . --profile node16 --ignore-rules cjs-resolves-to-esm';
  for (const gate of ['biome check .', 'publint --strict', attw]) {
    if (!pkg.scripts?.lint?.includes(gate)) problem(dir, `the "lint" script must run "${gate}"`);
  }
  for (const tool of ['publint', '@arethetypeswrong/cli']) {
    if (pkg.devDependencies?.[tool] === undefined) problem(dir, `${tool} must be a devDependency`);
  }
  repositories.add(pkg.repository?.url);
  peerZod.add(pkg.peerDependencies?.zod);
  // A bin is a committed shim in bin/ that imports dist/bin/: pnpm links workspace bins at
  // install, before anything is built, and warns about a target that does not exist yet.
  for (const [name, target] of Object.entries(pkg.bin ?? {})) {
    const shim = join(root, dir, target);
    if (target !== `./bin/${name}.js` || !existsSync(shim)) {
      problem(dir, `bin "${name}" must be the committed shim ./bin/${name}.js`);
    } else if (!readFileSync(shim, 'utf8').includes(`import('../dist/bin/${name}.js')`)) {
      problem(dir, `bin/${name}.js must import ../dist/bin/${name}.js`);
    }
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

// Every published package is packed, installed and run by the pack smoke test.
const smoke = readFileSync(join(root, 'scripts', 'smoke-pack.mjs'), 'utf8');
const smokeList = smoke.slice(
  smoke.indexOf('const PUBLISHED = ['),
  smoke.indexOf('];', smoke.indexOf('const PUBLISHED = [')),
);
for (const dir of published) {
  const name = dir.slice('packages/'.length);
  if (!smokeList.includes(`'${name}'`))
    problem(
      dir,
      `is published but not in scripts/smoke-pack.mjs's PUBLISHED list: add it (and its use)`,
    );
}

// No tracked file keeps a merge's conflict markers (biome finds them in code, not in Markdown).
const markers = spawnSync('git', ['grep', '-lE', '^(<<<<<<<|>>>>>>>) '], {
  cwd: root,
  encoding: 'utf8',
});
for (const file of markers.stdout.split('\n').filter(Boolean))
  problems.push(`${file}: has merge conflict markers (<<<<<<< / >>>>>>>): resolve them`);

if (problems.length > 0) {
  console.error(
    `Package manifests are inconsistent:\n${problems.map((line) => `  - ${line}`).join('\n')}`,
  );
  process.exit(1);
}
console.log(`package manifests: ${all.length} packages consistent`);
