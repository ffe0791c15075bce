// `episodic runs gc`: run retention on real fs and SQLite homes, in-process (`runCli`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord, RunStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_OK, EXIT_USAGE } from '../exit-codes.js';
import { errorReceiptSchema, runsGcReceiptSchema } from '../receipts/index.js';
import { runCli } from '../run-cli.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 1);
const SESSION_1 = '11111111-1111-4111-8111-111111111111';
const SESSION_2 = '22222222-2222-4222-8222-222222222222';
const iso = (ms: number) => new Date(ms).toISOString();
const id = (n: number) => `0f0e0d0c-0b0a-4908-8706-${n.toString(16).padStart(12, '0')}`;

/** The runs: old (no scope), old in scope ci, started long ago but still written to, old of session 2. */
const OLD = id(1);
const OLD_CI = id(2);
const BUSY = id(3);
const OLD_SESSION_2 = id(4);

type StoreKind = 'fs' | 'sqlite';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function openRuns(home: string, kind: StoreKind): { runs: RunStore; close: () => Promise<void> } {
  if (kind === 'fs') {
    const store = createFsStore({ root: home, durability: 'none' });
    return { runs: store.runs, close: () => store.close() };
  }
  const store = createSqliteStore({ filename: join(home, 'episodic.db') });
  return { runs: store.runs, close: () => store.close() };
}

function runRecords(
  runId: string,
  options: { startMs: number; lastMs: number; session: string; scope?: string; ended: boolean },
): RunRecord[] {
  const records: RunRecord[] = [
    {
      type: 'header',
      schema_version: 1,
      run_id: runId,
      started_at: iso(options.startMs),
      session_id: options.session,
      ...(options.scope === undefined ? {} : { scope: options.scope }),
    } as RunRecord,
    {
      type: 'agent.event',
      run_id: runId,
      ts: iso(options.lastMs),
      seq: 0,
      event: { type: 'text', content: 'hello' },
    },
  ];
  if (options.ended) {
    records.push({ type: 'run.end', run_id: runId, ts: iso(options.lastMs), outcome: 'completed' });
  }
  return records;
}

async function seededHome(kind: StoreKind): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'episodic-runs-gc-'));
  directories.push(home);
  const { runs, close } = openRuns(home, kind);
  try {
    const old = { startMs: NOW - 60 * DAY, lastMs: NOW - 50 * DAY, ended: true };
    await runs.append(OLD, runRecords(OLD, { ...old, session: SESSION_1 }));
    await runs.append(OLD_CI, runRecords(OLD_CI, { ...old, session: SESSION_1, scope: 'ci' }));
    await runs.append(
      BUSY,
      runRecords(BUSY, {
        startMs: NOW - 60 * DAY,
        lastMs: NOW - DAY,
        session: SESSION_1,
        ended: false,
      }),
    );
    await runs.append(OLD_SESSION_2, runRecords(OLD_SESSION_2, { ...old, session: SESSION_2 }));
  } finally {
    await close();
  }
  return home;
}

async function storedRuns(home: string, kind: StoreKind): Promise<string[]> {
  const { runs, close } = openRuns(home, kind);
  try {
    return (await runs.list()).runs.map((run) => run.runId).sort();
  } finally {
    await close();
  }
}

async function run(argv: readonly string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { TZ: 'UTC' },
  });
  return { code, stdout, stderr };
}

async function runJson(argv: readonly string[]) {
  const result = await run([...argv, '--json']);
  return { ...result, receipt: JSON.parse(result.stdout) as unknown };
}

const ALL = [OLD, OLD_CI, BUSY, OLD_SESSION_2].sort();

