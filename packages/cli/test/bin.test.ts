import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS, GROUPS } from '../src/command-table.js';
import { uiReceiptSchema } from '../src/receipts/index.js';
import {
  BIN,
  cleanEnv,
  episodic,
  episodicBinary,
  episodicJson,
  exitOf,
  expectError,
  startEpisodic,
  temporaryDirectory,
  temporaryHome,
} from './helpers.js';

// The version, the main help and start-up spawn the built binary: what a user runs, not the
// sources. The help of every command and the usage errors are behaviour, run in-process.
const { version } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as {
  version: string;
};

describe('episodic binary', () => {
  it('prints the package version', () => {
    for (const flag of ['--version', '-v']) {
      const result = episodicBinary([flag]);
      expect(result.status).toBe(0);
      expect(result.stdout.trim()).toBe(version);
    }
  });

  it('prints help with the commands, the global options and examples', () => {
    for (const args of [['--help'], ['-h'], [], ['help']]) {
      const result = episodicBinary(args);
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('Usage: episodic');
      expect(result.stdout).toContain('Examples:');
      for (const group of GROUPS) expect(result.stdout).toContain(group.name);
      for (const option of [
        '--home',
        '--db',
        '--json',
        '--quiet',
        '--no-color',
        '--version',
        '--help',
      ]) {
        expect(result.stdout).toContain(option);
      }
      expect(result.stderr).toBe('');
    }
  });

  it('prints help with examples for every command and every group', async () => {
    for (const command of COMMANDS) {
      const result = await episodic([...command.path, '--help']);
      expect(result.status, command.path.join(' ')).toBe(0);
      expect(result.stdout).toContain(`Usage: ${command.usage}`);
      expect(result.stdout).toContain('Examples:');
      expect(result.stdout).toContain('Global options:');
      for (const example of command.examples) expect(result.stdout).toContain(example);
      for (const name of Object.keys(command.options)) expect(result.stdout).toContain(`--${name}`);
      // `help <command>` says the same.
      expect((await episodic(['help', ...command.path])).stdout).toBe(result.stdout);
    }
    for (const group of GROUPS) {
      const result = await episodic([group.name]);
      expect(result.status).toBe(0);
      expect(result.stdout).toContain(`Usage: episodic ${group.name} <command>`);
      expect(result.stdout).toContain('Examples:');
      for (const command of COMMANDS.filter((candidate) => candidate.path[0] === group.name)) {
        expect(result.stdout).toContain(command.path[1]);
      }
    }
  });

  it('exits 2 with a hint on an unknown command, changing nothing', async () => {
    const home = temporaryHome();
    const result = await episodic(['--home', home, 'frobnicate']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Unknown command "frobnicate"');
    expect(result.stderr).toContain('episodic --help');
    expect(result.stdout).toBe('');
    const suggested = await episodic(['episodes', 'qurey']);
    expect(suggested.status).toBe(2);
    expect(suggested.stderr).toContain('Did you mean episodes query?');
    const json = await episodicJson(['--home', home, 'episodes', 'frob']);
    expect(expectError(json, 2, 'USAGE_ERROR')).toContain('Unknown command "episodes frob"');
    expect(json.receipt.kind).toBe('episodic.episodes.v1');
  });

  it('exits 2 on an unknown option, naming it and suggesting the closest', async () => {
    const result = await episodicJson(['episodes', 'query', '--scope', 'x', '--sesion-id', 's1']);
    const message = expectError(result, 2, 'USAGE_ERROR');
    expect(message).toContain('Unknown option --sesion-id');
    expect(message).toContain('Did you mean --session-id?');
    expect(result.receipt.kind).toBe('episodic.episodes.query.v1');
    const human = await episodic(['runs', 'list', '--bogus']);
    expect(human.status).toBe(2);
    expect(human.stderr).toContain('Unknown option --bogus for "episodic runs list"');
    expect(human.stdout).toBe('');
  });

  it('suggests the nearest option for a typo between a group and its command, changing nothing', async () => {
    const home = temporaryHome();
    const human = await episodic(['--home', home, 'runs', '--limt', '3', 'list']);
    expect(human.status).toBe(2);
    expect(human.stderr).toContain(
      'Unknown option --limt for "episodic runs list". Did you mean --limit?',
    );
    expect(human.stdout).toBe('');
    const json = await episodicJson(['runs', '--hom', home, 'list']);
    expect(expectError(json, 2, 'USAGE_ERROR')).toContain('Did you mean --home?');
    const bogus = await episodicJson(['--home', home, 'runs', '--bogus', 'list']);
    expect(expectError(bogus, 2, 'USAGE_ERROR')).toContain(
      'Unknown option --bogus for "episodic runs list"',
    );
    expect(bogus.receipt.kind).toBe('episodic.runs.list.v1');
    const alone = await episodic(['--home', home, '--versoin']);
    expect(alone.status).toBe(2);
    expect(alone.stderr).toContain('Did you mean --version?');
    expect(existsSync(home)).toBe(false);
  });

  it('exits 2 when an option misses its value or a flag gets one', async () => {
    const missing = await episodicJson(['episodes', 'query', '--scope']);
    expect(expectError(missing, 2, 'USAGE_ERROR')).toContain('--scope');
    const ambiguous = await episodicJson(['episodes', 'query', '--scope', '--global']);
    expect(expectError(ambiguous, 2, 'USAGE_ERROR')).toContain('--scope=VALUE');
    const flagValue = await episodicJson(['episodes', 'query', '--global=yes']);
    expect(expectError(flagValue, 2, 'USAGE_ERROR')).toContain('takes no value');
    const extra = await episodicJson(['runs', 'list', 'surplus']);
    expect(expectError(extra, 2, 'USAGE_ERROR')).toContain('"surplus"');
    const missingPositional = await episodicJson(['runs', 'show']);
    expect(expectError(missingPositional, 2, 'USAGE_ERROR')).toContain('RUN_ID');
  });

  it('accepts global options before or after the command', async () => {
    const home = temporaryHome();
    const before = await episodicJson(['--home', home, 'runs', 'list']);
    const after = await episodicJson(['runs', 'list', '--home', home]);
    expect(before.status).toBe(0);
    expect(after.status).toBe(0);
    expect(before.receipt.runs).toEqual([]);
    const badStore = await episodicJson(['--store', 'postgres', 'runs', 'list', '--home', home]);
    expect(expectError(badStore, 2, 'USAGE_ERROR')).toContain('--store');
  });

  it('reads EPISODIC_HOME and EPISODIC_STORE when no option is given', async () => {
    const home = temporaryHome();
    const result = await episodicJson(['runs', 'list'], {
      env: { EPISODIC_HOME: home, EPISODIC_STORE: 'fs' },
    });
    expect(result.status).toBe(0);
    expect(result.receipt.store).toBe('fs');
    const wins = await episodicJson(['runs', 'list', '--store', 'sqlite'], {
      env: { EPISODIC_HOME: home, EPISODIC_STORE: 'fs' },
    });
    expect(wins.receipt.store).toBe('sqlite');
  });
});

describe('start-up: what each command loads', () => {
  // A module hook records every module Node resolves, in the real process: ES modules through the
  // resolve hook, CommonJS ones (better-sqlite3 is required, not imported) through the CJS resolver.
  /** Writes a module hook that logs every module Node resolves; `--import register` installs it. */
  function moduleLog(): { log: string; register: string } {
    const directory = temporaryDirectory();
    const log = join(directory, 'modules.log');
    writeFileSync(log, '');
    const hooks = join(directory, 'hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}`,
    );
    const register = join(directory, 'register.mjs');
    writeFileSync(
      register,
      `import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
register(${JSON.stringify(pathToFileURL(hooks).href)});
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const resolved = resolveFilename.apply(this, args);
  if (isAbsolute(resolved)) appendFileSync(${JSON.stringify(log)}, pathToFileURL(resolved).href + '\\n');
  return resolved;
};
`,
    );
    return { log, register };
  }

  function loadedModules(args: string[]): { urls: string[]; code: string } {
    const { log, register } = moduleLog();
    const result = spawnSync(
      process.execPath,
      ['--import', pathToFileURL(register).href, BIN, ...args],
      {
        encoding: 'utf8',
        env: cleanEnv(),
      },
    );
    expect(result.status, result.stderr).toBe(0);
    const urls = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('file:'));
    const code = urls
      .filter((url) => url.startsWith(pathToFileURL(dirname(BIN)).href))
      .map((url) => readFileSync(fileURLToPath(url), 'utf8'))
      .join('\n');
    return { urls, code };
  }

  it('--version and --help load neither zod nor better-sqlite3', () => {
    for (const args of [['--version'], ['--help'], ['episodes', 'query', '--help']]) {
      const { urls, code } = loadedModules(args);
      expect(
        urls.some((url) => url.includes('better-sqlite3')),
        args.join(' '),
      ).toBe(false);
      expect(code.includes('ZodError'), args.join(' ')).toBe(false);
    }
  });

  it('ends quietly when the reader closed its output (episodic … | head)', async () => {
    const home = temporaryHome();
    for (const args of [['runs', 'list', '--json'], ['completion', 'fish'], ['--help']]) {
      const child = startEpisodic(['--home', home, ...args]);
      child.stdout?.destroy(); // the reader is gone before anything is written
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const code = await exitOf(child);
      expect(stderr, args.join(' ')).not.toMatch(/EPIPE|Unhandled 'error' event/);
      expect(code, args.join(' ')).toBe(0);
    }
  });

  it('run files with --store fs never load better-sqlite3', () => {
    const home = temporaryHome();
    for (const args of [
      ['runs', 'list'],
      ['sessions', 'list'],
      ['runs', 'list', '--json'],
      ['completion', 'zsh'],
    ]) {
      const { urls } = loadedModules(['--home', home, '--store', 'fs', ...args]);
      expect(
        urls.some((url) => url.includes('better-sqlite3')),
        args.join(' '),
      ).toBe(false);
    }
  });

  it('a command that needs them loads them (the check above can fail)', () => {
    const home = temporaryHome();
    const { urls, code } = loadedModules(['--home', home, 'episodes', 'query', '--scope', 'x']);
    expect(urls.some((url) => url.includes('better-sqlite3'))).toBe(true);
    expect(code.includes('ZodError')).toBe(true);
  });

  it('only "episodic ui" loads @episodic/ui and its server: every other command starts as before', () => {
    const home = temporaryHome();
    const isUi = (url: string) =>
      /node_modules\/@episodic\/ui\/|packages\/ui\/dist\/|node_modules\/hono\/|\/hono@|\/@hono\//.test(
        url,
      );
    for (const args of [
      ['--version'],
      ['--help'],
      ['ui', '--help'],
      ['--home', home, 'episodes', 'query', '--scope', 'x'],
      ['--home', home, '--store', 'fs', 'runs', 'list'],
    ]) {
      const { urls } = loadedModules(args);
      expect(urls.filter(isUi), args.join(' ')).toEqual([]);
    }
  });

  it('"episodic ui" does load it (the check above can fail)', async () => {
    const home = temporaryHome();
    const { log, register } = moduleLog();
    const child = spawn(
      process.execPath,
      [
        '--import',
        pathToFileURL(register).href,
        BIN,
        'ui',
        '--home',
        home,
        '--port',
        '0',
        '--no-open',
        '--json',
      ],
      { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0] as string);
      });
      child.on('exit', (code) => reject(new Error(`episodic ui exited with ${code}`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
    const receipt = uiReceiptSchema.parse(JSON.parse(line));
    expect(receipt).toMatchObject({
      kind: 'episodic.ui.v1',
      ok: true,
      host: '127.0.0.1',
      store: 'sqlite',
    });
    const urls = readFileSync(log, 'utf8').split('\n');
    expect(urls.some((url) => /@episodic\/ui\/dist|packages\/ui\/dist/.test(url))).toBe(true);
    expect(urls.some((url) => /\/hono\//.test(url))).toBe(true);
  });
});
