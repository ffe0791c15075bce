// `episodic verify` with the BUILT binary on a real home: run files and the SQLite ledger chained
// through episodic-home.json's "chain", then changed outside Episodic (a byte, a deleted line, a
// ledger row) or by Episodic (`runs redact`).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { verifyReceiptSchema } from '@episodic/core/schemas';
import { completedRun, runIdFor } from '@episodic/core/testing';
import { createFsStore } from '@episodic/store-fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { episodicBinary, episodicBinaryJson, temporaryHome } from './helpers.js';

const RUN_A = runIdFor(0xa1);
const RUN_B = runIdFor(0xb2);
const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');

/** A file home whose config turns chaining on (or not), with two runs and three ledger events. */
async function seedHome(chain: boolean): Promise<string> {
  const home = temporaryHome();
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'episodic-home.json'),
    `${JSON.stringify({ format: 'episodic.home.v1', store: 'fs', ...(chain ? { chain: true } : {}) })}\n`,
  );
  // Runs written as an agent writes them (the store the home's config describes).
  const store = createFsStore({ root: home, durability: 'none', ...(chain ? { chain } : {}) });
  try {
    const a = completedRun(RUN_A, 3);
    a.splice(3, 0, {
      type: 'agent.event',
      run_id: RUN_A,
      ts: '2026-02-03T12:01:00.500Z',
      seq: 99,
      event: { type: 'text', content: `the key is ${SECRET}` },
    } as (typeof a)[number]);
    await store.runs.append(RUN_A, a);
    await store.runs.append(RUN_B, completedRun(RUN_B, 5));
  } finally {
    await store.close();
  }
  // Ledger events through the CLI: the home opens its ledger chained from the same config.
  for (const summary of ['first', 'second', 'third']) {
    const appended = episodicBinary([
      '--home',
      home,
      'episodes',
      'append',
      '--scope',
      'proj',
      '--session-id',
      's1',
      '--agent-id',
      'a',
      '--type',
      'ops.decision',
      '--summary',
      summary,
    ]);
    expect(appended.status, appended.stderr).toBe(0);
  }
  return home;
}

/** The run file of a run (store-fs: sessions/YYYY/MM/DD/<id>.jsonl), relative to the home. */
function runFileOf(home: string, runId: string): string {
  const found = (readdirSync(join(home, 'sessions'), { recursive: true }) as string[]).find(
    (name) => name.endsWith(`${runId}.jsonl`),
  );
  if (found === undefined) throw new Error(`no file for run ${runId}`);
  return `sessions/${found
    .split(sep)
    .join('/')
    .replace(/^sessions\//, '')}`;
}

function verifyJson(home: string, args: string[] = []) {
  const result = episodicBinaryJson(['--home', home, 'verify', ...args]);
  const receipt = verifyReceiptSchema.parse(result.receipt);
  return { ...result, receipt };
}

