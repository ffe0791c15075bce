// `episodic anchors keygen|create` and `episodic verify --anchors` with the BUILT binary on a real
// chained file home: a stream rewritten with recomputed commitments passes plain verify but not
// the anchor; a deleted run is deleted, a gc-collected one collected; a changed anchor file or the
// wrong public key fails its signature; a key group or others may read is refused.

import { createHash, getRandomValues } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createChainWriter } from '@episodic/core/adapter';
import { anchorFileSchema, verifyReceiptSchema } from '@episodic/core/schemas';
import { completedRun, runIdFor } from '@episodic/core/testing';
import { createFsStore } from '@episodic/store-fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  anchorsCreateReceiptSchema,
  anchorsKeygenReceiptSchema,
} from '../src/receipts/anchors-receipts.js';
import {
  episodicBinary,
  episodicBinaryJson,
  expectError,
  temporaryDirectory,
  temporaryHome,
} from './helpers.js';

const RUN_A = runIdFor(0xa1);
const RUN_B = runIdFor(0xb2);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

/** A chained file home with two runs and one ledger session, and a folder outside it. */
async function seedHome() {
  const home = temporaryHome();
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'episodic-home.json'),
    `${JSON.stringify({ format: 'episodic.home.v1', store: 'fs', chain: true })}\n`,
  );
  const store = createFsStore({ root: home, durability: 'none', chain: true });
  try {
    await store.runs.append(RUN_A, completedRun(RUN_A, 3));
    await store.runs.append(RUN_B, completedRun(RUN_B, 2));
  } finally {
    await store.close();
  }
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
    'first',
  ]);
  expect(appended.status, appended.stderr).toBe(0);
  return { home, outside: temporaryDirectory('episodic-anchors-') };
}

function runFile(home: string, runId: string): string {
  const found = (readdirSync(join(home, 'sessions'), { recursive: true }) as string[]).find(
    (name) => name.endsWith(`${runId}.jsonl`),
  );
  if (found === undefined) throw new Error(`no file for run ${runId}`);
  return join(home, 'sessions', found);
}

