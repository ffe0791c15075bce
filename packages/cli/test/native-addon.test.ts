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

/** better-sqlite3 and its runtime dependency, without the compiled addon (an unapproved build). */
function unbuilt(nodeModules: string): void {
  cpSync(packageRoot, join(nodeModules, 'better-sqlite3'), {
    recursive: true,
    filter: (source) => !source.includes(`${packageRoot}/build`) && !source.includes('/deps/'),
  });
  for (const name of ['bindings', 'file-uri-to-path']) {
    const from = dirname(
      realpathSync(
        createRequire(join(packageRoot, 'package.json')).resolve(`${name}/package.json`),
      ),
    );
    cpSync(from, join(nodeModules, name), { recursive: true });
  }
}

function run(bin: string, args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    // pnpm's bin shims set NODE_PATH to its store: a module found there is not what a user has.
    env: cleanEnv({ NODE_PATH: undefined }),
    timeout: 60_000,
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
