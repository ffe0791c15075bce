// `LedgerCapabilities.chain` (docs/design/verify.md, issue #34): a chaining ledger's events verify
// clean with core's verifier, and what changed underneath it is named; what Episodic itself erased
// (redaction, retention) is reported as such, never as tampering. Every test skips, with the
// reason, for a ledger that does not declare the capability.
import { expect, it, type TestContext } from 'vitest';
import type { ChainFindingKind, ChainReport } from '../../../chain/schemas.js';
import type { Ledger } from '../../../store/ledger-store.js';
import type { StoreHarness } from '../../store-harness.js';
import { requireCapability } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { DAY, eventOf, T0 } from './fixtures.js';

const SCOPE = 'project-a';

/** The findings of a report as `[finding, n]` pairs, in report order. */
const named = (report: ChainReport) =>
  report.findings.map((finding) => [finding.finding, finding.n ?? finding.from ?? null]);

const errors = (report: ChainReport) =>
  (['altered', 'inserted', 'deleted', 'reordered', 'anchor-mismatch'] as ChainFindingKind[]).reduce(
    (sum, kind) => sum + report.counts[kind],
    0,
  );

/** Opens a chaining ledger (skips otherwise) and a `verify` over it. */
async function openChained(
  open: ContractGroup<'ledger'>['open'],
  context: TestContext,
): Promise<{
  harness: StoreHarness;
  ledger: Ledger;
  verify: (sessionId?: string) => Promise<ChainReport>;
}> {
  const { harness, store: ledger } = await open(context);
  requireCapability(context, ledger.capabilities.chain, 'chain (LedgerCapabilities)');
  const sha256 = harness.chainSha256;
  if (sha256 === undefined) throw new Error('a chaining harness sets chainSha256');
  return {
    harness,
    ledger,
    verify: (sessionId) =>
      ledger.verifyChain({
        sha256,
        scope: SCOPE,
        ...(sessionId === undefined ? {} : { sessionId }),
      }),
  };
}

/** Appends `count` events to `session`, single appends and batches mixed. */
async function fill(ledger: Ledger, session: string, count: number, prefix = session) {
  for (let n = 0; n < count; ) {
    if (n % 7 === 3 && n + 4 <= count) {
      await ledger.appendBatch(
        [0, 1, 2, 3].map((k) =>
          eventOf({ event_id: `${prefix}-${n + k}`, session_id: session, ts_ms: T0 + n + k }),
        ),
      );
      n += 4;
    } else {
      await ledger.append(
        eventOf({ event_id: `${prefix}-${n}`, session_id: session, ts_ms: T0 + n }),
      );
      n++;
    }
  }
}

