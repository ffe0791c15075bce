import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, expect } from 'vitest';
import { errorReceiptSchema } from '../src/receipts/index.js';
import { runCli } from '../src/run-cli.js';

/**
 * The BUILT binary (`npx tsup` first), for the end-to-end tests that need a real process: they run
 * what a user runs, from the snapshot of `dist/bin` that `global-setup.ts` takes.
 */
export const BIN =
  process.env.EPISODIC_TEST_BIN ??
  fileURLToPath(new URL('../dist/bin/episodic.js', import.meta.url));

const temporary: string[] = [];
afterEach(() => {
  for (const directory of temporary.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A fresh temp directory, removed after the test. */
export function temporaryDirectory(prefix = 'episodic-cli-'): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(directory);
  return directory;
}

/** A fresh Episodic home (never the user's ~/.episodic). */
export function temporaryHome(): string {
  return join(temporaryDirectory('episodic-home-'), 'home');
}

/**
 * The environment children run with: no Episodic variables from the outer shell, HOME pointing at
 * a temp directory (so even a missing --home could never reach the user's ~/.episodic).
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      name.startsWith('EPISODIC_') ||
      name === 'NODE_EXTRA_CA_CERTS' ||
      name === 'FORCE_COLOR' ||
      name === 'NO_COLOR'
    ) {
      delete env[name];
    }
  }
  env.HOME = temporaryDirectory('episodic-user-');
  // Bare dates and "today" are local days: tests pin the zone (a test may set another).
  env.TZ = 'UTC';
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** What one run of the CLI printed. */
export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** How a test runs the CLI: extra environment variables (undefined removes one), standard input. */
export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
}

/**
 * Runs the CLI in this process through `runCli`, with its own IO: what it writes is captured, the
 * environment is `cleanEnv(options.env)`, standard input is `options.input` (empty by default),
 * and nothing is a terminal, as for a spawned binary with pipes. Behaviour tests use it; the few
 * tests that need a real process (the built binary, signals, a second process) spawn instead.
 */
export async function episodic(
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: cleanEnv(options.env),
    readStdin: async () => options.input ?? '',
  });
  return { status, stdout, stderr };
}

/** Runs the CLI in-process with `--json` and parses the single receipt it must print. */
export async function episodicJson(
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult & { receipt: Record<string, unknown> }> {
  return singleReceipt(await episodic([...args, '--json'], options));
}

/** Runs the built binary in a child process and waits for it (the end-to-end tests). */
export function episodicBinary(args: readonly string[], options: RunOptions = {}): RunResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: cleanEnv(options.env),
    ...(options.input === undefined ? {} : { input: options.input }),
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the built binary with `--json` and parses the single receipt it must print. */
export function episodicBinaryJson(
  args: readonly string[],
  options: RunOptions = {},
): RunResult & { receipt: Record<string, unknown> } {
  return singleReceipt(episodicBinary([...args, '--json'], options));
}

function singleReceipt(result: RunResult): RunResult & { receipt: Record<string, unknown> } {
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  expect(lines, `one receipt line on stdout, got: ${result.stdout}\n${result.stderr}`).toHaveLength(
    1,
  );
  return { ...result, receipt: JSON.parse(lines[0] as string) as Record<string, unknown> };
}

/** Asserts a failed run: the exit code, one error receipt with `code`, and returns its message. */
export function expectError(
  result: RunResult & { receipt: Record<string, unknown> },
  status: number,
  code: string,
): string {
  expect(result.status, `exit code (stderr: ${result.stderr})`).toBe(status);
  const receipt = errorReceiptSchema.parse(result.receipt);
  expect(receipt.code).toBe(code);
  return receipt.error;
}

/** Starts the binary without waiting (for `tail -f`, `mcp`). */
export function startEpisodic(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Collects a child's stdout and resolves once `predicate` holds for it. */
export function waitForOutput(
  child: ChildProcess,
  predicate: (stdout: string) => boolean,
  timeoutMs = 20_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      reject(
        new Error(`timed out waiting for output; stdout so far: ${stdout}\nstderr: ${stderr}`),
      );
    }, timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const check = (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (predicate(stdout)) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve(stdout);
      }
    };
    child.stdout?.on('data', check);
  });
}

/** Resolves with a child's exit code. */
export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/**
 * Every ledger row of a database, in insertion order, or null when the file does not exist:
 * compared before and after a command that must change nothing.
 */
export function ledgerRows(home: string): unknown[] | null {
  const path = join(home, 'episodic.db');
  if (!existsSync(path)) return null;
  const database = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return database.prepare('SELECT * FROM episodic_events ORDER BY id').all();
  } finally {
    database.close();
  }
}

/** The bytes of a file (and its `-wal`), for residue checks. */
export function databaseBytes(home: string): Buffer {
  const path = join(home, 'episodic.db');
  return Buffer.concat([
    readFileSync(path),
    existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : Buffer.alloc(0),
  ]);
}

/**
 * The arguments of `episodes append` in `home`: scope `proj`, session `s1`, agent `agent`, type
 * `tool.call` and a summary unless `fields` (flag names without `--`) say otherwise, then `flags`.
 */
export function appendArgs(
  home: string,
  fields: Record<string, string>,
  flags: readonly string[] = [],
): string[] {
  const args = ['--home', home, 'episodes', 'append'];
  const defaults = {
    scope: 'proj',
    'session-id': 's1',
    'agent-id': 'agent',
    type: 'tool.call',
    summary: 'did something',
  };
  for (const [name, value] of Object.entries({ ...defaults, ...fields }))
    args.push(`--${name}`, value);
  return [...args, ...flags];
}

/** Appends one ledger event through the CLI (quietly) and returns its receipt's event. */
export async function appendEvent(
  home: string,
  fields: Record<string, string>,
  flags: string[] = [],
): Promise<Record<string, unknown>> {
  const result = await episodicJson(appendArgs(home, fields, flags));
  expect(result.status, result.stderr + result.stdout).toBe(0);
  return result.receipt.event as Record<string, unknown>;
}
