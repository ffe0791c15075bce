import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunRecord } from '@episodic/core';
import { agentEvent, completedRun, runIdFor } from '@episodic/core/testing';
import { createFsStore } from '@episodic/store-fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { doctorReceiptSchema } from '../src/receipts/index.js';
import {
  appendEvent,
  BIN,
  cleanEnv,
  episodic,
  episodicJson,
  expectError,
  temporaryDirectory,
  temporaryHome,
} from './helpers.js';

const RUN = runIdFor(1);
const line = (record: RunRecord) => JSON.stringify(record);

/**
 * A run file with every kind of damage QUALITY.md lists, between readable records: a BOM, a CRLF
 * line, a line cut mid-string, a NUL run, a lone surrogate, a record of the wrong shape, two objects
 * on one line, a NUL-padded record (readable), and a torn tail.
 */
function damagedCorpus(): { text: string; damagedLines: number[]; salvagedLines: number[] } {
  const [header, start, status, ...rest] = completedRun(RUN, 2);
  const lines = [
    `\ufeff${line(header as RunRecord)}`, // 1 BOM: fine
    `${line(start as RunRecord)}\r`, // 2 CRLF: fine
    line(status as RunRecord), // 3
    `{"type":"agent.event","run_id":"${RUN}","ts":"2026-02-03T12:00:00.000Z","seq":7,"event":{"type":"te`, // 4 cut mid-string
    '\u0000'.repeat(64), // 5 NUL run
    `{"type":"agent.event","run_id":"${RUN}","ts":"2026-02-03T12:00:00.000Z","seq":8,"event":{"type":"text","content":"\\ud800"}}`, // 6 lone surrogate
    `{"type":"agent.event","run_id":"${RUN}"}`, // 7 wrong schema
    `${line(agentEvent(RUN, 9))}${line(agentEvent(RUN, 10))}`, // 8 two objects on one line
    `\u0000\u0000${line(agentEvent(RUN, 11))}`, // 9 NUL-padded record: readable, salvaged
    ...rest.map((record) => line(record as RunRecord)), // 10-13
  ];
  return {
    text: `${lines.join('\n')}\n{"type":"run.status","run_id":"${RUN}","ts":"2026-02-0`,
    damagedLines: [4, 5, 6, 7, 8, 14],
    salvagedLines: [9],
  };
}

function runFilePath(home: string): string {
  const directory = join(home, 'sessions', '2026', '02', '03');
  mkdirSync(directory, { recursive: true });
  return join(directory, `${RUN}.jsonl`);
}

async function readRecords(home: string): Promise<{ records: RunRecord[]; errors: number }> {
  const store = createFsStore({ root: home, durability: 'none' });
  try {
    const run = await store.runs.read(RUN);
    return { records: run.records, errors: run.errors.length };
  } finally {
    await store.close();
  }
}