describe.each(['fs', 'sqlite'] as const)('runs gc (%s home)', (kind) => {
  const gc = (home: string, ...args: string[]) => [
    '--home',
    home,
    '--store',
    kind,
    'runs',
    'gc',
    '--now-ts-ms',
    String(NOW),
    ...args,
  ];

  it('a dry run counts what the real run deletes and changes nothing', async () => {
    const home = await seededHome(kind);
    const dry = await runJson(gc(home, '--older-than', '30', '--scope', 'default', '--dry-run'));
    expect(dry.code, dry.stdout).toBe(EXIT_OK);
    const receipt = runsGcReceiptSchema.parse(dry.receipt);
    expect(receipt).toMatchObject({
      store: kind,
      scope: 'default',
      all_scopes: false,
      dry_run: true,
      deleted_total: 2,
      older_than_days: 30,
      cutoff_ts_ms: NOW - 30 * DAY,
    });
    expect(receipt.by_scope).toEqual([{ scope: 'default', deleted_total: 2 }]);
    // Counts only: no run id in the receipt.
    expect(dry.stdout).not.toContain(OLD);
    expect(await storedRuns(home, kind)).toEqual(ALL);

    const real = await runJson(gc(home, '--older-than', '30', '--scope', 'Default'));
    expect(runsGcReceiptSchema.parse(real.receipt)).toMatchObject({
      dry_run: false,
      deleted_total: 2,
    });
    // The run still written to (no run.end, last record a day old) and the ci run are kept.
    expect(await storedRuns(home, kind)).toEqual([OLD_CI, BUSY].sort());
  });

  it('deletes only the scope and session asked for; every scope needs --yes', async () => {
    const home = await seededHome(kind);
    const session = await runJson(
      gc(home, '--older-than', '30', '--scope', 'default', '--session-id', SESSION_2),
    );
    expect(runsGcReceiptSchema.parse(session.receipt)).toMatchObject({
      session_id: SESSION_2,
      deleted_total: 1,
    });
    expect(await storedRuns(home, kind)).toEqual([OLD, OLD_CI, BUSY].sort());

    const ci = await runJson(gc(home, '--older-than', '30', '--scope', 'ci'));
    expect(runsGcReceiptSchema.parse(ci.receipt).deleted_total).toBe(1);
    expect(await storedRuns(home, kind)).toEqual([OLD, BUSY].sort());

    const unconfirmed = await runJson(gc(home, '--older-than', '0', '--all-scopes'));
    expect(unconfirmed.code).toBe(EXIT_USAGE);
    expect(errorReceiptSchema.parse(unconfirmed.receipt).code).toBe('CONFIRMATION_REQUIRED');
    expect(await storedRuns(home, kind)).toEqual([OLD, BUSY].sort());

    const every = await run(gc(home, '--older-than', '0', '--all-scopes', '--dry-run'));
    expect(every.code).toBe(EXIT_OK);
    expect(every.stdout).toContain('2 runs');
    expect(every.stdout).toContain('--yes');
    expect(every.stdout).toMatch(/default\s+2/);
    expect(await storedRuns(home, kind)).toEqual([OLD, BUSY].sort());

    const confirmed = await runJson(gc(home, '--older-than', '0', '--all-scopes', '--yes'));
    expect(runsGcReceiptSchema.parse(confirmed.receipt)).toMatchObject({
      scope: null,
      all_scopes: true,
      deleted_total: 2,
      by_scope: [{ scope: 'default', deleted_total: 2 }],
    });
    expect(await storedRuns(home, kind)).toEqual([]);
  });

  it('counts every scope, one by one, with --all-scopes', async () => {
    const home = await seededHome(kind);
    const dry = await runJson(gc(home, '--older-than', '30', '--all-scopes', '--dry-run'));
    expect(runsGcReceiptSchema.parse(dry.receipt)).toMatchObject({
      deleted_total: 3,
      by_scope: [
        { scope: 'ci', deleted_total: 1 },
        { scope: 'default', deleted_total: 2 },
      ],
    });
    expect(await storedRuns(home, kind)).toEqual(ALL);
  });

  it.each([
    [['--scope', 'default'], 'USAGE_ERROR', '--older-than DAYS'],
    [['--older-than', '2000000', '--scope', 'default'], 'VALIDATION_ERROR', '0 to 1000000'],
    [['--older-than', 'ten', '--scope', 'default'], 'VALIDATION_ERROR', '"ten"'],
    [['--older-than', '30'], 'SCOPE_REQUIRED', '--scope SCOPE'],
    [['--older-than', '30', '--scope', 'ci', '--all-scopes'], 'USAGE_ERROR', 'not both'],
    [['--older-than', '30', '--scope', 'global'], 'VALIDATION_ERROR', 'reserved'],
    [['--older-than', '30', '--scope', 'ci', '--session-id', 'nope'], 'VALIDATION_ERROR', 'UUID'],
  ])('refuses %j (%s) and changes nothing', async (args, code, message) => {
    const home = await seededHome(kind);
    const result = await runJson(gc(home, ...args));
    expect(result.code).toBe(EXIT_USAGE);
    const receipt = errorReceiptSchema.parse(result.receipt);
    expect(receipt.code).toBe(code);
    expect(receipt.error).toContain(message);
    expect(await storedRuns(home, kind)).toEqual(ALL);
  });
});
