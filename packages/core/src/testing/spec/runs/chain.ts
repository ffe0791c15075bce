// `RunStoreCapabilities.chain` (docs/design/verify.md, issue #34): what a chaining run store shows
// through the public API. Every test skips, with the reason, for a store that does not declare the
// capability: no store declares it yet (the stores turn it on one by one, behind their `chain`
// option), so these pin the contract the first one must meet.
import { expect, it, type TestContext } from 'vitest';
import { type ChainReport, createChainVerifier } from '../../../chain/index.js';
import type { RunRecord } from '../../../schema/run-record.js';
import { agentEvent, completedRun, headerFor, runIdFor } from '../../run-fixtures.js';
import type { StoreHarness, StoreHarnessChain } from '../../store-harness.js';
import { expectEpisodicError, requireCapability } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

const RUN = runIdFor(0x70);
const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');

/** The harness's chain hooks, or a skip when it has none. */
function chainHooks(context: TestContext, harness: StoreHarness): StoreHarnessChain {
  if (harness.chain === undefined)
    context.skip('the harness has no chain hooks (StoreHarness.chain)');
  return harness.chain as StoreHarnessChain;
}

/** Verifies one run's stored lines with core's verifier (and the store's erasure log, if any). */
async function verifyRun(chain: StoreHarnessChain, runId: string): Promise<ChainReport> {
  const lines = await chain.readRunChain(runId);
  const erasures = (await chain.readErasures?.()) ?? [];
  const verifier = createChainVerifier({ sha256: chain.sha256, erasures });
  const stream = { kind: 'run', id: runId } as const;
  for (const { line, text } of lines ?? []) verifier.line(stream, text, { line });
  verifier.endStream(stream);
  return verifier.report();
}

const errorsOf = (report: ChainReport) =>
  report.findings.filter((finding) => finding.severity === 'error');