/** Registers the tests of a chaining ledger. */
export function ledgerChainTests({ open, capabilities }: ContractGroup<'ledger'>): void {
  it('chained appends (single and batched, across a segment boundary) verify clean, and reads are unchanged', async (context) => {
    const { ledger, verify } = await openChained(open, context);
    await fill(ledger, 'session-1', 70);
    await fill(ledger, 'session-2', 3);
    const report = await verify();
    expect(report.findings).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.verified.entries).toBe(73);
    expect(report.streams.chained).toBe(2);
    const page = await ledger.replay('session-2', { scope: SCOPE, includePayload: true });
    expect(
      page.events.map((event) => Object.keys(event).filter((key) => key.startsWith('chain'))),
    ).toEqual([[], [], []]);
    expect((await verify('session-2')).verified.entries).toBe(3);
  });

  it('several processes appending to one session at once verify clean', async (context) => {
    const { harness, verify } = await openChained(open, context);
    requireCapability(context, capabilities.crossProcess, 'crossProcess');
    const runInChild = harness.runInChild;
    if (runInChild === undefined) throw new Error('crossProcess needs runInChild');
    const count = 40;
    const results = await Promise.all(
      [0, 1, 2, 3].map((writer) =>
        runInChild({ kind: 'ledger-append-race', scope: SCOPE, sessionId: 'race', writer, count }),
      ),
    );
    const positions = results.flatMap((result) => result.acknowledged.map((ack) => ack.position));
    expect(new Set(positions).size).toBe(4 * count);
    const report = await verify('race');
    expect(report.findings).toEqual([]);
    expect(report.verified.entries).toBe(4 * count);
  });

  it('names an event whose stored summary changed as altered, and a deleted event as deleted', async (context) => {
    const { harness, ledger, verify } = await openChained(open, context);
    const change = harness.damage?.changeLedgerRow;
    if (change === undefined) context.skip('the harness has no damage.changeLedgerRow');
    await fill(ledger, 'session-1', 10);
    await change?.('session-1-4', { summary: 'asked for stbtus' });
    const altered = await verify();
    expect(named(altered)).toEqual([['altered', 5]]);
    expect(altered.ok).toBe(false);
    expect(altered.findings[0]?.stream).toMatchObject({
      kind: 'ledger',
      scope: SCOPE,
      session_id: 'session-1',
    });
    await change?.('session-1-4', { summary: 'asked for status' });
    expect((await verify()).findings).toEqual([]);
    await change?.('session-1-7', 'delete');
    const deleted = await verify();
    expect(named(deleted)).toEqual([['deleted', 8]]);
  });

  it("a cut tail (the session's newest events deleted or moved out) is deleted, named by position", async (context) => {
    const { harness, ledger, verify } = await openChained(open, context);
    const change = harness.damage?.changeLedgerRow;
    if (change === undefined) context.skip('the harness has no damage.changeLedgerRow');
    await fill(ledger, 'session-1', 10);
    await fill(ledger, 'session-2', 1);
    await change?.('session-1-9', 'delete');
    const one = await verify('session-1');
    expect(named(one)).toEqual([['deleted', 10]]);
    expect(one.findings[0]?.detail).toMatch(/tail was cut/);
    expect(one.ok).toBe(false);
    await change?.('session-1-8', { session_id: 'elsewhere' });
    await change?.('session-1-7', 'delete');
    const range = await verify('session-1');
    expect(range.findings).toMatchObject([{ finding: 'deleted', from: 8, to: 10 }]);
    // A session whose only event is gone: its stored head still names it.
    await change?.('session-2-0', 'delete');
    expect(named(await verify('session-2'))).toEqual([['deleted', 1]]);
  });

  it('a redaction is reported as redacted by Episodic (with when and by what), with no error', async (context) => {
    const { ledger, verify } = await openChained(open, context);
    await fill(ledger, 'session-1', 5);
    await fill(ledger, 'session-2', 3);
    await ledger.redact({ scope: SCOPE, eventId: 'session-1-2' });
    await ledger.redact({ scope: SCOPE, sessionId: 'session-2' }, { replacement: 'null' });
    await ledger.redact({ scope: SCOPE, eventId: 'session-2-1' });
    const report = await verify();
    expect(errors(report)).toBe(0);
    expect(report.ok).toBe(true);
    expect(named(report)).toEqual([
      ['redacted', 3],
      ['redacted', 1],
      ['redacted', 2],
      ['redacted', 3],
    ]);
    expect(report.findings[0]?.redaction).toMatchObject({ by: { api: 'Ledger.redact' } });
  });

  it('a redacted event changed again afterwards is altered', async (context) => {
    const { harness, ledger, verify } = await openChained(open, context);
    const change = harness.damage?.changeLedgerRow;
    if (change === undefined) context.skip('the harness has no damage.changeLedgerRow');
    await fill(ledger, 'session-1', 3);
    await ledger.redact({ scope: SCOPE, eventId: 'session-1-1' });
    await change?.('session-1-1', { summary: 'put back' });
    expect(named(await verify())).toEqual([['altered', 2]]);
  });

  it('retention is reported as collected: events from inside a session, and a whole session', async (context) => {
    const { ledger, verify } = await openChained(open, context);
    const old = T0 - 400 * DAY;
    for (let n = 0; n < 6; n++)
      await ledger.append(
        eventOf({
          event_id: `mixed-${n}`,
          session_id: 'mixed',
          type: n % 2 === 0 ? 'tool.result' : 'ops.decision',
          ts_ms: old + n,
        }),
      );
    await ledger.append(eventOf({ event_id: 'gone-0', session_id: 'gone', ts_ms: old }));
    await ledger.append(eventOf({ event_id: 'gone-1', session_id: 'gone', ts_ms: old + 1 }));
    const gc = await ledger.gc({ scope: SCOPE, nowMs: T0 });
    expect(gc.deleted_total).toBe(5);
    const report = await verify();
    expect(errors(report)).toBe(0);
    expect(report.counts.collected).toBe(4);
    expect(report.streams.collected).toBe(1);
    // The emptied session starts a new stream, which verifies on its own.
    await ledger.append(eventOf({ event_id: 'gone-2', session_id: 'gone', ts_ms: T0 }));
    const again = await verify();
    expect(errors(again)).toBe(0);
    expect(again.streams.chained).toBe(2);
  });

  it('events from before chaining was on are an unchained prefix: "verified from" the first chained one', async (context) => {
    const { harness, ledger, verify } = await openChained(open, context);
    const unchained = harness.unchainedLedger;
    if (unchained === undefined) context.skip('the harness has no unchainedLedger');
    await unchained?.append(eventOf({ event_id: 'before-0', ts_ms: T0 - 2 }));
    await unchained?.append(eventOf({ event_id: 'before-1', ts_ms: T0 - 1 }));
    await fill(ledger, 'session-1', 4, 'after');
    const report = await verify();
    expect(report.ok).toBe(true);
    expect(report.findings).toMatchObject([
      { finding: 'unchained', severity: 'info', from: 1, to: 2, verified_from: 3 },
    ]);
  });

  it("another program's events in a chained session are unchained information; the session still verifies", async (context) => {
    const { harness, ledger, verify } = await openChained(open, context);
    const insert = harness.damage?.insertForeignLedgerRow;
    if (insert === undefined) context.skip('the harness has no damage.insertForeignLedgerRow');
    const foreign = (n: number) =>
      insert?.({
        event_id: `foreign-${n}`,
        scope: SCOPE,
        session_id: 'session-1',
        ts_ms: T0 + n,
        summary: `theirs ${n}`,
      });
    await foreign(0);
    await fill(ledger, 'session-1', 3, 'ours-a');
    await foreign(1);
    await foreign(2);
    // Past a segment boundary, with their rows inside the segment.
    await fill(ledger, 'session-1', 66, 'ours-b');
    await foreign(3);
    const report = await verify();
    expect(errors(report)).toBe(0);
    expect(report.findings).toMatchObject([
      { finding: 'unchained', from: 1, to: 1, verified_from: 2 },
      { finding: 'unchained', from: 5, to: 6 },
      { finding: 'unchained', from: 73, to: 73 },
    ]);
  });
}