describe('doctor', () => {
  it('reports a healthy empty home without creating anything', async () => {
    const home = temporaryHome();
    const result = await episodicJson(['--home', home, 'doctor']);
    expect(result.status).toBe(0);
    const receipt = doctorReceiptSchema.parse(result.receipt);
    expect(receipt).toMatchObject({
      ok: true,
      healthy: true,
      problem_count: 0,
      quarantine: null,
      checked: { run_files: 0, database: null },
    });
    expect(existsSync(home)).toBe(false);
    expect(receipt.chain).toBeNull();
  });

  it('on a chained home, says per kind which streams began before chaining and where they are verified from, exit unchanged', async () => {
    const home = temporaryHome();
    mkdirSync(home, { recursive: true });
    const config = (chain: boolean) =>
      writeFileSync(
        join(home, 'episodic-home.json'),
        `${JSON.stringify({ format: 'episodic.home.v1', store: 'fs', ...(chain ? { chain } : {}) })}\n`,
      );
    const runA = completedRun(RUN, 3);
    const runB = completedRun(runIdFor(2), 3);
    const fields = { scope: 'proj', 'session-id': 's1', 'agent-id': 'a', type: 'ops.decision' };
    // Written before chaining was turned on...
    config(false);
    const plain = createFsStore({ root: home, durability: 'none' });
    await plain.runs.append(RUN, runA.slice(0, 2));
    await plain.runs.append(runIdFor(2), runB.slice(0, 4));
    await plain.close();
    await appendEvent(home, { ...fields, summary: 'before' });
    const before = await episodicJson(['--home', home, 'doctor']);
    expect(doctorReceiptSchema.parse(before.receipt).chain).toBeNull();
    // ...and continued after.
    config(true);
    const chained = createFsStore({ root: home, durability: 'none', chain: true });
    await chained.runs.append(RUN, runA.slice(2));
    await chained.runs.append(runIdFor(2), runB.slice(4));
    await chained.runs.append(runIdFor(3), completedRun(runIdFor(3), 1)); // chained throughout
    await chained.close();
    await appendEvent(home, { ...fields, summary: 'after' });

    const result = await episodicJson(['--home', home, 'doctor']);
    expect(result.status, result.stderr).toBe(0);
    const receipt = doctorReceiptSchema.parse(result.receipt);
    expect(receipt.healthy).toBe(true);
    expect(receipt.chain?.unchained).toEqual([
      { kind: 'run', streams: 2, verified_from: { min: 3, max: 5 } },
      { kind: 'ledger', streams: 1, verified_from: { min: 2, max: 2 } },
    ]);
    const human = await episodic(['--home', home, 'doctor']);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toContain(
      'info 2 runs have entries written before chaining; verified from entry 3–5 (per stream)',
    );
    expect(human.stdout).toContain(
      'info 1 ledger session has entries written before chaining; verified from entry 2',
    );
    expect(human.stdout).toContain('Healthy.');
  });

  it('reports exactly the damaged lines of a damaged run file, exit 1, changing nothing', async () => {
    const home = temporaryHome();
    const path = runFilePath(home);
    const corpus = damagedCorpus();
    writeFileSync(path, corpus.text);
    const result = await episodicJson(['--home', home, '--store', 'fs', 'doctor']);
    expectError(result, 1, 'CORRUPT_DATA');
    const receipt = doctorReceiptSchema.parse(result.receipt);
    expect(receipt.healthy).toBe(false);
    expect(receipt.error).toContain('episodic doctor --fix');
    const lines = receipt.problems
      .filter((problem) => problem.area === 'run_file')
      .map((problem) => problem.line);
    expect(lines).toEqual([
      ...corpus.damagedLines.slice(0, 5),
      ...corpus.salvagedLines,
      corpus.damagedLines[5],
    ]);
    expect(receipt.problems.every((problem) => problem.fixable && !problem.fixed)).toBe(true);
    expect(receipt.problems.at(-1)?.message).toContain('torn last line');
    expect(readFileSync(path, 'utf8')).toBe(corpus.text);
    expect(existsSync(join(home, 'quarantine'))).toBe(false);
  });

  it('--fix keeps every readable record, quarantines every damaged byte, and leaves a healthy file', async () => {
    const home = temporaryHome();
    const path = runFilePath(home);
    const corpus = damagedCorpus();
    writeFileSync(path, corpus.text);
    const original = readFileSync(path);
    const before = await readRecords(home);
    expect(before.records).toHaveLength(8);

    const fixed = doctorReceiptSchema.parse(
      (await episodicJson(['--home', home, '--store', 'fs', 'doctor', '--fix'])).receipt,
    );
    expect(fixed).toMatchObject({ ok: true, healthy: true, fix: true });
    expect(fixed.fixed_count).toBe(fixed.problem_count);
    expect(fixed.problems[0]?.action).toContain('8 records kept, 7 damaged lines quarantined');

    const after = await readRecords(home);
    expect(after.errors).toBe(0);
    expect(after.records).toEqual(before.records);
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);

    // Every cut line is in the quarantine, byte for byte, at the place the manifest says.
    const folder = fixed.quarantine as string;
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as {
      entries: Array<{
        stored_as: string;
        fragments: Array<{
          line: number;
          byte_offset: number;
          byte_length: number;
          stored_offset: number;
        }>;
      }>;
    };
    const [entry] = manifest.entries;
    const stored = readFileSync(join(folder, entry?.stored_as as string));
    expect(entry?.fragments.map((fragment) => fragment.line)).toEqual([4, 5, 6, 7, 8, 9, 14]);
    for (const fragment of entry?.fragments ?? []) {
      expect(
        stored.subarray(fragment.stored_offset, fragment.stored_offset + fragment.byte_length),
      ).toEqual(
        original.subarray(fragment.byte_offset, fragment.byte_offset + fragment.byte_length),
      );
    }

    const again = await episodicJson(['--home', home, '--store', 'fs', 'doctor']);
    expect(again.status).toBe(0);
    expect(doctorReceiptSchema.parse(again.receipt).problem_count).toBe(0);
    // An append after the repair lands on its own line.
    const store = createFsStore({ root: home, durability: 'none' });
    await store.runs.append(RUN, [agentEvent(RUN, 20)]);
    await store.close();
    expect((await readRecords(home)).records).toHaveLength(9);
  });

  it('adds the missing final newline of a readable last record', async () => {
    const home = temporaryHome();
    const path = runFilePath(home);
    const text = completedRun(RUN, 1).map(line).join('\n');
    writeFileSync(path, text);
    const report = doctorReceiptSchema.parse(
      (await episodicJson(['--home', home, 'doctor'])).receipt,
    );
    expect(report.problems.map((problem) => problem.message)).toEqual([
      expect.stringContaining('no final newline'),
    ]);
    expect(
      doctorReceiptSchema.parse((await episodicJson(['--home', home, 'doctor', '--fix'])).receipt)
        .healthy,
    ).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(`${text}\n`);
  });

  it('quarantines unreadable snapshots, empty run files and dead writers’ temp files', async () => {
    const home = temporaryHome();
    const state = join(home, 'sessions', 'state');
    mkdirSync(state, { recursive: true });
    const badSnapshot = join(state, '0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e.json');
    writeFileSync(badSnapshot, '{"schema_version":1,"session_id":');
    const temp = join(state, '.0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e.json.999999999.abcdef.tmp');
    writeFileSync(temp, '{}');
    const emptyRun = runFilePath(home);
    writeFileSync(emptyRun, '');
    const report = doctorReceiptSchema.parse(
      (await episodicJson(['--home', home, 'doctor'])).receipt,
    );
    expect(report.problems.map((problem) => [problem.area, problem.message.slice(0, 30)])).toEqual([
      ['run_file', 'the file is empty (its writer '],
      ['file', 'a temp file left by a snapshot'],
      ['snapshot', 'the snapshot is not valid JSON'],
    ]);
    const fixed = doctorReceiptSchema.parse(
      (await episodicJson(['--home', home, 'doctor', '--fix'])).receipt,
    );
    expect(fixed.healthy).toBe(true);
    for (const path of [badSnapshot, temp, emptyRun]) expect(existsSync(path)).toBe(false);
    const quarantined = readdirSync(join(fixed.quarantine as string, 'sessions', 'state'));
    expect(quarantined.sort()).toEqual(
      [
        '.0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e.json.999999999.abcdef.tmp',
        '0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e.json',
      ].sort(),
    );
  });

  it('checks a session’s commits: a torn last commit is fine, damage before it and orphans are reported', async () => {
    const home = temporaryHome();
    const state = join(home, 'sessions', 'state');
    mkdirSync(state, { recursive: true });
    const id = '0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e';
    const orphanId = '1c8e0d2f-3a4b-4c5d-9e0f-1a2b3c4d5e6f';
    const base = {
      schema_version: 2,
      session_id: id,
      updated_at: '2026-02-03T12:00:00.000Z',
      revision: 1,
      episodes: [],
      messages: [],
    };
    writeFileSync(join(state, `${id}.json`), `${JSON.stringify(base)}\n`);
    const delta = (revision: number) =>
      JSON.stringify({ revision, updated_at: '2026-02-03T12:00:01.000Z', episodes: [] });
    // A commit cut short by a crash is not a problem: it was never acknowledged.
    writeFileSync(join(state, `${id}.deltas.jsonl`), `${delta(2)}\n{"revision":3,"upd`);
    expect(
      doctorReceiptSchema.parse((await episodicJson(['--home', home, 'doctor'])).receipt).healthy,
    ).toBe(true);
    writeFileSync(join(state, `${id}.deltas.jsonl`), `${delta(2)}\nnot a commit\n${delta(3)}\n`);
    writeFileSync(join(state, `${orphanId}.deltas.jsonl`), `${delta(2)}\n`);
    const report = doctorReceiptSchema.parse(
      (await episodicJson(['--home', home, 'doctor'])).receipt,
    );
    const problems = [...report.problems].sort((left, right) =>
      left.path.localeCompare(right.path),
    );
    expect(problems.map((problem) => [problem.path, problem.fixable])).toEqual([
      [`sessions/state/${id}.deltas.jsonl`, false],
      [`sessions/state/${orphanId}.deltas.jsonl`, true],
    ]);
    expect(problems[0]?.message).toContain('delta line 2 is damaged');
  });

  it('reports what it cannot repair (a stray file, a damaged database row) and stays at exit 1', async () => {
    const home = temporaryHome();
    const event = await appendEvent(home, { summary: 'x', 'payload-json': '{"a":1}' });
    const database = new Database(join(home, 'episodic.db'));
    database
      .prepare('UPDATE episodic_events SET payload_json = ? WHERE event_id = ?')
      .run('{"a":', event.event_id);
    database.close();
    const day = join(home, 'sessions', '2026', '02', '03');
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, 'notes.jsonl'), 'hello\n');
    const result = await episodicJson(['--home', home, 'doctor', '--fix']);
    expectError(result, 1, 'CORRUPT_DATA');
    const receipt = doctorReceiptSchema.parse(result.receipt);
    expect(
      receipt.problems.filter((problem) => !problem.fixed).map((problem) => problem.path),
    ).toEqual(
      expect.arrayContaining([`event ${event.event_id}`, 'sessions/2026/02/03/notes.jsonl']),
    );
    expect(receipt.checked.database).toMatchObject({ integrity: 'ok', events: 1 });
  });

  const python = spawnSync('python3', ['-c', 'import pty'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!python)(
    'shows progress on stderr only when it is a terminal, never in --json stdout',
    () => {
      const home = temporaryHome();
      for (let index = 0; index < 40; index++) {
        const runId = runIdFor(100 + index);
        const directory = join(home, 'sessions', '2026', '02', '03');
        mkdirSync(directory, { recursive: true });
        writeFileSync(
          join(directory, `${runId}.jsonl`),
          `${completedRun(runId, 50).map(line).join('\n')}\n`,
        );
      }
      // python3 runs the binary with stderr on a pseudo-terminal and stdout on a pipe.
      const helper = join(temporaryDirectory(), 'pty-stderr.py');
      writeFileSync(
        helper,
        `import json, os, pty, subprocess, sys, threading
master, slave = pty.openpty()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
os.close(slave)
chunks = []
def drain():
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            return
        if not data:
            return
        chunks.append(data)
reader = threading.Thread(target=drain)
reader.start()
stdout = process.stdout.read()
process.wait()
reader.join(timeout=5)
print(json.dumps({"status": process.returncode, "stdout": stdout.decode(), "stderr": b"".join(chunks).decode("utf8", "replace")}))
`,
      );
      const run = (args: string[]) => {
        const result = spawnSync(
          'python3',
          [helper, process.execPath, BIN, '--home', home, ...args],
          { encoding: 'utf8', env: cleanEnv() },
        );
        return JSON.parse(result.stdout) as { status: number; stdout: string; stderr: string };
      };
      const tty = run(['doctor', '--json']);
      expect(tty.status).toBe(0);
      expect(tty.stderr).toContain('doctor: run files');
      expect(tty.stdout.trim().split('\n')).toHaveLength(1);
      expect(doctorReceiptSchema.parse(JSON.parse(tty.stdout)).checked.run_files).toBe(40);
      expect(run(['doctor', '--json', '--quiet']).stderr).not.toContain('doctor: run files');
      const pipe = spawnSync(process.execPath, [BIN, '--home', home, 'doctor', '--json'], {
        encoding: 'utf8',
        env: cleanEnv(),
      });
      expect(pipe.stderr).toBe('');
    },
  );
});