describe('episodic verify (built binary, chained file home)', () => {
  it('a clean home verifies: exit 0 with counts; the ledger only with a scope', async () => {
    const home = await seedHome(true);
    const all = verifyJson(home, ['--scope', 'proj']);
    expect(all.status, all.stderr).toBe(0);
    expect(all.receipt.ok).toBe(true);
    if (!all.receipt.ok) return;
    expect(all.receipt.findings).toEqual([]);
    expect(all.receipt.parts).toEqual({ runs: 'verified', ledger: 'verified' });
    // Two runs and one ledger session; 9 + 10 run lines and 3 events.
    expect(all.receipt.verified.streams).toBe(3);
    expect(all.receipt.verified.entries).toBe(
      completedRun(RUN_A, 3).length + 1 + completedRun(RUN_B, 5).length + 3,
    );
    const runsOnly = verifyJson(home);
    expect(runsOnly.status).toBe(0);
    if (!runsOnly.receipt.ok) throw new Error('expected ok');
    expect(runsOnly.receipt.parts).toEqual({ runs: 'verified', ledger: 'not-asked' });
    expect(runsOnly.receipt.verified.streams).toBe(2);
    const human = episodicBinary(['--home', home, 'verify', '--scope', 'proj']);
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/^verified 3 streams, \d+ entries: no change outside Episodic\n$/);
    // One run by a prefix; the ledger alone.
    const one = verifyJson(home, ['--run', RUN_B.slice(0, -1)]);
    if (!one.receipt.ok) throw new Error('expected ok');
    expect(one.receipt.verified.streams).toBe(1);
    const ledger = verifyJson(home, ['--ledger', '--scope', 'proj', '--session-id', 's1']);
    if (!ledger.receipt.ok) throw new Error('expected ok');
    expect(ledger.receipt.verified).toMatchObject({ streams: 1, entries: 3 });
  });

  it('one changed byte of a run line is altered (exit 1, file and line named); a deleted line is deleted', async () => {
    const home = await seedHome(true);
    const file = runFileOf(home, RUN_B);
    const path = join(home, file);
    const original = readFileSync(path, 'utf8');
    const lines = original.split('\n');
    lines[4] = (lines[4] as string).replace('"type":"agent.event"', '"type":"agent.evenT"');
    writeFileSync(path, lines.join('\n'));
    const altered = verifyJson(home);
    expect(altered.status).toBe(1);
    expect(altered.receipt).toMatchObject({ ok: false, code: 'CORRUPT_DATA' });
    if (altered.receipt.ok) return;
    expect(altered.receipt.details.findings).toMatchObject([
      {
        finding: 'altered',
        severity: 'error',
        stream: { kind: 'run', id: RUN_B },
        where: { file, line: 5 },
      },
    ]);
    expect(altered.receipt.error).toContain(
      `run ${RUN_B} line 5 of ${file} was changed outside Episodic`,
    );
    const human = episodicBinary(['--home', home, 'verify']);
    expect(human.status).toBe(1);
    expect(human.stdout).toContain(`error  run ${RUN_B}: altered at line 5 of ${file}`);
    expect(human.stdout).toMatch(/NOT verified 2 streams, \d+ entries: 1 altered\n/);

    // The line deleted instead.
    const without = original.split('\n');
    without.splice(4, 1);
    writeFileSync(path, without.join('\n'));
    const deleted = verifyJson(home);
    expect(deleted.status).toBe(1);
    if (deleted.receipt.ok) throw new Error('expected a failure');
    expect(deleted.receipt.details.findings).toMatchObject([
      { finding: 'deleted', severity: 'error', stream: { kind: 'run', id: RUN_B }, n: 5 },
    ]);
  });

  it('runs redact is recorded: redacted (info), exit 0; the erasure log verifies too', async () => {
    const home = await seedHome(true);
    const redact = episodicBinary(['--home', home, 'runs', 'redact', RUN_A]);
    expect(redact.status, redact.stderr).toBe(0);
    expect(readFileSync(join(home, runFileOf(home, RUN_A)), 'utf8')).not.toContain(SECRET);
    const after = verifyJson(home);
    expect(after.status, after.stderr).toBe(0);
    if (!after.receipt.ok) throw new Error('expected ok');
    expect(after.receipt.findings).toMatchObject([
      {
        finding: 'redacted',
        severity: 'info',
        stream: { kind: 'run', id: RUN_A },
        n: 4,
        where: { line: 4 },
      },
    ]);
    expect(after.receipt.counts.redacted).toBe(1);
    // Two runs and the erasure log's own chained line.
    expect(after.receipt.verified.streams).toBe(3);
    // One run: its own erasure entries only.
    const a = verifyJson(home, ['--run', RUN_A]);
    if (!a.receipt.ok) throw new Error('expected ok');
    expect(a.receipt.verified.streams).toBe(1);
    expect(a.receipt.findings).toMatchObject([{ finding: 'redacted' }]);
    const b = verifyJson(home, ['--run', RUN_B]);
    if (!b.receipt.ok) throw new Error('expected ok');
    expect(b.receipt.findings).toEqual([]);
    const human = episodicBinary(['--home', home, 'verify']);
    expect(human.stdout).toMatch(
      /^info {2}run [0-9a-f-]+: redacted by Episodic \(.+\) at line 4 of /,
    );
    expect(human.stdout).toMatch(
      /verified 3 streams, \d+ entries: no change outside Episodic \(1 redacted\)\n$/,
    );
  });

  it('a ledger row changed with the sqlite3 module is altered, naming its row', async () => {
    const home = await seedHome(true);
    const database = new Database(join(home, 'episodic.db'));
    let rowid: number;
    try {
      const row = database
        .prepare("SELECT id FROM episodic_events WHERE summary = 'second'")
        .get() as { id: number };
      rowid = row.id;
      database.prepare('UPDATE episodic_events SET summary = ? WHERE id = ?').run('secont', rowid);
    } finally {
      database.close();
    }
    const result = verifyJson(home, ['--scope', 'proj']);
    expect(result.status).toBe(1);
    if (result.receipt.ok) throw new Error('expected a failure');
    expect(result.receipt.code).toBe('CORRUPT_DATA');
    expect(result.receipt.details.findings).toMatchObject([
      {
        finding: 'altered',
        stream: { kind: 'ledger', scope: 'proj', session_id: 's1' },
        n: 2,
        where: { table: 'episodic_events', rowid },
      },
    ]);
    // The runs alone are still clean.
    expect(verifyJson(home).status).toBe(0);
  });

  it('an unchained home says "no chain" (exit 0); --require-chain exits 1', async () => {
    const home = await seedHome(false);
    const result = verifyJson(home, ['--scope', 'proj']);
    expect(result.status).toBe(0);
    if (!result.receipt.ok) throw new Error('expected ok');
    expect(result.receipt.parts).toEqual({ runs: 'not-chained', ledger: 'not-chained' });
    expect(result.receipt.notes?.join('\n')).toMatch(/runs: no chain/);
    const human = episodicBinary(['--home', home, 'verify', '--scope', 'proj']);
    expect(human.status).toBe(0);
    expect(human.stdout).toBe('no chain: nothing in this home is chained (nothing to verify)\n');
    expect(human.stderr).toMatch(/note: ledger: no chain/);
    expect(episodicBinary(['--home', home, 'verify']).stdout).toBe(
      'no chain: nothing verified (runs: not chained; ledger: not asked)\n',
    );
    const required = verifyJson(home, ['--require-chain']);
    expect(required.status).toBe(1);
    expect(required.receipt).toMatchObject({ ok: false, code: 'UNSUPPORTED' });
  });

  it('bad input exits 2 and reads nothing', async () => {
    const home = temporaryHome();
    for (const [args, code] of [
      [['--ledger'], 'SCOPE_REQUIRED'],
      [['--session-id', 's1'], 'SCOPE_REQUIRED'],
      [['--runs', '--scope', 'proj'], 'USAGE_ERROR'],
      [['--ledger', '--scope', 'proj', '--run', RUN_A], 'USAGE_ERROR'],
      [['--run', 'xyz'], 'VALIDATION_ERROR'],
      [['--bogus'], 'USAGE_ERROR'],
    ] as const) {
      const result = episodicBinaryJson(['--home', home, 'verify', ...args]);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.receipt.code, args.join(' ')).toBe(code);
    }
  });
});
