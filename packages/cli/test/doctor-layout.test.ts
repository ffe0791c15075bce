/**
 * Damaged home layouts (issue 29, item 4): a FIFO named like a run file or a snapshot, a directory
 * where a file belongs, a file where a directory belongs, symbolic links out of the home. Every
 * command runs as a child process under a kill timer: a command that blocks is killed and the test
 * fails saying so, instead of hanging the suite.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { completedRun, runIdFor } from '@episodic/core/testing';
import { createFsStore } from '@episodic/store-fs';
import { describe, expect, it } from 'vitest';
import { doctorReceiptSchema } from '../src/receipts/index.js';
import { BIN, cleanEnv, temporaryDirectory, temporaryHome } from './helpers.js';

const RUN = runIdFor(1);
const SECOND_RUN = runIdFor(2);
const SESSION = '0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e';
const DAY = join('sessions', '2026', '02', '03');
/** Far above what any of these commands needs; it only turns a hang into a failure. */
const KILL_AFTER_MS = 30_000;

function mkfifo(path: string): void {
  const result = spawnSync('/usr/bin/mkfifo', [path]);
  expect(result.status, String(result.stderr)).toBe(0);
}

/** Runs the binary with `--json` under a kill timer; fails clearly when it had to be killed. */
function run(home: string, args: readonly string[]) {
  const result = spawnSync(process.execPath, [BIN, '--home', home, ...args, '--json'], {
    encoding: 'utf8',
    env: cleanEnv(),
    timeout: KILL_AFTER_MS,
    killSignal: 'SIGKILL',
  });
  expect(
    result.signal,
    `episodic ${args.join(' ')} did not exit by itself (killed after ${KILL_AFTER_MS} ms)`,
  ).toBeNull();
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  expect(lines, `one receipt line, got: ${result.stdout}\n${result.stderr}`).toHaveLength(1);
  return {
    status: result.status,
    receipt: JSON.parse(lines[0] as string) as Record<string, unknown>,
  };
}

function doctor(home: string, fix = false) {
  const result = run(home, fix ? ['doctor', '--fix'] : ['doctor']);
  const receipt = doctorReceiptSchema.parse(result.receipt);
  return { status: result.status, receipt };
}

/** A home with one complete run and one session (a base and a commit after it). */
async function populatedHome(): Promise<string> {
  const home = temporaryHome();
  const store = createFsStore({ root: home, durability: 'none', fold: { currentUpToBytes: 0 } });
  try {
    await store.runs.append(RUN, completedRun(RUN, 2));
    const episode = (id: number) => ({
      id,
      type: 'item',
      meta: { source: 'user', ts: '2026-02-03T12:00:00.000Z' },
      payload: { item: { type: 'message', role: 'user', content: `turn ${id}` } },
    });
    for (const revision of [1, 2]) {
      await store.sessions.commit({
        sessionId: SESSION,
        expectedRevision: revision === 1 ? null : revision - 1,
        delta: { revision, updated_at: '2026-02-03T12:00:00.000Z', episodes: [episode(revision)] },
        ...(revision === 1
          ? {
              state: {
                schema_version: 2,
                session_id: SESSION,
                updated_at: '2026-02-03T12:00:00.000Z',
                context: {},
                revision,
                episodes: [episode(1)],
                messages: [],
              },
            }
          : {}),
        fold: false,
      });
    }
  } finally {
    await store.close();
  }
  expect(existsSync(join(home, 'sessions', 'state', `${SESSION}.deltas.jsonl`))).toBe(true);
  return home;
}

function problemAt(receipt: ReturnType<typeof doctor>['receipt'], path: string) {
  const found = receipt.problems.find((problem) => problem.path === path);
  expect(found, `a problem at ${path}: ${JSON.stringify(receipt.problems)}`).toBeDefined();
  return found as (typeof receipt.problems)[number];
}