/** An attacker with write access: every line re-stamped through core's writer, one record added, the stream key kept. */
function rewriteRun(path: string): void {
  const parsed = readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { chain: { k?: string } } & Record<string, unknown>);
  const key = new Uint8Array(Buffer.from(parsed[0]?.chain.k as string, 'base64url'));
  let draws = 0;
  const writer = createChainWriter({
    sha256,
    randomSalt: () => (draws++ === 0 ? key : getRandomValues(new Uint8Array(16))),
  });
  const records = parsed.map(({ chain: _chain, ...record }) => record);
  records.splice(3, 0, { ...records[3], seq: 77 });
  let state = { n: 0, key: null, head: null, open: [] } as Parameters<typeof writer.stampLine>[0];
  const lines: string[] = [];
  for (const record of records) {
    const stamp = writer.stampLine(state, JSON.stringify(record));
    lines.push(stamp.line);
    state = stamp.state;
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

function keygen(outside: string, name = 'anchor.pem') {
  const result = episodicBinaryJson(['anchors', 'keygen', '--out', join(outside, name)]);
  expect(result.status, result.stderr).toBe(0);
  return anchorsKeygenReceiptSchema.parse(result.receipt);
}

function anchor(home: string, key: string, out: string, extra: string[] = ['--all-scopes']) {
  const result = episodicBinaryJson([
    '--home',
    home,
    'anchors',
    'create',
    '--key',
    key,
    '--out',
    out,
    ...extra,
  ]);
  expect(result.status, result.stderr).toBe(0);
  return anchorsCreateReceiptSchema.parse(result.receipt);
}

function verify(home: string, args: string[]) {
  const result = episodicBinaryJson(['--home', home, 'verify', ...args]);
  return { ...result, receipt: verifyReceiptSchema.parse(result.receipt) };
}

describe('episodic anchors (built binary, chained file home)', () => {
  it('keygen and create write a 0600 key and a signed file naming streams by key; verify --anchors passes', async () => {
    const { home, outside } = await seedHome();
    const key = keygen(outside);
    expect(statSync(key.key_file).mode & 0o777).toBe(0o600);
    const again = episodicBinaryJson(['anchors', 'keygen', '--out', key.key_file]);
    expectError(again, 1, 'CONFLICT');
    const out = join(outside, 'a1.json');
    const made = anchor(home, key.key_file, out);
    expect(made).toMatchObject({
      heads: { run: 2, ledger: 1, session: 0 },
      erasure_logs: 0,
      key_id: key.key_id,
      parts: { runs: 'anchored', ledger: 'anchored' },
    });
    const file = anchorFileSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(file.public_key).toBe(key.public_key);
    // (as whole JSON strings: a short name may occur by chance inside a base64url key)
    for (const name of [RUN_A, RUN_B, 'proj', 's1'])
      expect(readFileSync(out, 'utf8')).not.toContain(JSON.stringify(name));
    const config = JSON.parse(readFileSync(join(home, 'episodic-home.json'), 'utf8'));
    expect(config.home_key).toBe(file.home);

    const checked = verify(home, [
      '--all-scopes',
      '--anchors',
      out,
      '--public-key',
      key.public_key,
    ]);
    expect(checked.status, checked.stderr).toBe(0);
    if (!checked.receipt.ok) throw new Error('expected ok');
    expect(checked.receipt.anchors).toMatchObject({
      files: 1,
      streams: 3,
      checked_against: 'public-key',
      verified: 3,
      mismatched: 0,
    });
    const human = episodicBinary(['--home', home, 'verify', '--all-scopes', '--anchors', out]);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toContain(
      'anchors: 1 file, signatures checked against the key in each file; 3 anchored streams: 3 verified\n',
    );
    // An existing anchor file is never overwritten; --public-key needs --anchors.
    expectError(
      episodicBinaryJson([
        '--home',
        home,
        'anchors',
        'create',
        '--key',
        key.key_file,
        '--out',
        out,
      ]),
      1,
      'CONFLICT',
    );
    expectError(
      episodicBinaryJson(['--home', home, 'verify', '--public-key', key.public_key]),
      2,
      'USAGE_ERROR',
    );
  });

  it('a run rewritten with recomputed commitments passes plain verify but is anchor-mismatch under --anchors; a deleted run is deleted', async () => {
    const { home, outside } = await seedHome();
    const key = keygen(outside);
    const out = join(outside, 'a1.json');
    anchor(home, key.key_file, out);
    rewriteRun(runFile(home, RUN_A));
    const plain = verify(home, ['--all-scopes']);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.receipt.ok).toBe(true);

    const anchored = verify(home, ['--all-scopes', '--anchors', out]);
    expect(anchored.status).toBe(1);
    if (anchored.receipt.ok) throw new Error('expected a failure');
    expect(anchored.receipt.code).toBe('CORRUPT_DATA');
    expect(anchored.receipt.details.findings).toContainEqual(
      expect.objectContaining({
        finding: 'anchor-mismatch',
        severity: 'error',
        stream: { kind: 'run', id: RUN_A },
      }),
    );
    expect(anchored.receipt.error).toContain(
      `run ${RUN_A} entry ${completedRun(RUN_A, 3).length} differs from its signed anchor (rewritten since it was anchored)`,
    );
    expect(anchored.receipt.details.anchors).toMatchObject({ verified: 2, mismatched: 1 });

    rmSync(runFile(home, RUN_B));
    const deleted = verify(home, ['--all-scopes', '--anchors', out]);
    expect(deleted.status).toBe(1);
    if (deleted.receipt.ok) throw new Error('expected a failure');
    expect(deleted.receipt.details.findings).toContainEqual(
      expect.objectContaining({
        finding: 'deleted',
        stream: expect.objectContaining({ kind: 'run' }),
      }),
    );
    expect(deleted.receipt.details.anchors).toMatchObject({ deleted: 1 });
  });

  it('a ledger session deleted with the sqlite3 module is deleted under --all-scopes, and not checked under another scope', async () => {
    const { home, outside } = await seedHome();
    const key = keygen(outside);
    const out = join(outside, 'a1.json');
    anchor(home, key.key_file, out);
    const database = new Database(join(home, 'episodic.db'));
    try {
      database.prepare("DELETE FROM episodic_events WHERE session_id = 's1'").run();
    } finally {
      database.close();
    }
    const all = verify(home, ['--all-scopes', '--anchors', out]);
    expect(all.status).toBe(1);
    if (all.receipt.ok) throw new Error('expected a failure');
    expect(all.receipt.details.findings).toContainEqual(
      expect.objectContaining({
        finding: 'deleted',
        stream: expect.objectContaining({ kind: 'ledger' }),
      }),
    );
    expect(all.receipt.details.anchors).toMatchObject({ verified: 2, deleted: 1 });
    const other = verify(home, ['--scope', 'other', '--anchors', out]);
    expect(other.status, other.stderr).toBe(0);
    if (!other.receipt.ok) throw new Error('expected ok');
    expect(other.receipt.anchors).toMatchObject({ verified: 2, not_checked: 1 });
    expect(other.receipt.notes).toContainEqual(
      expect.stringMatching(/^anchors: 1 anchored stream\(s\) not checked/),
    );
  });

  it('a gc-collected run is collected (exit 0); a run created after the anchor is not anchored', async () => {
    const { home, outside } = await seedHome();
    const key = keygen(outside);
    const out = join(outside, 'a1.json');
    anchor(home, key.key_file, out, ['--runs']);
    // Collect every run of the default scope (the fixtures started on 2026-02-03).
    const gc = episodicBinary([
      '--home',
      home,
      'runs',
      'gc',
      '--older-than',
      '30',
      '--scope',
      'default',
    ]);
    expect(gc.status, gc.stderr).toBe(0);
    const store = createFsStore({ root: home, durability: 'none', chain: true });
    await store.runs.append(runIdFor(0xc3), completedRun(runIdFor(0xc3), 1));
    await store.close();
    const checked = verify(home, ['--anchors', out]);
    expect(checked.status, checked.stderr).toBe(0);
    if (!checked.receipt.ok) throw new Error('expected ok');
    expect(
      checked.receipt.findings.filter((finding) => finding.finding === 'collected'),
    ).toHaveLength(2);
    expect(checked.receipt.anchors).toMatchObject({
      streams: 2,
      collected: 2,
      deleted: 0,
      not_anchored: 2, // the new run and the erasure log gc started
    });
    // The collections came after the anchor (no erasure log was signed then: judged by its time),
    // so they are listed apart for review, in the receipt and under a heading.
    const after = checked.receipt.anchors?.erasures_after;
    expect(after).toMatchObject({ since: 'created-at' });
    expect(after?.entries).toHaveLength(2);
    expect(after?.entries.every((entry) => entry.op === 'collect')).toBe(true);
    // The erasure log names the command and its flags given, never their values.
    for (const entry of after?.entries ?? [])
      expect(entry.by).toEqual({ command: 'episodic runs gc', flags: ['--older-than', '--scope'] });
    const human = episodicBinary(['--home', home, 'verify', '--anchors', out]);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/erased after the newest anchor \([^)]+\), for review/);
    expect(
      human.stdout.match(
        / {2}\S+ {2}collected {2}stream [\w-]{22} {2}by episodic runs gc --older-than --scope\n/g,
      ),
    ).toHaveLength(2);
    // Anchored again: the log head is signed, nothing is listed any more.
    const second = join(outside, 'a2.json');
    anchor(home, key.key_file, second, ['--runs']);
    const again = verify(home, ['--anchors', out, '--anchors', second]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.receipt.ok && again.receipt.anchors?.erasures_after).toMatchObject({
      since: 'erasure-log-head',
      entries: [],
    });
    expect(episodicBinary(['--home', home, 'verify', '--anchors', second]).stdout).not.toMatch(
      /erased after/,
    );
  });

  it('a changed byte in the anchor file or the wrong --public-key fails the signature (exit 1); a bad key or file is exit 2; a 0644 key is refused', async () => {
    const { home, outside } = await seedHome();
    const key = keygen(outside);
    const out = join(outside, 'a1.json');
    anchor(home, key.key_file, out, ['--runs']);
    const text = readFileSync(out, 'utf8');
    const changed = join(outside, 'changed.json');
    writeFileSync(
      changed,
      text.replace(/"n":(\d+)/, (_, n: string) => `"n":${Number(n) + 1}`),
    );
    const tampered = verify(home, ['--anchors', changed]);
    expect(tampered.status).toBe(1);
    if (tampered.receipt.ok) throw new Error('expected a failure');
    expect(tampered.receipt.error).toMatch(
      /^anchor file .*changed\.json \(created .*\) fails its signature \(checked against the key in the file\): its heads are not used/,
    );
    expect(tampered.receipt.details.anchors).toMatchObject({
      signatures: [{ valid: false }],
      verified: 0,
    });

    const other = keygen(outside, 'other.pem');
    const wrong = verify(home, ['--anchors', out, '--public-key', other.public_key]);
    expect(wrong.status).toBe(1);
    if (wrong.receipt.ok) throw new Error('expected a failure');
    expect(wrong.receipt.error).toMatch(/checked against the public key given/);
    // With two files, the good one still counts, oldest first.
    const both = verify(home, ['--anchors', changed, '--anchors', out]);
    expect(both.status).toBe(1);
    if (both.receipt.ok) throw new Error('expected a failure');
    expect(both.receipt.details.anchors).toMatchObject({ files: 2, verified: 2 });

    expectError(
      episodicBinaryJson(['--home', home, 'verify', '--anchors', out, '--public-key', 'nope']),
      2,
      'VALIDATION_ERROR',
    );
    writeFileSync(join(outside, 'bad.json'), '{"format":"x"}');
    expectError(
      episodicBinaryJson(['--home', home, 'verify', '--anchors', join(outside, 'bad.json')]),
      2,
      'VALIDATION_ERROR',
    );

    chmodSync(key.key_file, 0o644);
    const refused = episodicBinaryJson([
      '--home',
      home,
      'anchors',
      'create',
      '--key',
      key.key_file,
      '--out',
      join(outside, 'a2.json'),
    ]);
    const message = expectError(refused, 2, 'VALIDATION_ERROR');
    expect(message).toContain(key.key_file);
    expect(message).toContain('mode 0644');
    expect(message).toContain(`chmod 600 ${key.key_file}`);
  });
});
