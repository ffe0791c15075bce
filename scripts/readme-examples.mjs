#!/usr/bin/env node
// README examples run as pasted. Every ```ts block of the root README and of the README of every
// workspace package (found from pnpm-workspace.yaml, so a package added later is covered without
// touching this script) is written to its own module, type-checked with the workspace's TypeScript
// against the BUILT packages (strict, as a user's project would be), then run with Node in a fresh
// temporary folder. A block that must not run (it serves forever, or needs a service) is marked
// ```ts no-run: it is still type-checked. A block marked ```ts postgres runs with DATABASE_URL set
// to a throwaway PostgreSQL server (started once, from test-support/postgres-server.ts, unless
// EPISODIC_TEST_POSTGRES_URL names one). `pnpm test` runs this after the packages' tests.
//
// Usage: node scripts/readme-examples.mjs [--keep] [FILTER…]   (FILTER: part of a README path)
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = realpathSync(new URL('..', import.meta.url).pathname);
const args = process.argv.slice(2);
const keep = args.includes('--keep');
const filters = args.filter((arg) => !arg.startsWith('--'));
const TIMEOUT_MS = 180_000;

/** The workspace package folders, from the `packages:` globs of pnpm-workspace.yaml. */
function workspacePackages() {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const section = /^packages:\n((?:\s+-\s+.+\n)+)/m.exec(yaml)?.[1] ?? '';
  const globs = [...section.matchAll(/-\s+["']?([^"'\n]+)["']?/g)].map((match) => match[1].trim());
  const folders = [];
  for (const glob of globs) {
    if (glob.endsWith('/*')) {
      const parent = join(root, glob.slice(0, -2));
      if (!existsSync(parent)) continue;
      for (const name of readdirSync(parent).sort()) folders.push(join(parent, name));
    } else {
      folders.push(join(root, glob));
    }
  }
  return folders.filter((folder) => existsSync(join(folder, 'package.json')));
}

