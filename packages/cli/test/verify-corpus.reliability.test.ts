// The verify corpus (docs/design/verify.md 8.3, issue #34 step 7): a real chained file home (run
// files through store-fs, ledger events through the CLI, both chained by episodic-home.json's
// "chain"), then every kind of change someone else could make: a single changed byte of a chained
// line or row (a seeded sample of 500 positions under `pnpm test`, every byte under
// `pnpm test:reliability`), every deleted line or row, every swapped adjacent pair. Each must be
// found by `verifyEpisodicHome` (what `episodic verify` runs) at the right file and line or row,
// with the right finding. What the chain cannot see is not skipped silently: each such case is
// classified under a named exception below, counted, and the test asserts which exceptions occur.
// Then "redaction + gc + verify is clean": the built binary redacts and collects in runs and the
// ledger, and `episodic verify --json` reports 0 errors and names each redaction and collection.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import type { ChainFinding, ChainReport } from '@episodic/core';
import { verifyReceiptSchema } from '@episodic/core/schemas';
import { agentEvent, completedRun, runIdFor } from '@episodic/core/testing';
import { openEpisodicStores, verifyEpisodicHome } from '@episodic/home';
import { createFsStore } from '@episodic/store-fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendArgs,
  episodic,
  episodicBinary,
  episodicBinaryJson,
  temporaryHome,
} from './helpers.js';

const FULL = process.env.RELIABILITY_FULL === '1';
/** Single-byte changes sampled under `pnpm test` (a fixed seed: the same positions every run). */
const SAMPLE = 500;
const SEED = 0x34_0007;

const RUN_SECRET = runIdFor(0xc1);
const RUN_LONG = runIdFor(0xc2);
const RUN_SHORT = runIdFor(0xc3);
const SHORT_SESSION = '5e55a0c1-0000-4000-8000-0000000000c3';
const SCOPE = 'corpus';
const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');

/** mulberry32: a small seeded generator, so the sample is the same on every machine. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A chained file home as an agent and its operator leave it: three runs (one with a secret, one
 * of 80 lines, so a segment head is stored at line 64, one short), and two ledger sessions written
 * through the CLI (one of 70 events, past a segment boundary, one of 4).
 */
async function buildHome(home: string): Promise<string> {
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'episodic-home.json'),
    `${JSON.stringify({ format: 'episodic.home.v1', store: 'fs', chain: true })}\n`,
  );
  const store = createFsStore({ root: home, durability: 'none', chain: true });
  try {
    const secret = completedRun(RUN_SECRET, 3);
    secret.splice(3, 0, {
      ...agentEvent(RUN_SECRET, 99),
      event: { type: 'text', content: `the deploy key is ${SECRET}, keep it safe` },
    } as (typeof secret)[number]);
    await store.runs.append(RUN_SECRET, secret);
    // Appended one record at a time, as a recorder does (the long run crosses line 64).
    for (const record of completedRun(RUN_LONG, 75)) await store.runs.append(RUN_LONG, [record]);
    await store.runs.append(RUN_SHORT, completedRun(RUN_SHORT, 1, SHORT_SESSION));
  } finally {
    await store.close();
  }
  const sessions: Array<[string, number]> = [
    ['s-long', 70],
    ['s-short', 4],
  ];
  for (const [session, count] of sessions) {
    for (let index = 0; index < count; index++) {
      const type = index % 3 === 0 ? 'ops.decision' : 'tool.result';
      const result = await episodic(
        appendArgs(
          home,
          {
            scope: SCOPE,
            'session-id': session,
            type,
            summary: `${session} step ${index}: read the invoice and checked the total`,
            'ts-ms': String(Date.parse('2026-01-05T10:00:00.000Z') + index * 60_000),
          },
          [
            '--payload-json',
            JSON.stringify({ step: index, note: 'ünïcödé ✓ text' }),
            ...(index % 5 === 1
              ? ['--refs-json', JSON.stringify({ file: `src/f${index}.ts` })]
              : []),
            ...(index % 5 === 2 ? ['--metadata-json', JSON.stringify({ project: 'corpus' })] : []),
          ],
        ),
      );
      expect(result.status, result.stderr).toBe(0);
    }
  }
  return home;
}

