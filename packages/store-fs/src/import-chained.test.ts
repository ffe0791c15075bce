// `RunStore.importChained` and `importErasures` on store-fs (docs/design/verify.md 2.6): exported
// lines written byte for byte with their proofs, every record checked first, new runs only.
import * as crypto from 'node:crypto';
import { createChainVerifier } from '@episodic/core/adapter';
import { completedRun, runIdFor } from '@episodic/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore, type FsStore, type FsStoreOptions } from './index.js';

const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest();
const RUN = runIdFor(0x5a);
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function fresh(options: Omit<FsStoreOptions, 'root'> = {}): FsStore {
  const directory = temporaryDirectory();
  cleanups.push(directory.remove);
  const store = createFsStore({ durability: 'none', ...options, root: directory.path });
  cleanups.push(() => store.close());
  return store;
}

async function chainedLines(): Promise<{ lines: string[]; store: FsStore }> {
  const store = fresh({ chain: true });
  await store.runs.append(RUN, completedRun(RUN, 3));
  await store.runs.redact(RUN, { mode: 'content' });
  return { lines: (await store.runs.readChain(RUN)).map(({ text }) => text), store };
}

describe('RunStore.importChained (store-fs)', () => {
  it('writes the lines byte for byte; with the erasure entries the run verifies as redacted', async () => {
    const { lines, store: source } = await chainedLines();
    const erasures = await source.runs.readErasures();
    expect(erasures).toHaveLength(1);
    const target = fresh({ chain: true });
    expect(await target.runs.importChained(RUN, lines)).toBe(lines.length);
    await target.runs.importErasures(erasures);
    await target.runs.importErasures(erasures);
    expect((await target.runs.readChain(RUN)).map(({ text }) => text)).toEqual(
      lines.map((line) => line.trimEnd()),
    );
    expect(await target.runs.readErasures()).toEqual(erasures);
    const report = await target.runs.verifyChain({ sha256 });
    const before = await source.runs.verifyChain({ sha256 });
    expect(report.counts.redacted).toBeGreaterThan(0);
    expect(report.counts.altered).toBe(0);
    expect(report.ok).toBe(true);
    // The run's own findings are the source's (the erasure logs differ: each home numbers its own).
    const runFindings = (found: typeof report) =>
      found.findings
        .filter((finding) => finding.stream.kind === 'run')
        .map(({ where: _, ...rest }) => rest);
    expect(runFindings(report)).toEqual(runFindings(before));
    // Reads give the records without their chain members, and appends continue the chain.
    expect((await target.runs.read(RUN)).records[0]).not.toHaveProperty('chain');
    await target.runs.append(RUN, [
      { type: 'run.status', run_id: RUN, ts: '2026-02-03T12:09:00.000Z', status: 'running' },
    ] as never);
    const after = await target.runs.verifyChain({ sha256 });
    expect(after.counts.inserted + after.counts.altered + after.counts.deleted).toBe(0);
  });

  it('refuses, writing nothing: a run that exists, a record that is not its own JSON, an unchained store', async () => {
    const { lines, store: source } = await chainedLines();
    await expect(source.runs.importChained(RUN, lines)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    const target = fresh({ chain: true });
    // A space after the brace: the same record, but not its own JSON.stringify text.
    const reordered = lines.map((line, index) =>
      index === 1 ? line.replace('{"type":', '{ "type":') : line,
    );
    expect(reordered[1]).not.toBe(lines[1]);
    await expect(target.runs.importChained(RUN, reordered)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('imported run line 2'),
    });
    await expect(target.runs.importChained(RUN, ['{"type":"header"', 'x'])).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(target.runs.read(RUN)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const plain = fresh();
    await expect(plain.runs.importChained(RUN, lines)).rejects.toMatchObject({
      code: 'UNSUPPORTED',
    });
    await expect(plain.runs.readChain(RUN)).rejects.toMatchObject({ code: 'UNSUPPORTED' });
    expect(await plain.runs.readErasures()).toEqual([]);
    // A tampered line is imported as given (it is a valid record): verify names it.
    const tampered = lines.map((line, index) =>
      index === 0 ? line.replace('"started_at":"2026', '"started_at":"2025') : line,
    );
    expect(tampered[0]).not.toBe(lines[0]);
    await target.runs.importChained(RUN, tampered);
    const verifier = createChainVerifier({ sha256, erasures: await source.runs.readErasures() });
    const stream = { kind: 'run', id: RUN } as const;
    for (const { line, text } of await target.runs.readChain(RUN))
      verifier.line(stream, text, { line });
    verifier.endStream(stream);
    const errors = verifier.report().findings.filter((finding) => finding.severity === 'error');
    expect(errors).toMatchObject([{ finding: 'altered', n: 1 }]);
  });
});
