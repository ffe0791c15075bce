import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, temporaryDirectory, temporaryHome } from './helpers.js';

// better-sqlite3 is a native addon that npm 11 and pnpm 10 build only once its install script is
// approved, and only for one Node ABI. The CLI must still run everything that does not need SQLite
// (--version, help, run files with --store fs) without loading it, and say how to fix it when a
// command does. These tests run the built bin from a copy that resolves better-sqlite3 from an
// install of our own making: none at all, or the package without its built addon.

const require = createRequire(import.meta.url);
const packageRoot = dirname(realpathSync(require.resolve('better-sqlite3/package.json')));

/** dist/bin copied under a fresh folder, with `node_modules` as `prepare` leaves it. */
function installedBin(prepare: (nodeModules: string) => void): string {
  const root = temporaryDirectory('episodic-addon-');
  const bin = join(root, 'app', 'bin');
  cpSync(dirname(BIN), bin, { recursive: true });
  const nodeModules = join(root, 'app', 'node_modules');
  mkdirSync(nodeModules, { recursive: true });
  prepare(nodeModules);
  return join(bin, 'episodic.js');
}

/** A better-sqlite3 package and the modules it loads at run time, copied into `nodeModules`. */
function copyPackage(from: string, nodeModules: string, withAddon: boolean): void {
  const skipped = ['/deps', '/src', ...(withAddon ? [] : ['/build', '/prebuilds'])];
  cpSync(from, join(nodeModules, 'better-sqlite3'), {
    recursive: true,
    filter: (source) => !skipped.some((part) => source.startsWith(`${from}${part}`)),
  });
  // 12 finds its addon with `bindings`; 13 loads its prebuilt binary itself.
  for (const name of ['bindings', 'file-uri-to-path']) {
    let found: string;
    try {
      found = createRequire(join(from, 'package.json')).resolve(`${name}/package.json`);
    } catch {
      continue;
    }
    cpSync(dirname(realpathSync(found)), join(nodeModules, name), { recursive: true });
  }
}

/** better-sqlite3 without its compiled addon (12: an unapproved install script; 13: no prebuild). */
function unbuilt(nodeModules: string): void {
  copyPackage(packageRoot, nodeModules, false);
}

function run(bin: string, args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    // pnpm's bin shims set NODE_PATH to its store: a module found there is not what a user has.
    env: cleanEnv({ NODE_PATH: undefined }),
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A home with one run file, written by the normal build (which has the addon). */
function homeWithRunFile(): string {
  const home = temporaryHome();
  const created = spawnSync(
    process.execPath,
    [
      BIN,
      ...['--home', home, '--store', 'fs', 'tasks', 'create', '--description', 'Fix the build'],
      ...['--domain', 'ci', '--task-type', 'debugging', '-q'],
    ],
    { encoding: 'utf8', env: cleanEnv() },
  );
  expect(created.status, created.stderr).toBe(0);
  return home;
}

describe.each([
  ['not installed at all', (_: string) => {}],
  ['installed without its built addon', unbuilt],
] as const)('better-sqlite3 %s', (_label, prepare) => {
  it('--version, help and run files with --store fs work without it', () => {
    const bin = installedBin(prepare);
    const home = homeWithRunFile();
    expect(run(bin, ['--version']).status).toBe(0);
    expect(run(bin, ['--help']).stdout).toContain('Usage: episodic');
    expect(run(bin, ['runs', 'list', '--help']).status).toBe(0);
    for (const args of [
      ['runs', 'list'],
      ['sessions', 'list'],
      ['runs', 'list', '--json'],
    ]) {
      const result = run(bin, ['--home', home, '--store', 'fs', ...args]);
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    const listed = JSON.parse(
      run(bin, ['--home', home, '--store', 'fs', 'runs', 'list', '--json']).stdout,
    );
    expect(listed.runs).toHaveLength(1);
    expect(run(bin, ['completion', 'bash']).status).toBe(0);
  });

  it('a command that needs it says what failed and how to fix it', () => {
    const bin = installedBin(prepare);
    const home = homeWithRunFile();
    const human = run(bin, ['--home', home, 'episodes', 'query', '--scope', 'x']);
    expect(human.status, human.stdout + human.stderr).toBe(1);
    expect(human.stderr).toContain('better-sqlite3 could not be loaded');
    expect(human.stderr).toContain(
      'npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3',
    );
    expect(human.stderr).toContain('pnpm rebuild better-sqlite3');
    expect(human.stderr).toContain(`Node.js ${process.versions.node}`);
    expect(human.stderr).toContain('(STORAGE_ERROR)');
    expect(human.stderr).not.toMatch(/INTERNAL_ERROR|\n\s+at /);
    const json = run(bin, ['--home', home, 'tasks', 'list', '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      code: 'STORAGE_ERROR',
      details: { module: 'better-sqlite3', node: process.versions.node },
    });
  });
});

// better-sqlite3 13 needs Node-API 10 (Node >= 22.14) and crashes on an older Node; 12 aborts on
// Node 24 when a statement is collected. Neither fails with an error the CLI could catch, so the
// store refuses them up front. .ci/run hands these tests the real other version; elsewhere they are
// skipped.
const other =
  Number(process.versions.napi) < 10
    ? { version: '13', path: process.env.EPISODIC_TEST_BETTER_SQLITE3_13, fix: 'better-sqlite3@12' }
    : Number(process.versions.node.split('.')[0]) >= 24
      ? {
          version: '12',
          path: process.env.EPISODIC_TEST_BETTER_SQLITE3_12,
          fix: 'better-sqlite3@13',
        }
      : undefined;

it.skipIf(other?.path === undefined)(
  `refuses better-sqlite3 ${other?.version ?? '(none)'} on Node ${process.versions.node} with the fix`,
  () => {
    const bin = installedBin((nodeModules) =>
      copyPackage(other?.path as string, nodeModules, true),
    );
    const home = homeWithRunFile();
    const result = run(bin, ['--home', home, 'episodes', 'query', '--scope', 'x']);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain(`cannot run on Node.js ${process.versions.node}`);
    expect(result.stderr).toContain(`npm install ${other?.fix}`);
    expect(run(bin, ['--home', home, '--store', 'fs', 'runs', 'list']).status).toBe(0);
  },
);

// The normal build loads it, so the tests above fail if a broken copy is not what they run.
it('the same commands work from the normal build', () => {
  const home = homeWithRunFile();
  const result = spawnSync(
    process.execPath,
    [BIN, '--home', home, 'episodes', 'query', '--scope', 'x'],
    {
      encoding: 'utf8',
      env: cleanEnv(),
    },
  );
  expect(result.status, result.stderr).toBe(0);
  expect(fileURLToPath(import.meta.url)).toContain('native-addon');
});
