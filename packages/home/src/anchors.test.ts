// Anchors on a real file home (run files chained by store-fs, the SQLite ledger chained): keys,
// signed heads, and `verifyEpisodicHome({ anchors })` against a rewrite, a deletion, a changed
// anchor file and the wrong key.
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import { createChainWriter } from '@episodic/core/adapter';
import { anchorFileSchema } from '@episodic/core/schemas';
import { completedRun, runIdFor } from '@episodic/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAnchors,
  generateAnchorKey,
  readAnchorFile,
  verifyAnchorSignature,
} from './anchors.js';
import { readHomeConfig } from './home-config.js';
import { nodeSha256 } from './node-chain-crypto.js';
import { openEpisodicStores } from './open-episodic-stores.js';
import { verifyEpisodicHome } from './verify-home.js';

const RUN_A = runIdFor(0xa1);
const RUN_B = runIdFor(0xb2);
const created: string[] = [];

afterEach(() => {
  for (const path of created.splice(0)) rmSync(path, { recursive: true, force: true });
});

function temporaryDirectory(): string {
  const path = mkdtempSync(join(tmpdir(), 'episodic-anchors-'));
  created.push(path);
  return path;
}

/** A chained file home with two runs and two ledger events, and a key kept outside it. */
async function seeded() {
  const home = temporaryDirectory();
  const outside = temporaryDirectory();
  writeFileSync(
    join(home, 'episodic-home.json'),
    JSON.stringify({ format: 'episodic.home.v1', store: 'fs', chain: true, extra: 'kept' }),
  );
  const stores = await openEpisodicStores({ home, env: {} });
  try {
    await stores.runs.append(RUN_A, completedRun(RUN_A, 3));
    await stores.runs.append(RUN_B, completedRun(RUN_B, 2));
    for (const summary of ['one', 'two'])
      await stores.ledger.append({
        scope: 'proj',
        session_id: 's1',
        agent_id: 'a',
        type: 'ops.decision',
        summary,
      });
  } finally {
    await stores.close();
  }
  const key = generateAnchorKey({ out: join(outside, 'anchor.pem') });
  return { home, outside, key };
}

async function withHome<T>(
  home: string,
  work: (stores: Awaited<ReturnType<typeof openEpisodicStores>>) => Promise<T>,
) {
  const stores = await openEpisodicStores({ home, env: {}, readOnly: true });
  try {
    return await work(stores);
  } finally {
    await stores.close();
  }
}

function runFile(home: string, runId: string): string {
  const found = (readdirSync(join(home, 'sessions'), { recursive: true }) as string[]).find(
    (name) => name.endsWith(`${runId}.jsonl`),
  );
  if (found === undefined) throw new Error(`no file for ${runId}`);
  return join(home, 'sessions', found);
}

/**
 * What an attacker with write access does: re-stamps the run file through core's writer with one
 * record changed and one added, keeping the stream key, so every commitment and head is recomputed.
 */
function rewriteRun(path: string): void {
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  const records = lines.map((line) => {
    const { chain, ...record } = JSON.parse(line) as { chain: { k?: string } };
    return { record, key: chain.k };
  });
  const key = Buffer.from(records[0]?.key as string, 'base64url');
  let draws = 0;
  const writer = createChainWriter({
    sha256: nodeSha256,
    randomSalt: () =>
      draws++ === 0 ? new Uint8Array(key) : crypto.getRandomValues(new Uint8Array(16)),
  });
  const forged = records.map(({ record }) => record as Record<string, unknown>);
  forged.splice(2, 0, { ...forged[2], seq: 42 });
  let state = (() => {
    const first = writer.stampLine(
      { n: 0, key: null, head: null, open: [] },
      JSON.stringify(forged[0]),
    );
    return { out: [first.line], state: first.state };
  })();
  for (const record of forged.slice(1)) {
    const stamp = writer.stampLine(state.state, JSON.stringify(record));
    state = { out: [...state.out, stamp.line], state: stamp.state };
  }
  writeFileSync(path, `${state.out.join('\n')}\n`);
}

