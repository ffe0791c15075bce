// Export and import keep the proofs (docs/design/verify.md 2.6): a chained file home exports
// `episodic.export.v3` (run lines with their chain members, erasure entries as their own lines),
// and a chained home that imports it stores the lines byte for byte, so `episodic verify` gives the
// same heads and findings there; an unchained home imports the records and says it dropped proofs.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyReceiptSchema } from '@episodic/core/schemas';
import { completedRun, runIdFor } from '@episodic/core/testing';
import { createFsStore } from '@episodic/store-fs';
import { describe, expect, it } from 'vitest';
import { exportReceiptSchema, importReceiptSchema } from '../src/receipts/index.js';
import { episodicBinary, episodicJson, temporaryDirectory, temporaryHome } from './helpers.js';

const RUN_A = runIdFor(0xa1);
const RUN_B = runIdFor(0xb2);
const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');

/** A home whose config says its store and whether it chains. */
function newHome(store: 'fs' | 'sqlite', chain: boolean): string {
  const home = temporaryHome();
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'episodic-home.json'),
    `${JSON.stringify({ format: 'episodic.home.v1', store, ...(chain ? { chain: true } : {}) })}\n`,
  );
  return home;
}

/** A file home with two runs (one holding a secret) and two ledger events, chained or not. */
async function seedHome(chain: boolean): Promise<string> {
  const home = newHome('fs', chain);
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
  for (const summary of ['first', 'second']) {
    const appended = await episodicJson([
      '--home',
      home,
      'episodes',
      'append',
      '--scope',
      'proj',
      '--session-id',
      RUN_A,
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

async function exportAll(home: string): Promise<string> {
  return (await exportAllWithReceipt(home)).file;
}

async function exportAllWithReceipt(home: string) {
  const file = join(temporaryDirectory(), 'all.jsonl');
  const result = await episodicJson([
    '--home',
    home,
    'export',
    '--all',
    '--scope',
    'proj',
    '--output',
    file,
  ]);
  expect(result.status, result.stderr).toBe(0);
  return { file, receipt: exportReceiptSchema.parse(result.receipt) };
}

async function importInto(home: string, file: string) {
  const result = await episodicJson(['--home', home, 'import', file]);
  expect(result.status, result.stderr).toBe(0);
  return { ...result, receipt: importReceiptSchema.parse(result.receipt) };
}

/** Verifies a home's runs with the built binary. */
function verify(home: string) {
  const result = episodicBinary(['--home', home, 'verify', '--json']);
  return { status: result.status, receipt: verifyReceiptSchema.parse(JSON.parse(result.stdout)) };
}

/** Every stored run line of a file home, by run id, without redaction padding. */
function storedLines(home: string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  const files = readdirSync(join(home, 'sessions'), { recursive: true }) as string[];
  for (const name of files) {
    const match = /([0-9a-f-]{36})\.jsonl$/.exec(name);
    if (match === null) continue;
    found[match[1] as string] = readFileSync(join(home, 'sessions', name), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.trimEnd());
  }
  return found;
}

function exportLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('export and import keep the proofs (episodic.export.v3)', () => {
  it('chained file home to chained file home: the same lines, heads and verify report', async () => {
    const source = await seedHome(true);
    const { file, receipt: exported } = await exportAllWithReceipt(source);
    // The ledger's proofs do not travel yet, and the export says so.
    expect(exported.warnings).toEqual([
      expect.stringContaining('ledger events were exported without their proofs'),
    ]);
    expect(exported.counts).toMatchObject({ runs: 2, events: 2, erasures: 0 });
    const lines = exportLines(file);
    expect(lines[0]).toMatchObject({ type: 'export.header', format: 'episodic.export.v3' });
    const records = lines.filter((line) => line.type === 'run.record');
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((line) => typeof (line.chain as { c?: unknown })?.c === 'string')).toBe(
      true,
    );
    // The record itself is what `runs show` gives: no chain member inside it.
    expect(records.some((line) => 'chain' in (line.record as object))).toBe(false);

    const target = newHome('fs', true);
    // The dry run makes the same trial (chained scratch stores) and writes nothing.
    const dry = await episodicJson(['--home', target, 'import', file, '--dry-run']);
    expect(dry.status, dry.stderr).toBe(0);
    expect(importReceiptSchema.parse(dry.receipt).proofs).toMatchObject({ runs: 2, dropped: 0 });
    const imported = await importInto(target, file);
    expect(imported.receipt.proofs).toEqual({
      runs: 2,
      dropped: 0,
      erasures: 0,
      altered_lines: [],
    });
    expect(imported.receipt.warnings).toEqual([]);
    // Byte for byte: every commitment, stream key and stored head (run.end's `h`) is the source's.
    expect(storedLines(target)).toEqual(storedLines(source));
    const before = verify(source);
    const after = verify(target);
    expect(after.status).toBe(0);
    if (!before.receipt.ok || !after.receipt.ok) throw new Error('expected both to verify');
    expect(after.receipt.verified).toEqual(before.receipt.verified);
    expect(after.receipt.counts).toEqual(before.receipt.counts);
    // Exported again, the same bytes (the round-trip rule, proofs included).
    const again = await exportAll(target);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(file, 'utf8'));
    // Appending to an imported run continues its chain.
    const show = await episodicJson(['--home', target, 'runs', 'show', RUN_B]);
    expect(show.status, show.stderr).toBe(0);
  });

  it('a redaction before export still verifies as redacted after import (its erasure entry travels)', async () => {
    const source = await seedHome(true);
    const redact = episodicBinary(['--home', source, 'runs', 'redact', RUN_A]);
    expect(redact.status, redact.stderr).toBe(0);
    const file = await exportAll(source);
    expect(readFileSync(file, 'utf8')).not.toContain(SECRET);
    const erasures = exportLines(file).filter((line) => line.type === 'erasure');
    expect(erasures).toHaveLength(1);
    // The log names the command, and the flags given by name only.
    expect(erasures[0]).toMatchObject({
      entry: { op: 'redact', by: { command: 'episodic runs redact', flags: [] } },
    });
    expect(exportLines(file).at(-1)).toMatchObject({ counts: { erasures: 1 } });

    const target = newHome('fs', true);
    const imported = await importInto(target, file);
    expect(imported.receipt.proofs).toMatchObject({ runs: 2, erasures: 1 });
    const after = verify(target);
    expect(after.status).toBe(0);
    if (!after.receipt.ok) throw new Error('expected ok');
    expect(after.receipt.counts).toMatchObject({ redacted: 1, altered: 0 });
    const id = (erasures[0] as { entry: { id: string } }).entry.id;
    expect(after.receipt.findings).toMatchObject([
      { finding: 'redacted', stream: { kind: 'run', id: RUN_A }, redaction: { erasure: id } },
    ]);
    expect(storedLines(target)[RUN_A]).toEqual(storedLines(source)[RUN_A]);
    // Imported twice: the erasure entry is not added again, the runs are already there.
    const twice = await importInto(target, file);
    expect(twice.receipt.written).toMatchObject({ runs: 0, records: 0 });
    expect(
      readFileSync(join(target, 'sessions', 'erasures.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(1);
  });

  it('runs redact records the command and its flag names in the erasure log, never their values', async () => {
    const home = await seedHome(true);
    const redact = episodicBinary([
      '--home',
      home,
      'runs',
      'redact',
      RUN_A,
      '--mode',
      'secrets',
      '--kind',
      'secret',
      '--kind',
      'pii',
    ]);
    expect(redact.status, redact.stderr).toBe(0);
    const log = readFileSync(join(home, 'sessions', 'erasures.jsonl'), 'utf8');
    const [entry] = log
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { by: unknown });
    expect(entry?.by).toEqual({ command: 'episodic runs redact', flags: ['--kind', '--mode'] });
    expect(log).not.toContain('pii');
  });

  it('a changed byte in an exported record imports with a warning naming the line; verify names it', async () => {
    const source = await seedHome(true);
    const file = await exportAll(source);
    const text = readFileSync(file, 'utf8').split('\n');
    const index = text.findIndex((line) => line.includes(`the key is ${SECRET}`));
    expect(index).toBeGreaterThan(0);
    text[index] = (text[index] as string).replace('the key is', 'the kez is');
    writeFileSync(file, text.join('\n'));

    const target = newHome('fs', true);
    const result = await episodicJson(['--home', target, 'import', file]);
    expect(result.status, result.stderr).toBe(0);
    const receipt = importReceiptSchema.parse(result.receipt);
    expect(receipt.proofs?.altered_lines).toEqual([index + 1]);
    expect(receipt.warnings?.[0]).toContain(`line ${index + 1} of the export (run ${RUN_A}`);
    const human = await episodicJson(['--home', newHome('fs', true), 'import', file]);
    expect(human.stderr).toContain(`warning: line ${index + 1} of the export`);
    const after = verify(target);
    expect(after.status).toBe(1);
    expect(after.receipt).toMatchObject({ ok: false });
    if (after.receipt.ok) return;
    expect(after.receipt.details.findings).toMatchObject([
      { finding: 'altered', stream: { kind: 'run', id: RUN_A }, n: 4 },
    ]);
  });

  it('into a home that does not chain: the records import, the proofs are dropped with a warning', async () => {
    const source = await seedHome(true);
    const file = await exportAll(source);
    for (const target of [newHome('fs', false), newHome('sqlite', true)]) {
      const result = await episodicJson(['--home', target, 'import', file]);
      expect(result.status, result.stderr).toBe(0);
      const receipt = importReceiptSchema.parse(result.receipt);
      expect(receipt.written).toMatchObject({ runs: 2 });
      expect(receipt.proofs).toMatchObject({ runs: 0, dropped: 2, erasures: 0 });
      expect(receipt.warnings).toHaveLength(1);
      expect(receipt.warnings?.[0]).toContain('this home does not chain its runs');
      expect(result.stderr).toContain('warning: this home does not chain its runs');
      const show = await episodicJson(['--home', target, 'runs', 'show', RUN_A]);
      expect(show.status, show.stderr).toBe(0);
      expect(JSON.stringify(show.receipt)).not.toContain('"chain"');
    }
    // And back: the SQLite home's runs do not chain, so it exports v2; a chained file home that
    // imports it chains the runs anew and verifies clean.
    const sqlite = newHome('sqlite', true);
    await importInto(sqlite, file);
    const back = await exportAll(sqlite);
    expect(exportLines(back)[0]).toMatchObject({ format: 'episodic.export.v2' });
    const files = newHome('fs', true);
    expect((await importInto(files, back)).receipt.written).toMatchObject({ runs: 2 });
    const verified = verify(files);
    expect(verified.status).toBe(0);
    if (!verified.receipt.ok) throw new Error('expected ok');
    expect(verified.receipt.streams.chained).toBe(2);
  });

  it('an unchained home still exports v2, which imports into a chained home (chained there anew)', async () => {
    const source = await seedHome(false);
    const file = await exportAll(source);
    const lines = exportLines(file);
    expect(lines[0]).toMatchObject({ format: 'episodic.export.v2' });
    expect(lines.some((line) => 'chain' in line || line.type === 'erasure')).toBe(false);
    const target = newHome('fs', true);
    const imported = await importInto(target, file);
    expect(imported.receipt.written).toMatchObject({ runs: 2 });
    expect(imported.receipt.proofs).toBeUndefined();
    const after = verify(target);
    expect(after.status).toBe(0);
    // A v2 file that carries proofs anyway is refused, naming the line.
    const forged = readFileSync(file, 'utf8')
      .split('\n')
      .map((line) =>
        line.includes('"type":"run.record"') && line.includes('"type":"header"')
          ? line.replace(
              /}$/,
              ',"chain":{"n":1,"s":"OPGhvlZWdY1tZywyJ-mH4A","c":"IJ2ltH1vCzl3hWV_tP2t9FfhmQPxjOqB6SNzwLCbPMg"}}',
            )
          : line,
      )
      .join('\n');
    const forgedFile = join(temporaryDirectory(), 'forged.jsonl');
    writeFileSync(forgedFile, forged);
    const refused = await episodicJson(['--home', newHome('fs', true), 'import', forgedFile]);
    expect(refused.status).toBe(2);
    expect(String(refused.receipt.error)).toMatch(
      /line \d+: a chain member in a episodic\.export\.v2 file/,
    );
  });
});