/** The run files of a home (relative paths, as findings name them), the erasure log excepted. */
function runFiles(home: string): string[] {
  return (readdirSync(join(home, 'sessions'), { recursive: true }) as string[])
    .map((name) => name.split(sep).join('/'))
    .filter((name) => name.endsWith('.jsonl') && name !== 'erasures.jsonl')
    .map((name) => `sessions/${name}`)
    .sort();
}

const errorsOf = (report: ChainReport) =>
  report.findings.filter((finding) => finding.severity === 'error');

const describeFindings = (findings: readonly ChainFinding[]) =>
  findings
    .map(
      (finding) =>
        `${finding.severity} ${finding.finding} n=${finding.n ?? `${finding.from}-${finding.to}`} ${JSON.stringify(finding.where ?? {})}`,
    )
    .join('; ') || 'no finding';

/** One mutation that did not give the expected finding: its exception, or a failure. */
interface Outcome {
  what: string;
  exception?: string;
  findings: string;
}

describe('verify corpus: every change outside Episodic is found and named', () => {
  let corpus: string | undefined;
  let home: string;
  let stores: Awaited<ReturnType<typeof openEpisodicStores>>;
  const verify = async () =>
    (await verifyEpisodicHome(stores, { ledger: { scope: SCOPE } })).report;
  // Each mutation verifies only the part it changed (the other part is checked clean at the end).
  const verifyRuns = async () => (await verifyEpisodicHome(stores)).report;
  const verifyLedger = async () =>
    (await verifyEpisodicHome(stores, { runs: false, ledger: { scope: SCOPE } })).report;

  beforeAll(async () => {
    // Not a helpers.ts temporary home: those are removed after each test, and this one is shared.
    corpus = mkdtempSync(join(tmpdir(), 'episodic-corpus-'));
    home = await buildHome(join(corpus, 'home'));
    stores = await openEpisodicStores({ home, readOnly: true });
    const clean = await verify();
    expect(clean.ok, describeFindings(clean.findings)).toBe(true);
    expect(clean.findings).toEqual([]);
    // 3 runs and 2 ledger sessions, all chained.
    expect(clean.verified.streams).toBe(5);
  }, 120_000);
  afterAll(async () => {
    await stores?.close();
    if (corpus !== undefined) rmSync(corpus, { recursive: true, force: true });
  });

  it(
    `run files: ${FULL ? 'every' : `${SAMPLE} sampled`} single-byte change, every deleted line, every swapped pair`,
    async () => {
      const files = runFiles(home).map((file) => {
        const bytes = readFileSync(join(home, file));
        const lines: Array<{ start: number; end: number }> = [];
        for (let start = 0; start < bytes.length; ) {
          const end = bytes.indexOf(10, start);
          lines.push({ start, end });
          start = end + 1;
        }
        return { file, bytes, lines };
      });
      expect(files).toHaveLength(3);
      const failures: Outcome[] = [];
      const exceptions: Outcome[] = [];
      const tally = { bytes: 0, deleted: 0, swapped: 0 };
      const write = (file: string, bytes: Uint8Array) => writeFileSync(join(home, file), bytes);

      // Every byte position of every chained line, or a seeded sample of them.
      const positions: Array<{ file: number; line: number; offset: number }> = [];
      files.forEach((entry, file) => {
        entry.lines.forEach((line, index) => {
          for (let offset = line.start; offset < line.end; offset++)
            positions.push({ file, line: index, offset });
        });
      });
      const random = seeded(SEED);
      const chosen = FULL
        ? positions
        : Array.from(
            { length: Math.min(SAMPLE, positions.length) },
            () => positions[Math.floor(random() * positions.length)] as (typeof positions)[number],
          );
      for (const { file, line, offset } of chosen) {
        const entry = files[file] as (typeof files)[number];
        const changed = Buffer.from(entry.bytes);
        changed[offset] = (changed[offset] as number) ^ 0x01;
        write(entry.file, changed);
        const report = await verifyRuns();
        tally.bytes++;
        const what = `${entry.file} line ${line + 1} byte ${offset - (entry.lines[line]?.start ?? 0)}`;
        const named = errorsOf(report).some(
          (finding) =>
            finding.finding === 'altered' &&
            finding.where?.file === entry.file &&
            finding.where?.line === line + 1,
        );
        // No exception: a changed byte is altered wherever it is, the last line's closing "}}"
        // included (the full run checks every byte).
        if (!named) failures.push({ what, findings: describeFindings(report.findings) });
        write(entry.file, entry.bytes);
      }

      // Every deleted line, every swapped adjacent pair.
      for (const entry of files) {
        const texts = entry.lines.map((line) => entry.bytes.subarray(line.start, line.end + 1));
        for (let index = 0; index < texts.length; index++) {
          const without = texts.filter((_, other) => other !== index);
          write(entry.file, Buffer.concat(without));
          const report = await verifyRuns();
          tally.deleted++;
          const found = errorsOf(report).some(
            (finding) =>
              finding.finding === 'deleted' &&
              finding.stream.kind === 'run' &&
              ((finding.n ?? finding.from) as number) <= index + 1 &&
              (finding.to ?? finding.n) === index + 1,
          );
          if (!found) {
            const exception =
              index === texts.length - 1 && errorsOf(report).length === 0
                ? 'last line deleted: a cut tail leaves nothing to compare against without an anchor (docs/verify.md, "What the chain does not prove")'
                : undefined;
            (exception === undefined ? failures : exceptions).push({
              what: `${entry.file}: line ${index + 1} deleted`,
              ...(exception === undefined ? {} : { exception }),
              findings: describeFindings(report.findings),
            });
          }
        }
        for (let index = 0; index + 1 < texts.length; index++) {
          const swapped = [...texts];
          [swapped[index], swapped[index + 1]] = [
            texts[index + 1] as (typeof texts)[number],
            texts[index] as (typeof texts)[number],
          ];
          write(entry.file, Buffer.concat(swapped));
          const report = await verifyRuns();
          tally.swapped++;
          const lines = [index + 1, index + 2];
          const found = errorsOf(report).some(
            (finding) =>
              finding.finding === 'reordered' &&
              finding.where?.file === entry.file &&
              lines.includes(finding.where?.line ?? 0) &&
              lines.includes(finding.other?.where?.line ?? 0),
          );
          if (!found)
            failures.push({
              what: `${entry.file}: lines ${index + 1} and ${index + 2} swapped`,
              findings: describeFindings(report.findings),
            });
        }
        write(entry.file, entry.bytes);
      }

      const final = await verify();
      expect(final.ok, 'the home is restored after the corpus').toBe(true);
      expect(failures.slice(0, 20)).toEqual([]);
      const byException = new Map<string, number>();
      for (const outcome of exceptions)
        byException.set(
          outcome.exception as string,
          (byException.get(outcome.exception as string) ?? 0) + 1,
        );
      console.log(
        `verify corpus (run files): ${tally.bytes} byte changes, ${tally.deleted} deleted lines, ${tally.swapped} swapped pairs; ${failures.length} missed; exceptions: ${JSON.stringify(Object.fromEntries(byException))}`,
      );
      // Only the cut tail may be missed, and it always is (one per run).
      for (const name of byException.keys()) expect(name).toMatch(/^last line deleted/);
      expect(
        exceptions.filter((outcome) => outcome.exception?.startsWith('last line deleted')),
      ).toHaveLength(files.length);
    },
    FULL ? 3_600_000 : 600_000,
  );
  it(
    `ledger rows: ${FULL ? 'every' : `${SAMPLE} sampled`} single-byte change of a stored field, every deleted row, every swapped pair`,
    async () => {
      const database = new Database(join(home, 'episodic.db'));
      try {
        type Row = Record<string, unknown> & { id: number; position: number; session_id: string };
        const rows = database
          .prepare('SELECT * FROM episodic_events WHERE scope = ? ORDER BY session_id, position')
          .all(SCOPE) as Row[];
        expect(rows).toHaveLength(74);
        const columns = Object.keys(rows[0] as Row);
        const restore = database.prepare(
          `INSERT OR REPLACE INTO episodic_events (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        );
        const put = (row: Row) => restore.run(...columns.map((column) => row[column]));
        // The stored fields: every column of the canonical bytes, and the chain columns.
        const TEXT = [
          'event_id',
          'agent_id',
          'type',
          'summary',
          'payload_json',
          'refs_json',
          'metadata_json',
          'schema_version',
          'created_at',
          'scope',
          'session_id',
        ];
        const BLOB = ['chain_salt', 'chain_c'];
        const positions: Array<{ row: number; column: string; offset: number }> = [];
        rows.forEach((row, index) => {
          for (const column of TEXT) {
            const value = row[column];
            if (typeof value === 'string')
              for (let offset = 0; offset < value.length; offset++)
                positions.push({ row: index, column, offset });
          }
          for (const column of BLOB) {
            const value = row[column];
            if (Buffer.isBuffer(value))
              for (let offset = 0; offset < value.length; offset++)
                positions.push({ row: index, column, offset });
          }
          positions.push({ row: index, column: 'ts_ms', offset: 0 });
        });
        const random = seeded(SEED + 1);
        const chosen = FULL
          ? positions
          : Array.from(
              { length: Math.min(SAMPLE, positions.length) },
              () =>
                positions[Math.floor(random() * positions.length)] as (typeof positions)[number],
            );
        const failures: Outcome[] = [];
        const exceptions: Outcome[] = [];
        const tally = { bytes: 0, deleted: 0, swapped: 0 };
        const namesRow = (finding: ChainFinding, row: Row) =>
          finding.where?.table === 'episodic_events' && finding.where.rowid === row.id;
        for (const { row: index, column, offset } of chosen) {
          const row = rows[index] as Row;
          const value = row[column];
          let changed: unknown;
          if (column === 'ts_ms') changed = (value as number) + 1;
          else if (Buffer.isBuffer(value)) {
            const bytes = Buffer.from(value);
            bytes[offset] = (bytes[offset] as number) ^ 0x01;
            changed = bytes;
          } else {
            const text = value as string;
            changed = `${text.slice(0, offset)}${String.fromCharCode(text.charCodeAt(offset) ^ 0x01)}${text.slice(offset + 1)}`;
          }
          database
            .prepare(`UPDATE episodic_events SET ${column} = ? WHERE id = ?`)
            .run(changed, row.id);
          const report = await verifyLedger();
          tally.bytes++;
          const what = `row ${row.id} (${row.session_id} n ${row.position}) ${column}[${offset}]`;
          const errors = errorsOf(report);
          if (!errors.some((finding) => finding.finding === 'altered' && namesRow(finding, row))) {
            // scope and session_id say which stream the row is in: changed, the row leaves its
            // stream (found there as deleted, the newest row too: its session's head row still
            // counts it) and joins another one.
            const stream = column === 'scope' || column === 'session_id';
            const moved =
              stream &&
              errors.some(
                (finding) =>
                  finding.finding === 'deleted' &&
                  finding.stream.session_id === row.session_id &&
                  ((finding.n ?? finding.from) as number) <= row.position &&
                  (finding.to ?? finding.n) === row.position,
              );
            const exception = moved
              ? 'scope or session_id changed: the row leaves its stream, found there as deleted'
              : undefined;
            (exception === undefined ? failures : exceptions).push({
              what,
              ...(exception === undefined ? {} : { exception }),
              findings: describeFindings(report.findings),
            });
          }
          put(row);
        }
        for (const row of rows) {
          database.prepare('DELETE FROM episodic_events WHERE id = ?').run(row.id);
          const report = await verifyLedger();
          tally.deleted++;
          const found = errorsOf(report).some(
            (finding) =>
              finding.finding === 'deleted' &&
              finding.stream.session_id === row.session_id &&
              ((finding.n ?? finding.from) as number) <= row.position &&
              (finding.to ?? finding.n) === row.position,
          );
          // The newest event of a session too: its head row (episodic_session_heads) still holds
          // the writer's n, so a cut tail is deleted like any other row, without an anchor.
          if (!found)
            failures.push({
              what: `row ${row.id} (${row.session_id} n ${row.position}) deleted`,
              findings: describeFindings(report.findings),
            });
          put(row);
        }
        // Two adjacent events of a session exchange their places (their positions).
        for (let index = 0; index + 1 < rows.length; index++) {
          const first = rows[index] as Row;
          const second = rows[index + 1] as Row;
          if (first.session_id !== second.session_id) continue;
          const move = database.prepare('UPDATE episodic_events SET position = ? WHERE id = ?');
          move.run(second.position, first.id);
          move.run(first.position, second.id);
          const report = await verifyLedger();
          tally.swapped++;
          const errors = errorsOf(report);
          const named =
            errors.some(
              (finding) =>
                finding.finding === 'reordered' &&
                (namesRow(finding, first) || namesRow(finding, second)),
            ) ||
            (errors.some((finding) => namesRow(finding, first)) &&
              errors.some((finding) => namesRow(finding, second)));
          if (!named)
            failures.push({
              what: `rows ${first.id} and ${second.id} (${first.session_id} n ${first.position}, ${second.position}) swapped`,
              findings: describeFindings(report.findings),
            });
          put(first);
          put(second);
        }
        const final = await verify();
        expect(final.ok, describeFindings(final.findings)).toBe(true);
        expect(failures.slice(0, 20)).toEqual([]);
        const byException = new Map<string, number>();
        for (const outcome of exceptions)
          byException.set(
            outcome.exception as string,
            (byException.get(outcome.exception as string) ?? 0) + 1,
          );
        console.log(
          `verify corpus (ledger): ${tally.bytes} field byte changes, ${tally.deleted} deleted rows, ${tally.swapped} swapped pairs; ${failures.length} missed; exceptions: ${JSON.stringify(Object.fromEntries(byException))}`,
        );
        // Only a row moved out of its stream (found there as deleted, not as altered) is listed.
        for (const name of byException.keys()) expect(name).toMatch(/^scope or session_id changed/);
      } finally {
        database.close();
      }
    },
    FULL ? 3_600_000 : 600_000,
  );
});

describe('verify corpus: redaction + gc + verify is clean', () => {
  it(
    'the built binary redacts and collects runs and ledger events; verify reports 0 errors and names each',
    async () => {
      const home = await buildHome(temporaryHome());
      const run = (args: string[]) => {
        const result = episodicBinary(['--home', home, ...args]);
        expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      };
      run(['runs', 'redact', RUN_SECRET, '--mode', 'secrets']);
      run(['episodes', 'redact', '--scope', SCOPE, '--session-id', 's-short']);
      run(['episodes', 'gc', '--scope', SCOPE, '--policy', 'tool.result=0']);
      run(['runs', 'gc', '--older-than', '0', '--scope', 'default', '--session-id', SHORT_SESSION]);
      const secretFile = runFiles(home).find((file) => file.endsWith(`${RUN_SECRET}.jsonl`));
      expect(readFileSync(join(home, secretFile as string), 'utf8')).not.toContain(SECRET);
      const result = episodicBinaryJson(['--home', home, 'verify', '--scope', SCOPE]);
      expect(result.status, result.stderr).toBe(0);
      const receipt = verifyReceiptSchema.parse(result.receipt);
      if (!receipt.ok) throw new Error(`verify failed: ${receipt.error}`);
      const errors = receipt.findings.filter((finding) => finding.severity === 'error');
      expect(errors).toEqual([]);
      expect(receipt.counts).toMatchObject({
        altered: 0,
        inserted: 0,
        deleted: 0,
        reordered: 0,
        forked: 0,
      });
      // The run's secret line: redacted, with its erasure, time and the API that did it.
      const runRedacted = receipt.findings.filter(
        (finding) => finding.finding === 'redacted' && finding.stream.kind === 'run',
      );
      expect(runRedacted).toHaveLength(1);
      expect(runRedacted[0]).toMatchObject({
        stream: { id: RUN_SECRET },
        where: { line: 4 },
        redaction: { by: expect.any(Object), at: expect.any(String) },
      });
      // The ledger session redacted whole: its 2 events that gc kept (its 2 tool.result events
      // were collected after the redaction).
      const ledgerRedacted = receipt.findings.filter(
        (finding) => finding.finding === 'redacted' && finding.stream.kind === 'ledger',
      );
      expect(ledgerRedacted.map((finding) => finding.stream.session_id)).toEqual(
        Array(2).fill('s-short'),
      );
      // Collected: the short run (a whole stream, by key), and the tool.result events of both sessions.
      const collected = receipt.findings.filter((finding) => finding.finding === 'collected');
      expect(collected.some((finding) => finding.stream.kind !== 'ledger')).toBe(true);
      expect(
        new Set(
          collected
            .filter((finding) => finding.stream.kind === 'ledger')
            .map((finding) => finding.stream.session_id),
        ),
      ).toEqual(new Set(['s-long', 's-short']));
      for (const finding of [...runRedacted, ...ledgerRedacted])
        expect(finding.redaction?.by).toBeDefined();
      console.log(
        `verify corpus (redaction + gc): counts ${JSON.stringify(receipt.counts)}, ${receipt.verified.streams} streams verified`,
      );
    },
    FULL ? 3_600_000 : 300_000,
  );
});