describe('anchors', () => {
  it('generateAnchorKey writes a 0600 PKCS#8 key, prints its public key and fingerprint, and never overwrites', () => {
    const outside = temporaryDirectory();
    const out = join(outside, 'k.pem');
    const key = generateAnchorKey({ out });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readFileSync(out, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(key.publicKey).toMatch(/^[\w-]+$/);
    expect(key.keyId).toMatch(/^[\w-]{22}$/);
    const error = (() => {
      try {
        generateAnchorKey({ out });
      } catch (caught) {
        return caught as EpisodicError;
      }
      throw new Error('no error');
    })();
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(out);
    expect(() => generateAnchorKey({ out: '' })).toThrow(
      /^Invalid anchor key options: out .* \(got ""\)\. Pass \{ out:/,
    );
  });

  it('createAnchors signs every chained head by key only, and adds the home key once', async () => {
    const { home, outside, key } = await seeded();
    const out = join(outside, 'a1.json');
    const made = await withHome(home, (stores) =>
      createAnchors(stores, { keyFile: key.keyFile, home, ledger: { global: true }, out }),
    );
    const file = readAnchorFile(out);
    expect(anchorFileSchema.parse(file)).toEqual(made.document);
    expect(file.key_id).toBe(key.keyId);
    expect(file.public_key).toBe(key.publicKey);
    expect(file.heads.map((head) => head.kind).sort()).toEqual(['ledger', 'run', 'run']);
    expect(file.erasure_logs).toEqual([]);
    expect(made.parts).toEqual({ runs: 'anchored', ledger: 'anchored' });
    expect(made.notes).toContain('sessions: not anchored (session streams are not chained yet)');
    // Streams by key only: no run id, scope or session id in the file.
    const text = readFileSync(out, 'utf8');
    // (as whole JSON strings: a short name may occur by chance inside a base64url key)
    for (const name of [RUN_A, RUN_B, 'proj', 's1'])
      expect(text).not.toContain(JSON.stringify(name));
    expect(verifyAnchorSignature(file)).toBe(true);
    const config = readHomeConfig(home);
    expect(file.home).toBe(config?.home_key);
    expect((config as unknown as { extra: string }).extra).toBe('kept');
    const again = await withHome(home, (stores) =>
      createAnchors(stores, { keyFile: key.keyFile, home }),
    );
    expect(again.document.home).toBe(file.home);
    expect(again.document.heads.map((head) => head.kind)).toEqual(['run', 'run']);
    // An existing anchor file is never overwritten.
    await expect(
      withHome(home, (stores) => createAnchors(stores, { keyFile: key.keyFile, out })),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('createAnchors refuses a home that fails verification, and one with nothing chained', async () => {
    const { home, key } = await seeded();
    const path = runFile(home, RUN_B);
    writeFileSync(path, readFileSync(path, 'utf8').replace('"seq":1', '"seq":9'));
    const broken = await withHome(home, (stores) =>
      createAnchors(stores, { keyFile: key.keyFile }),
    ).catch((caught: unknown) => caught as EpisodicError);
    expect(broken).toMatchObject({ code: 'CORRUPT_DATA' });
    expect((broken as EpisodicError).message).toMatch(/fails verification \(1 error finding/);

    const plain = temporaryDirectory();
    const nothing = await withHome(plain, (stores) =>
      createAnchors(stores, { keyFile: key.keyFile, home: plain }),
    ).catch((caught: unknown) => caught as EpisodicError);
    expect(nothing).toMatchObject({ code: 'UNSUPPORTED' });
    expect((nothing as EpisodicError).message).toMatch(/^Nothing to anchor: runs: not anchored/);
  });

  it('refuses a key file group or others may read, naming the file, its mode and chmod 600', async () => {
    const { home, key } = await seeded();
    chmodSync(key.keyFile, 0o644);
    const error = await withHome(home, (stores) =>
      createAnchors(stores, { keyFile: key.keyFile }),
    ).catch((caught: unknown) => caught as EpisodicError);
    expect(EpisodicError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((error as EpisodicError).message).toContain(key.keyFile);
    expect((error as EpisodicError).message).toContain('0644');
    expect((error as EpisodicError).message).toContain(`chmod 600 ${key.keyFile}`);
  });

  it('verify with anchors: verified, then a rewrite is anchor-mismatch, a deletion deleted; newer streams are not anchored', async () => {
    const { home, outside, key } = await seeded();
    const out = join(outside, 'a1.json');
    await withHome(home, (stores) =>
      createAnchors(stores, { keyFile: key.keyFile, home, ledger: { global: true }, out }),
    );
    const verify = (options: { publicKey?: string; ledger?: { global: true } } = {}) =>
      withHome(home, (stores) =>
        verifyEpisodicHome(stores, {
          ledger: options.ledger ?? { global: true },
          anchors: {
            files: [{ name: out, file: JSON.parse(readFileSync(out, 'utf8')) }],
            home,
            ...(options.publicKey === undefined ? {} : { publicKey: options.publicKey }),
          },
        }),
      );
    const clean = await verify();
    expect(clean.report.ok).toBe(true);
    expect(clean.anchors).toMatchObject({
      files: 1,
      streams: 3,
      checked_against: 'file-key',
      verified: 3,
      mismatched: 0,
      not_anchored: 0,
      signatures: [{ valid: true, home: 'this' }],
    });
    // A run created after the anchor is not anchored (information, not an error).
    const stores = await openEpisodicStores({ home, env: {} });
    await stores.runs.append(runIdFor(0xc3), completedRun(runIdFor(0xc3), 1));
    await stores.close();
    expect((await verify()).anchors).toMatchObject({ verified: 3, not_anchored: 1 });

    // Rewritten whole with recomputed commitments: plain verify passes, the anchor does not.
    rewriteRun(runFile(home, RUN_A));
    const plain = await withHome(home, (s) => verifyEpisodicHome(s));
    expect(plain.report.ok).toBe(true);
    const rewritten = await verify();
    expect(rewritten.report.ok).toBe(false);
    expect(rewritten.report.findings).toContainEqual(
      expect.objectContaining({ finding: 'anchor-mismatch', stream: { kind: 'run', id: RUN_A } }),
    );
    expect(rewritten.anchors).toMatchObject({ verified: 2, mismatched: 1 });

    // Deleted: the anchored stream is gone and no erasure log records it.
    rmSync(runFile(home, RUN_B));
    const deleted = await verify();
    expect(deleted.report.findings).toContainEqual(
      expect.objectContaining({
        finding: 'deleted',
        stream: expect.objectContaining({ kind: 'run' }),
      }),
    );
    expect(deleted.anchors).toMatchObject({ deleted: 1 });

    // The ledger verified for one scope only: its anchored session is not called gone elsewhere.
    const scoped = await withHome(home, (s) =>
      verifyEpisodicHome(s, {
        runs: false,
        ledger: { scope: 'other' },
        anchors: { files: [{ name: out, file: readAnchorFile(out) }] },
      }),
    );
    expect(scoped.report.ok).toBe(true);
    expect(scoped.anchors?.not_checked).toBe(3);
  });

  it('lists the erasures recorded after the newest anchor apart: past the log head it signed, else after its time', async () => {
    const { home, outside, key } = await seeded();
    const redact = async (runId: string) => {
      const stores = await openEpisodicStores({ home, env: {} });
      try {
        expect((await stores.runs.redact(runId, { mode: 'content' })).changedLines).toBeGreaterThan(
          0,
        );
      } finally {
        await stores.close();
      }
    };
    const verifyWith = (...paths: string[]) =>
      withHome(home, (stores) =>
        verifyEpisodicHome(stores, {
          anchors: { files: paths.map((path) => ({ name: path, file: readAnchorFile(path) })) },
        }),
      );
    // No erasure log when anchored: an erasure after it is judged by the anchor's time.
    const first = join(outside, 'a1.json');
    await withHome(home, (stores) =>
      createAnchors(stores, {
        keyFile: key.keyFile,
        out: first,
        now: new Date(Date.now() - 60_000),
      }),
    );
    expect((await verifyWith(first)).anchors?.erasures_after).toEqual({
      anchor_created_at: readAnchorFile(first).created_at,
      since: 'created-at',
      entries: [],
    });
    await redact(RUN_B);
    const [erasedB] = await withHome(home, (stores) => stores.runs.readErasures());
    expect((await verifyWith(first)).anchors?.erasures_after).toEqual({
      anchor_created_at: readAnchorFile(first).created_at,
      since: 'created-at',
      entries: [
        { op: 'redact', at: erasedB?.at, by: { api: 'RunStore.redact' }, stream: erasedB?.stream },
      ],
    });

    // Anchored again: the log's head is signed, so the redaction before it is no longer listed
    // and the one after it is, whatever the clocks say.
    const second = join(outside, 'a2.json');
    await withHome(home, (stores) => createAnchors(stores, { keyFile: key.keyFile, out: second }));
    expect(readAnchorFile(second).erasure_logs).toHaveLength(1);
    const beforeAny = await verifyWith(first, second);
    expect(beforeAny.report.ok).toBe(true);
    expect(beforeAny.anchors?.erasures_after).toMatchObject({
      anchor_created_at: readAnchorFile(second).created_at,
      since: 'erasure-log-head',
      entries: [],
    });
    await redact(RUN_A);
    const erasedA = (await withHome(home, (stores) => stores.runs.readErasures()))[1];
    const after = await verifyWith(second, first);
    expect(after.report.ok).toBe(true);
    expect(after.anchors?.erasures_after?.entries).toEqual([
      { op: 'redact', at: erasedA?.at, by: { api: 'RunStore.redact' }, stream: erasedA?.stream },
    ]);
    expect(erasedA?.stream).not.toBe(erasedB?.stream);
    // Without --anchors, or with the runs not verified, nothing is listed.
    const ledgerOnly = await withHome(home, (stores) =>
      verifyEpisodicHome(stores, {
        runs: false,
        ledger: { global: true },
        anchors: { files: [{ name: second, file: readAnchorFile(second) }] },
      }),
    );
    expect(ledgerOnly.anchors?.erasures_after).toBeUndefined();
  });

  it('a changed byte in the anchor file, a wrong public key or another home fails the signature check: exit-1 findings, heads unused', async () => {
    const { home, outside, key } = await seeded();
    const out = join(outside, 'a1.json');
    await withHome(home, (stores) => createAnchors(stores, { keyFile: key.keyFile, home, out }));
    const original = readFileSync(out, 'utf8');
    const check = (file: unknown, publicKey?: string) =>
      withHome(home, (stores) =>
        verifyEpisodicHome(stores, {
          anchors: {
            files: [{ name: 'a1.json', file }],
            home,
            ...(publicKey === undefined ? {} : { publicKey }),
          },
        }),
      );
    const good = await check(JSON.parse(original), key.publicKey);
    expect(good.report.ok).toBe(true);
    expect(good.anchors).toMatchObject({ checked_against: 'public-key', verified: 2 });

    const changed = JSON.parse(original);
    changed.created_at = changed.created_at.replace(/\d(?=Z$)/, (digit: string) =>
      String((Number(digit) + 1) % 10),
    );
    const tampered = await check(changed);
    expect(tampered.report.ok).toBe(false);
    expect(tampered.report.findings[0]).toMatchObject({
      finding: 'anchor-mismatch',
      detail: expect.stringMatching(
        /a1\.json .*fails its signature \(checked against the key in the file\)/,
      ),
    });
    expect(tampered.anchors).toMatchObject({
      streams: 0,
      verified: 0,
      signatures: [{ valid: false }],
    });

    const other = generateAnchorKey({ out: join(outside, 'other.pem') });
    const wrong = await check(JSON.parse(original), other.publicKey);
    expect(wrong.report.ok).toBe(false);
    expect(wrong.report.findings[0]?.detail).toMatch(/checked against the public key given/);
    await expect(check(JSON.parse(original), 'not-a-key')).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(check({ format: 'nope' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });

    // Signed properly, but for another home.
    const otherHome = (await seeded()).home;
    const foreign = await withHome(otherHome, (stores) =>
      createAnchors(stores, { keyFile: key.keyFile, home: otherHome }),
    );
    const mixed = await check(foreign.document);
    expect(mixed.report.findings[0]?.detail).toMatch(/made for another home/);
  });
});
