// Chained run files (`createFsStore({ chain })`, docs/design/verify.md): what is specific to the
// file store beyond the runs/chain conformance spec (which runs in fs-store.conformance.test.ts).
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { type ChainReport, createChainVerifier, type RunChainLine } from '@episodic/core/adapter';
import { agentEvent, completedRun, runIdFor } from '@episodic/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { rejection, temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore, type FsStore, type FsStoreOptions } from './index.js';

const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest();
const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function openAt(root: string, options: Omit<FsStoreOptions, 'root'> = {}): FsStore {
  const store = createFsStore({ ...options, root });
  cleanups.push(() => store.close());
  return store;
}

function fresh(options: Omit<FsStoreOptions, 'root'> = {}): { root: string; store: FsStore } {
  const directory = temporaryDirectory();
  cleanups.push(directory.remove);
  return { root: directory.path, store: openAt(directory.path, options) };
}

function verify(
  kind: 'run' | 'erasures',
  id: string,
  lines: readonly RunChainLine[],
  erasures: readonly unknown[] = [],
): ChainReport {
  const verifier = createChainVerifier({ sha256, erasures });
  const stream = { kind, id } as const;
  for (const { line, text } of lines) verifier.line(stream, text, { line });
  verifier.endStream(stream);
  return verifier.report();
}