/** Registers the tests of a chaining run store. */
export function runChainTests({ open, capabilities }: ContractGroup<'runs'>): void {
  it('a chaining store reads records back without their chain member, exactly as appended', async (context) => {
    const { store } = await open(context);
    requireCapability(context, store.capabilities.chain, 'chain (RunStoreCapabilities)');
    const records = completedRun(RUN, 2);
    await store.append(RUN, records);
    const read = await store.read(RUN);
    expect(read.records).toEqual(records);
    for (const record of read.records) expect(Object.hasOwn(record, 'chain')).toBe(false);
    const tail = await store.tail(RUN, { count: 2 });
    for (const record of tail.records) expect(Object.hasOwn(record, 'chain')).toBe(false);
  });

  it('a chaining store skips a repeated identical header (its chain member differs) and refuses a record that carries a chain member', async (context) => {
    const { store } = await open(context);
    requireCapability(context, store.capabilities.chain, 'chain (RunStoreCapabilities)');
    const records = completedRun(RUN, 2);
    await store.append(RUN, records);
    await store.append(RUN, [records[0] as RunRecord, agentEvent(RUN, 9)]);
    expect((await store.read(RUN)).records).toHaveLength(records.length + 1);
    const forged = { ...agentEvent(RUN, 10), chain: { n: 99 } } as RunRecord;
    const error = await expectEpisodicError(store.append(RUN, [forged]), 'VALIDATION_ERROR');
    expect(error.message).toMatch(/chain/);
    expect((await store.read(RUN)).records).toHaveLength(records.length + 1);
  });

  it("what a chaining store keeps verifies clean with core's verifier, run.end storing the head", async (context) => {
    const { store, harness } = await open(context);
    requireCapability(context, store.capabilities.chain, 'chain (RunStoreCapabilities)');
    const chain = chainHooks(context, harness);
    const records = completedRun(RUN, 70);
    await store.append(RUN, records.slice(0, 20));
    await store.append(RUN, records.slice(20));
    const report = await verifyRun(chain, RUN);
    expect(report.findings).toEqual([]);
    expect(report.verified.entries).toBe(records.length);
    const lines = (await chain.readRunChain(RUN)) ?? [];
    expect(lines[0]?.text).toMatch(/,"chain":\{"n":1,"k":"[\w-]{22}","s":"/);
    expect(lines.at(-1)?.text).toMatch(/"h":"[\w-]{43}"\}\}$/);
    expect(await chain.readRunChain(runIdFor(0x7f))).toBeNull();
  });

  it('plain appends from two real processes to one run verify with no error (forks are warnings; none when strict)', async (context) => {
    requireCapability(context, capabilities.crossProcess, 'crossProcess');
    const { store, harness } = await open(context);
    requireCapability(context, store.capabilities.chain, 'chain (RunStoreCapabilities)');
    const chain = chainHooks(context, harness);
    const runInChild = harness.runInChild;
    if (runInChild === undefined) throw new Error('capabilities.crossProcess needs runInChild');
    const runId = runIdFor(0x72);
    await store.append(runId, [headerFor(runId)]);
    const count = 300;
    // Both start at one instant (after their start-up), so their appends interleave.
    const startAtMs = Date.now() + 1500;
    await Promise.all(
      [0, 1].map((writer) =>
        runInChild({ kind: 'run-plain-append', runId, writer, count, startAtMs }),
      ),
    );
    const read = await store.read(runId);
    expect(read.errors).toEqual([]);
    expect(read.position).toBe(1 + 2 * count);
    const report = await verifyRun(chain, runId);
    expect(errorsOf(report)).toEqual([]);
    const forks = report.counts.forked;
    // Counted, never silent: a fork is two valid lines with one n (two appenders at one instant).
    // biome-ignore lint/suspicious/noConsole: the count is printed, never silent (verify.md 8.3)
    console.log(`runs/chain: ${forks} forked warning(s) over ${2 * count} racing plain appends`);
    if (chain.strict === true) expect(forks).toBe(0);
    expect(report.findings.every((finding) => finding.finding === 'forked')).toBe(true);
  });

  it('a redaction of a chained run verifies clean, with a redacted finding from the erasure log; a deleted run verifies as collected', async (context) => {
    const { store, harness } = await open(context);
    requireCapability(context, store.capabilities.chain, 'chain (RunStoreCapabilities)');
    requireCapability(context, store.capabilities.redaction, 'redaction (RunStoreCapabilities)');
    const chain = chainHooks(context, harness);
    const readErasures = chain.readErasures;
    if (readErasures === undefined) {
      context.skip('the harness reads no erasure log');
      return;
    }
    const records = completedRun(RUN, 3);
    records.splice(2, 0, agentEvent(RUN, 8, { event: { type: 'text', content: SECRET } }));
    await store.append(RUN, records);
    const before = (await chain.readRunChain(RUN)) ?? [];
    expect((await store.redact(RUN)).changedLines).toBe(1);

    const after = (await chain.readRunChain(RUN)) ?? [];
    expect(after.map(({ text }) => text.length)).toEqual(before.map(({ text }) => text.length));
    expect(after[2]?.text).not.toContain(SECRET);
    expect(after[2]?.text).toMatch(/"r":"[\w-]{22}"/);
    expect(after[2]?.text).not.toMatch(/"s":"/);
    const erasures = (await readErasures()) as Array<{
      op: string;
      id: string;
      entries?: unknown[];
    }>;
    expect(erasures).toMatchObject([{ op: 'redact', entries: [{ n: 3 }] }]);
    expect(after[2]?.text).toContain(`"r":"${erasures[0]?.id}"`);
    const report = await verifyRun(chain, RUN);
    expect(errorsOf(report)).toEqual([]);
    expect(report.findings).toMatchObject([
      { finding: 'redacted', severity: 'info', n: 3, redaction: { erasure: erasures[0]?.id } },
    ]);
    // Redacting again changes nothing and records nothing.
    expect((await store.redact(RUN)).changedLines).toBe(0);
    expect(await readErasures()).toHaveLength(1);
    // An edit Episodic did not make is still named.
    const edited = after.map((line, index) =>
      index === 1 ? { ...line, text: line.text.replace('"type":', '"type" :') } : line,
    );
    const editedReport = await verifyRun({ ...chain, readRunChain: async () => edited }, RUN);
    expect(errorsOf(editedReport)).toMatchObject([{ finding: 'altered', n: 2 }]);

    expect(await store.delete(RUN)).toBe(true);
    const collected = await verifyRun(chain, RUN);
    expect(errorsOf(collected)).toEqual([]);
    expect(collected.findings).toMatchObject([
      { finding: 'collected', severity: 'info', to: records.length },
    ]);
    expect(await readErasures()).toMatchObject([
      { op: 'redact' },
      { op: 'collect', through: { n: records.length } },
    ]);
  });

  it('RunStore.verifyChain verifies every run the store lists, or one, and a runId', async (context) => {
    const { store, harness } = await open(context);
    if (store.capabilities.chain !== true) {
      // A store that does not chain says so, and how to turn it on.
      const error = await expectEpisodicError(
        store.verifyChain({ sha256: () => new Uint8Array(32) }),
        'UNSUPPORTED',
      );
      expect(error.message).toMatch(/chain/);
      return;
    }
    const chain = chainHooks(context, harness);
    const other = runIdFor(0x73);
    const first = completedRun(RUN, 3);
    const second = completedRun(other, 70);
    await store.append(RUN, first);
    await store.append(other, second);
    const report = await store.verifyChain({ sha256: chain.sha256 });
    expect(report.findings).toEqual([]);
    expect(report.ok).toBe(true);
    // Both runs (and the erasure log's own lines when it has any).
    expect(report.verified.entries).toBeGreaterThanOrEqual(first.length + second.length);
    const one = await store.verifyChain({ sha256: chain.sha256, runId: RUN.toUpperCase() });
    expect(one.verified.entries).toBe(first.length);
    expect(one.verified.streams).toBe(1);
    await expectEpisodicError(
      store.verifyChain({ sha256: chain.sha256, runId: runIdFor(0x7e) }),
      'NOT_FOUND',
    );
    const bad = await expectEpisodicError(
      store.verifyChain({ sha256: 'sha256' as never }),
      'VALIDATION_ERROR',
    );
    expect(bad.message).toMatch(/sha256/);
    await expectEpisodicError(
      store.verifyChain({ sha256: chain.sha256, runId: RUN, runIds: [other] }),
      'VALIDATION_ERROR',
    );
    if (store.capabilities.redaction !== true || chain.readErasures === undefined) return;
    // A run collected whole is named (by its key) in a whole-store report, never in another
    // run's: a report of the runs named holds only their own erasure entries.
    expect(await store.delete(other)).toBe(true);
    const whole = await store.verifyChain({ sha256: chain.sha256 });
    expect(whole.findings).toMatchObject([{ finding: 'collected', severity: 'info' }]);
    const mine = await store.verifyChain({ sha256: chain.sha256, runIds: [RUN, other] });
    expect(mine.findings).toEqual([]);
    expect(mine.verified.streams).toBe(1);
  });
  it('importChained writes the lines of a chaining store byte for byte (the same proofs), and appends continue the chain', async (context) => {
    const { store: source, harness } = await open(context);
    requireCapability(context, source.capabilities.chain, 'chain (RunStoreCapabilities)');
    chainHooks(context, harness);
    // Past a segment boundary, so the resumed chain holds a stored head.
    const records = completedRun(RUN, 70);
    await source.append(RUN, records);
    const lines = (await source.readChain(RUN)).map(({ text }) => text);
    const { store: target, harness: targetHarness } = await open(context);
    expect(await target.importChained(RUN.toUpperCase(), lines)).toBe(lines.length);
    expect((await target.readChain(RUN)).map(({ text }) => text)).toEqual(lines);
    expect((await target.read(RUN)).records).toEqual(records);
    await target.append(RUN, [agentEvent(RUN, 500)]);
    const report = await verifyRun(chainHooks(context, targetHarness), RUN);
    expect(errorsOf(report)).toEqual([]);
    expect(report.verified.entries).toBe(lines.length + 1);
    await expectEpisodicError(target.importChained(RUN, lines), 'CONFLICT');
    // Every line is checked before anything is written.
    const other = runIdFor(0x71);
    await expectEpisodicError(target.importChained(other, lines), 'VALIDATION_ERROR');
    const spaced = lines.map((line, index) =>
      index === 2 ? line.replace('{"type":', '{ "type":') : line,
    );
    const error = await expectEpisodicError(source.importChained(RUN, spaced), 'VALIDATION_ERROR');
    expect(error.message).toMatch(/imported run line/);
    await expectEpisodicError(target.read(other), 'NOT_FOUND');
    await expectEpisodicError(target.importChained(other, []), 'VALIDATION_ERROR');
  });
}