describe('doctor on a damaged home layout', { timeout: 240_000 }, () => {
  it('a FIFO named like a run file: doctor, doctor --fix and runs show finish and report it', async () => {
    const home = await populatedHome();
    const fifo = join(home, DAY, `${SECOND_RUN}.jsonl`);
    mkfifo(fifo);
    for (const fix of [false, true]) {
      const { status, receipt } = doctor(home, fix);
      expect(status).toBe(1);
      expect(receipt.healthy).toBe(false);
      const problem = problemAt(receipt, join(DAY, `${SECOND_RUN}.jsonl`));
      expect(problem).toMatchObject({ area: 'run_file', fixable: false, fixed: false });
      expect(problem.message).toContain('a FIFO (named pipe)');
    }
    const show = run(home, ['runs', 'show', SECOND_RUN]);
    expect(show.status).toBe(1);
    expect(show.receipt).toMatchObject({ ok: false, code: 'CORRUPT_DATA' });
    expect(String(show.receipt.error)).toContain('FIFO');
    // The listing names it as one damaged entry and still lists the good run.
    const list = run(home, ['runs', 'list']);
    expect(list.status).toBe(0);
    expect((list.receipt.runs as { run_id: string }[]).map((entry) => entry.run_id)).toEqual([RUN]);
    expect(list.receipt.errors).toEqual([expect.objectContaining({ run_id: SECOND_RUN })]);
    expect(run(home, ['runs', 'show', RUN]).status).toBe(0);
  });

  it('a FIFO as a session base or its commits: doctor reports it, sessions show is CORRUPT_DATA', async () => {
    for (const name of [`${SESSION}.json`, `${SESSION}.deltas.jsonl`]) {
      const home = await populatedHome();
      const path = join(home, 'sessions', 'state', name);
      rmSync(path);
      mkfifo(path);
      const { status, receipt } = doctor(home, true);
      expect(status).toBe(1);
      expect(problemAt(receipt, join('sessions', 'state', name)).message).toContain('FIFO');
      const show = run(home, ['sessions', 'show', SESSION, '--store', 'fs']);
      expect(show.receipt).toMatchObject({ ok: false, code: 'CORRUPT_DATA' });
    }
  });

  it('a directory named like a session’s commits is a finding, never INTERNAL_ERROR', async () => {
    const home = await populatedHome();
    const deltas = join(home, 'sessions', 'state', `${SESSION}.deltas.jsonl`);
    rmSync(deltas);
    mkdirSync(deltas);
    const { status, receipt } = doctor(home);
    expect(status).toBe(1);
    expect(receipt.code).toBe('CORRUPT_DATA');
    expect(
      problemAt(receipt, join('sessions', 'state', `${SESSION}.deltas.jsonl`)).message,
    ).toContain('it is a directory where a regular file is expected');
    const show = run(home, ['sessions', 'show', SESSION]);
    expect(show.receipt).toMatchObject({ ok: false, code: 'CORRUPT_DATA' });
  });

  it('sessions/state as a regular file: doctor is not healthy and says what breaks', async () => {
    const home = await populatedHome();
    const state = join(home, 'sessions', 'state');
    rmSync(state, { recursive: true });
    writeFileSync(state, 'not a directory\n');
    const { status, receipt } = doctor(home);
    expect(status).toBe(1);
    expect(receipt.healthy).toBe(false);
    expect(problemAt(receipt, join('sessions', 'state')).message).toContain(
      'where a directory is expected',
    );
    // The run files are still checked.
    expect(receipt.checked.run_files).toBe(1);
  });

  it('doctor --fix never writes through a quarantine/ link that leaves the home', async () => {
    const home = await populatedHome();
    const outside = temporaryDirectory('episodic-outside-');
    symlinkSync(outside, join(home, 'quarantine'));
    const runFile = join(home, DAY, `${RUN}.jsonl`);
    writeFileSync(runFile, `${readFileSync(runFile, 'utf8')}{"torn`);
    const before = readFileSync(runFile);
    const { status, receipt } = doctor(home, true);
    expect(status).toBe(1);
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(runFile).equals(before)).toBe(true);
    expect(receipt.quarantine).toBeNull();
    expect(problemAt(receipt, 'quarantine').message).toContain(
      'a symbolic link that leaves the home',
    );
    const torn = problemAt(receipt, join(DAY, `${RUN}.jsonl`));
    expect(torn.fixed).toBe(false);
    expect(torn.action).toContain('never writes through it');
  });

  it('a store directory or a date directory that is a link, and a FIFO database, are findings', async () => {
    const home = await populatedHome();
    const outside = temporaryDirectory('episodic-outside-');
    mkdirSync(join(outside, 'day'));
    symlinkSync(join(outside, 'day'), join(home, 'sessions', '2026', '02', '04'));
    mkfifo(join(home, 'sessions', '2026', '02', '05'));
    mkfifo(join(home, 'episodic.db'));
    rmSync(join(home, 'cache'), { recursive: true, force: true });
    symlinkSync(outside, join(home, 'cache'));
    const { status, receipt } = doctor(home, true);
    expect(status).toBe(1);
    expect(problemAt(receipt, join('sessions', '2026', '02', '04')).message).toContain(
      'a symbolic link that leaves the home',
    );
    expect(problemAt(receipt, join('sessions', '2026', '02', '05')).message).toContain('FIFO');
    expect(problemAt(receipt, 'cache').message).toContain('a symbolic link that leaves the home');
    expect(
      receipt.problems.find((problem) => problem.path.endsWith('episodic.db'))?.message,
    ).toContain('FIFO');
    expect(readdirSync(join(outside, 'day'))).toEqual([]);
  });

  it('a home config that is a FIFO or not JSON: doctor reports it and checks the rest of the home', async () => {
    for (const damage of ['fifo', 'text'] as const) {
      const home = await populatedHome();
      const config = join(home, 'episodic-home.json');
      rmSync(config, { force: true });
      if (damage === 'fifo') mkfifo(config);
      else writeFileSync(config, 'not a config\n');
      // Every other command stops at the config, naming it.
      const show = run(home, ['runs', 'list']);
      expect(show.receipt).toMatchObject({ ok: false, code: 'CORRUPT_DATA' });
      expect(show.receipt.error).toContain('episodic-home.json');
      // doctor finishes, names it once, and still checks the run files and the session.
      const { status, receipt } = doctor(home);
      expect(status, damage).toBe(1);
      expect(receipt.healthy).toBe(false);
      const found = receipt.problems.filter((problem) => problem.path === 'episodic-home.json');
      expect(found, JSON.stringify(receipt.problems)).toHaveLength(1);
      expect(found[0]?.message).toContain(damage === 'fifo' ? 'FIFO' : 'episodic-home.json');
      expect(receipt.checked.run_files).toBe(1);
      expect(receipt.problems).toHaveLength(1);
    }
  });
});