/** The ```ts blocks of a Markdown file: their line, code and whether they run. */
function blocksOf(path) {
  const text = readFileSync(path, 'utf8');
  const blocks = [];
  const fence = /^```(ts|typescript)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (let match = fence.exec(text); match !== null; match = fence.exec(text)) {
    const line = text.slice(0, match.index).split('\n').length;
    const flags = match[2].trim().split(/\s+/).filter(Boolean);
    blocks.push({
      line,
      code: match[3],
      run: !flags.includes('no-run'),
      postgres: flags.includes('postgres'),
    });
  }
  return blocks;
}

/** Links `name` into `nodeModules`, resolved from `from` (a folder whose node_modules has it). */
function link(nodeModules, name, target) {
  const path = join(nodeModules, name);
  if (existsSync(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path, 'dir');
}

/** The folder of package `name` as Node would find it from `from` (exports maps aside). */
function packageFolder(name, from) {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(folder) === folder) return null;
  }
}

/**
 * A PostgreSQL URL for the blocks marked `postgres`: EPISODIC_TEST_POSTGRES_URL, or a throwaway
 * server started with the tests' harness (its TypeScript transpiled on the fly; it imports only
 * node: modules), stopped and removed when this script exits.
 */
async function postgresUrl(work) {
  const given = process.env.EPISODIC_TEST_POSTGRES_URL;
  if (given !== undefined && given !== '') return given;
  const ts = createRequire(join(root, 'package.json'))('typescript');
  const source = readFileSync(join(root, 'test-support', 'postgres-server.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const harness = join(work, 'postgres-server.mjs');
  writeFileSync(harness, outputText);
  const { startTestPostgres } = await import(pathToFileURL(harness).href);
  const server = await startTestPostgres();
  cleanups.push(() => server.destroy());
  return server.url;
}

const cleanups = [];

async function main() {
  const packages = workspacePackages().map((folder) => ({
    folder,
    manifest: JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')),
  }));
  const readmes = [
    { path: join(root, 'README.md'), owner: null },
    ...packages.map((entry) => ({ path: join(entry.folder, 'README.md'), owner: entry })),
  ].filter(
    (readme) =>
      existsSync(readme.path) &&
      (filters.length === 0 ||
        filters.some((filter) => relative(root, readme.path).includes(filter))),
  );

  // A consumer project inside the workspace: every workspace package and the dependencies of the
  // README's package are linked into its node_modules, as an install would put them.
  const work = join(root, 'node_modules', '.cache', 'readme-examples');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const nodeModules = join(work, 'node_modules');
  for (const { folder, manifest } of packages) link(nodeModules, manifest.name, folder);
  const examples = [];
  for (const readme of readmes) {
    const from = readme.owner?.folder ?? root;
    const manifest = readme.owner?.manifest ?? {};
    for (const name of Object.keys({
      ...manifest.dependencies,
      ...manifest.peerDependencies,
      ...manifest.devDependencies,
    })) {
      const folder = packageFolder(name, from);
      if (folder !== null) link(nodeModules, name, folder);
    }
    const label = relative(root, readme.path);
    for (const block of blocksOf(readme.path)) {
      const name = `${label.replace(/[^a-z0-9]+/gi, '-').replace(/-md$/i, '')}-${block.line}`;
      writeFileSync(join(work, `${name}.ts`), `${block.code}\nexport {};\n`);
      examples.push({ ...block, label: `${label}:${block.line}`, name });
    }
  }
  // Types for Node come from the workspace's @types/node.
  link(nodeModules, '@types/node', packageFolder('@types/node', root));
  writeFileSync(join(work, 'package.json'), '{ "type": "module", "private": true }\n');
  writeFileSync(
    join(work, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: true,
          types: ['node'],
          outDir: 'out',
        },
        include: ['*.ts'],
      },
      null,
      2,
    )}\n`,
  );
  console.log(
    `readme examples: ${examples.length} TypeScript blocks in ${readmes.filter((readme) => examples.some((example) => example.label.startsWith(relative(root, readme.path)))).length} READMEs`,
  );
  if (examples.length === 0) return;

  const tsc = join(
    dirname(createRequire(join(root, 'package.json')).resolve('typescript/package.json')),
    'bin',
    'tsc',
  );
  const compiled = spawnSync(process.execPath, [tsc, '-p', work], { encoding: 'utf8' });
  if (compiled.status !== 0) {
    // Point at the README line, not the generated file.
    const output = `${compiled.stdout}${compiled.stderr}`.replace(
      /^(\S+?)\.ts\((\d+),(\d+)\)/gm,
      (whole, file, line, column) => {
        const example = examples.find((entry) => entry.name === basename(file));
        if (example === undefined) return whole;
        const [readme, start] = example.label.split(':');
        return `${readme}:${Number(start) + Number(line)}:${column}`;
      },
    );
    fail(`type errors in README examples (fix the README):\n${output}`, work);
  }

  const failures = [];
  let databaseUrl;
  for (const example of examples) {
    if (!example.run) {
      console.log(`  type-checked ${example.label} (no-run)`);
      continue;
    }
    if (example.postgres) databaseUrl ??= await postgresUrl(work);
    const cwd = mkdtempSync(join(tmpdir(), 'episodic-readme-'));
    const started = Date.now();
    const result = spawnSync(process.execPath, [join(work, 'out', `${example.name}.js`)], {
      cwd,
      encoding: 'utf8',
      timeout: TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        EPISODIC_HOME: join(cwd, '.episodic'),
        NO_COLOR: '1',
        ...(example.postgres ? { DATABASE_URL: databaseUrl } : {}),
      },
    });
    rmSync(cwd, { recursive: true, force: true });
    if (result.status === 0) {
      console.log(`  ran ${example.label} (${Date.now() - started} ms)`);
    } else {
      failures.push(
        `${example.label}: ${result.signal === 'SIGTERM' ? `still running after ${TIMEOUT_MS / 1000} s` : `exit ${result.status}`}\n${result.stderr.trim()}`,
      );
    }
  }
  for (const cleanup of cleanups.splice(0)) await cleanup();
  if (failures.length > 0) fail(`README examples failed:\n\n${failures.join('\n\n')}`, work);
  if (!keep) rmSync(work, { recursive: true, force: true });
  console.log(`readme examples: ok (${examples.filter((example) => example.run).length} ran)`);
}

function fail(message, work) {
  console.error(`${message}\n(generated files: ${work})`);
  process.exit(1);
}

await main();