describe('chained run files', () => {
  it('is off by default: no chain member is written and the capability is absent', async () => {
    const { store } = fresh();
    const runId = runIdFor(0x80);
    await store.runs.append(runId, completedRun(runId, 1));
    expect(store.runs.capabilities.chain).toBeUndefined();
    const text = fs.readFileSync((await store.locateRun(runId)) as string, 'utf8');
    expect(text).not.toContain('"chain"');
    expect(await store.readErasures()).toEqual([]);
  });

  it('refuses a chain option that is not false, true or strict, naming the field', () => {
    const directory = temporaryDirectory();
    cleanups.push(directory.remove);
    let error: unknown;
    try {
      createFsStore({ root: directory.path, chain: 'yes' as never });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(String((error as Error).message)).toMatch(/chain/);
  });

  it('a store opened later continues the chain from the file, and a run begun unchained verifies from its first chained line', async () => {
    const { root, store: plain } = fresh();
    const runId = runIdFor(0x81);
    const records = completedRun(runId, 6);
    await plain.runs.append(runId, records.slice(0, 3));
    await plain.close();
    const chained = openAt(root, { chain: true });
    await chained.runs.append(runId, records.slice(3, 5));
    await chained.close();
    // Another store (another process's view): it resumes from the tail under the run lock.
    const again = openAt(root, { chain: true });
    await again.runs.append(runId, records.slice(5));
    expect((await again.runs.read(runId)).records).toEqual(records);
    const report = verify('run', runId, (await again.readRunChain(runId)) ?? []);
    expect(report.findings).toMatchObject([
      { finding: 'unchained', severity: 'info', from: 1, to: 3, verified_from: 4 },
    ]);
    expect(report.ok).toBe(true);
  });

  it('redaction and deletion are recorded in sessions/erasures.jsonl, itself a chained stream that verifies clean', async () => {
    const { root, store } = fresh({ chain: true });
    const runId = runIdFor(0x82);
    const records = completedRun(runId, 2);
    records.splice(1, 0, agentEvent(runId, 5, { event: { type: 'text', content: SECRET } }));
    await store.runs.append(runId, records);
    await store.runs.redact(runId);
    await store.runs.delete(runId);
    const lines = await store.readErasureChain();
    expect(lines).toHaveLength(2);
    expect(fs.readFileSync(`${root}/sessions/erasures.jsonl`, 'utf8')).not.toContain(SECRET);
    const report = verify('erasures', 'fs', lines);
    expect(report.findings).toEqual([]);
    const erasures = await store.readErasures();
    expect(erasures).toMatchObject([
      { op: 'redact', by: { api: 'RunStore.redact' }, mode: 'secrets', entries: [{ n: 2 }] },
      {
        op: 'collect',
        by: { api: 'RunStore.delete' },
        reason: 'deletion',
        through: { n: records.length },
      },
    ]);
    for (const entry of erasures) expect(Object.hasOwn(entry, 'chain')).toBe(false);
    // A run never chained leaves no collect entry when deleted.
    const plainId = runIdFor(0x83);
    const plain = openAt(root);
    await plain.runs.append(plainId, completedRun(plainId, 1));
    await store.runs.delete(plainId);
    expect(await store.readErasures()).toHaveLength(2);
    expect((await rejection(store.runs.read(plainId))).code).toBe('NOT_FOUND');
  });

  it('records the by a caller gives (a command and its flag names) on redact and delete, and refuses a malformed one', async () => {
    const { store } = fresh({ chain: true });
    const runId = runIdFor(0x84);
    const records = completedRun(runId, 2);
    records.splice(1, 0, agentEvent(runId, 5, { event: { type: 'text', content: SECRET } }));
    await store.runs.append(runId, records);
    const bad = await rejection(store.runs.redact(runId, { by: { command: '' } as never }));
    expect(bad.code).toBe('VALIDATION_ERROR');
    expect(bad.message).toMatch(/by/);
    const badDelete = await rejection(store.runs.delete(runId, { by: { flags: [] } as never }));
    expect(badDelete.code).toBe('VALIDATION_ERROR');
    expect(badDelete.message).toMatch(/by/);
    expect(await store.readErasures()).toEqual([]); // refused before anything was written
    await store.runs.redact(runId, {
      by: { command: 'episodic runs redact', flags: ['--mode'] },
    });
    expect(await store.runs.delete(runId, { by: { command: 'episodic runs gc', flags: [] } })).toBe(
      true,
    );
    expect(await store.readErasures()).toMatchObject([
      { op: 'redact', by: { command: 'episodic runs redact', flags: ['--mode'] } },
      { op: 'collect', by: { command: 'episodic runs gc', flags: [] } },
    ]);
  });

  it('a writer resuming from the tail continues from the highest n, not from a racing line that landed late', async () => {
    const { root, store } = fresh({ chain: true });
    const runId = runIdFor(0x86);
    const records = completedRun(runId, 70);
    await store.runs.append(runId, records.slice(0, -1));
    const path = (await store.locateRun(runId)) as string;
    const lines = fs.readFileSync(path, 'utf8').split('\n');
    // The line of n = 40 again at the end: what a writer stalled between its check and its write
    // leaves (its n long passed).
    fs.appendFileSync(path, `${lines[39]}\n`);
    const other = openAt(root, { chain: true });
    await other.runs.append(runId, records.slice(-1));
    const stored = (await other.readRunChain(runId)) ?? [];
    expect(stored.at(-1)?.text).toContain(`,"chain":{"n":${records.length},`);
  });

  it("a caller's own nested chain key stays in the header line of a run begun unchained", async () => {
    const { root, store: plain } = fresh();
    const runId = runIdFor(0x85);
    const [header, ...rest] = completedRun(runId, 1);
    const withKey = { ...header, meta: { a: 1, chain: { n: 5 } } } as typeof header;
    await plain.runs.append(runId, [withKey as NonNullable<typeof header>]);
    const chained = openAt(root, { chain: true });
    await chained.runs.append(runId, rest);
    const after = await chained.runs.readAfter(runId, 0);
    expect(after.headerLine).toBe(JSON.stringify(withKey));
    expect((await chained.runs.read(runId)).header).toEqual(withKey);
    expect((await chained.runs.list({ runIds: [runId] })).runs).toHaveLength(1);
  });

  it('deleting many chained runs appends one collect entry each, and the log stays one clean chain across stores', async () => {
    const { root, store } = fresh({ chain: true });
    const other = openAt(root, { chain: true });
    const ids = Array.from({ length: 70 }, (_, index) => runIdFor(0x100 + index));
    for (const runId of ids) await store.runs.append(runId, completedRun(runId, 1));
    // Two stores (two processes' views) share the log: each notices the other's appends.
    for (const [index, runId] of ids.entries())
      await (index % 3 === 0 ? other : store).runs.delete(runId);
    const erasures = await store.readErasures();
    expect(erasures).toHaveLength(ids.length);
    expect(new Set(erasures.map((entry) => entry.stream)).size).toBe(ids.length);
    const lines = await store.readErasureChain();
    expect(lines.at(-1)?.text).toContain('"n":70,');
    expect(verify('erasures', 'fs', lines).findings).toEqual([]);
  });

  it.each([
    ['after the journal was synced, before the erasure entry', false],
    ['after the erasure entry, before the lines were patched', true],
  ])(
    'a redaction interrupted %s is finished by the next one: one erasure entry, and the run verifies clean',
    async (_when, entryWritten) => {
      const { root, store } = fresh({ chain: true });
      const runId = runIdFor(0x84);
      const records = completedRun(runId, 2);
      records.splice(1, 0, agentEvent(runId, 5, { event: { type: 'text', content: SECRET } }));
      await store.runs.append(runId, records);
      const path = (await store.locateRun(runId)) as string;
      const original = fs.readFileSync(path);
      expect((await store.runs.redact(runId)).changedLines).toBe(1);
      const redacted = fs.readFileSync(path);
      const [entry] = await store.readErasures();
      // The state a crash leaves (section 6): the journal holds the new bytes and the entry; the run
      // file still holds the old bytes (same file: the journal names its inode); the erasure log
      // holds the entry or not yet.
      fs.writeFileSync(path, original);
      const journal = {
        ino: fs.statSync(path).ino,
        size: original.length,
        patches: [[0, redacted.toString('base64')]],
        erasure: entry,
      };
      fs.writeFileSync(`${path}.redact`, JSON.stringify(journal));
      if (!entryWritten) fs.writeFileSync(`${root}/sessions/erasures.jsonl`, '');
      const reopened = openAt(root, { chain: true });
      await reopened.runs.redact(runId);
      expect(fs.existsSync(`${path}.redact`)).toBe(false);
      expect(fs.readFileSync(path)).toEqual(redacted);
      expect(await reopened.readErasures()).toEqual([entry]);
      const report = verify(
        'run',
        runId,
        (await reopened.readRunChain(runId)) ?? [],
        await reopened.readErasures(),
      );
      expect(report.findings).toMatchObject([{ finding: 'redacted', n: 2 }]);
      expect(verify('erasures', 'fs', await reopened.readErasureChain()).findings).toEqual([]);
    },
  );
});
