// The verifier fold on row streams (session bases and deltas, ledger events), on collections from
// inside a stream, and on damaged input.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { thrownError } from '../__fixtures__/episodic-errors.js';
import {
  type ChainMember,
  type ChainState,
  chainCanonicalJson,
  chainStateHead,
  createChainVerifier,
  createChainWriter,
  genesisHead,
  newChainState,
  rowCommitment,
  segmentHead,
} from './index.js';

const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());
const random = () => crypto.getRandomValues(new Uint8Array(16));
const session = { kind: 'session', id: 'sess-1' } as const;
const ledger = { kind: 'ledger', scope: 'p', session_id: 's' } as const;
const delta = (revision: number) => ({
  revision,
  updated_at: '2026-11-29T09:12:03.004Z',
  episodes: [{ id: revision, type: 'item', payload: { text: `turn ${revision}` } }],
});

/** `count` chained rows of `kind` from `state`. */
function rows(kind: 'session' | 'ledger', count: number, state: ChainState = newChainState()) {
  const writer = createChainWriter({ sha256, randomSalt: random });
  const out: Array<{ n: number; chain: ChainMember; value: Record<string, unknown> }> = [];
  let current = state;
  for (let index = 0; index < count; index++) {
    const n = current.n + 1;
    const value =
      kind === 'session' ? delta(n) : { event_id: `e${n}`, type: 'tool.result', summary: `r${n}` };
    const stamp = writer.stampRow(current, chainCanonicalJson(kind, value));
    out.push({ n, chain: stamp.chain, value: { ...value, chain: stamp.chain } });
    current = stamp.state;
  }
  return { rows: out, state: current };
}

describe('chain verifier: session bases and deltas', () => {
  it('a base carries heads and open commitments; later deltas continue its segment; its seal covers its content', () => {
    const { rows: deltas } = rows('session', 130);
    const key = deltas[0]?.chain.k as string;
    const h1 = deltas[63]?.chain.h as string;
    const h2 = deltas[127]?.chain.h as string;
    const salt = 'xRsdlnVSQQOaSZR9lL22Vg';
    // A fold at revision 129: the base takes in revisions 1–129.
    const base = { messages: ['…'], revision: 129 };
    const seal = rowCommitment(sha256, salt, 129, chainCanonicalJson('session', base));
    const baseChain = {
      k: key,
      n: 129,
      heads: [h1, h2],
      open: [deltas[128]?.chain.c as string],
      s: salt,
      c: seal,
    };
    const verify = (baseValue: unknown, chain: unknown = baseChain) => {
      const verifier = createChainVerifier({ sha256 });
      verifier.base(session, { chain, value: baseValue }, { file: 'sess-1.json' });
      verifier.row(session, deltas[129] as (typeof deltas)[0], {
        file: 'sess-1.deltas.jsonl',
        line: 1,
      });
      const summary = verifier.endStream(session);
      return { report: verifier.report(), summary };
    };
    const clean = verify(base);
    expect(clean.report.findings).toEqual([]);
    expect(clean.summary).toMatchObject({ key, n: 130, boundary: { n: 128, h: h2 } });
    expect(clean.summary.head).toBe(
      segmentHead(sha256, h2, 130, [
        deltas[128]?.chain.c as string,
        deltas[129]?.chain.c as string,
      ]),
    );
    expect(verify({ ...base, messages: ['edited'] }).report.findings).toMatchObject([
      { finding: 'altered', n: 129, detail: expect.stringMatching(/seal/) },
    ]);
    expect(verify(base, { ...baseChain, heads: [h1] }).report.findings).toMatchObject([
      {
        finding: 'altered',
        detail: expect.stringMatching(/heads must hold one head per complete segment/),
      },
    ]);
    // A base without a chain field is an unchained stream; a base after deltas is a caller error.
    const verifier = createChainVerifier({ sha256 });
    verifier.base(session, { chain: undefined, value: base });
    expect(verifier.report().streams).toMatchObject({ unchained: 1 });
    const late = createChainVerifier({ sha256 });
    late.row(session, deltas[0] as (typeof deltas)[0]);
    expect(
      thrownError(() => late.base(session, { chain: baseChain, value: base })).message,
    ).toMatch(/Feed a session's base before its deltas/);
  });
});

describe('chain verifier: ledger rows', () => {
  it('entries collected from inside a stream count by their commitments from the erasure log', () => {
    const { rows: events } = rows('ledger', 70);
    const key = events[0]?.chain.k as string;
    const collectedNs = [5, 6, 7, 64, 65];
    const collect = {
      op: 'collect',
      at: '2026-11-29T12:00:00.000Z',
      by: { command: 'episodes gc', flags: ['--type'] },
      id: 'OAccrEPLowjzTGZTCNYJ-Q',
      stream: key,
      reason: 'retention',
      entries: collectedNs.map((n) => ({ n, c: events[n - 1]?.chain.c as string })),
    };
    const kept = events.filter((row) => !collectedNs.includes(row.n));
    const verify = (erasures: unknown[]) => {
      const verifier = createChainVerifier({ sha256, erasures });
      for (const row of kept) verifier.row(ledger, row, { table: 'episodic_events', rowid: row.n });
      return verifier.report();
    };
    const report = verify([collect]);
    expect(report.ok).toBe(true);
    expect(report.findings.map(({ finding, from, to }) => [finding, from, to])).toEqual([
      ['collected', 5, 7],
      ['collected', 64, 65],
    ]);
    // The stored head at 64 went with its row; the one the writer stored verifies the rest.
    expect(verify([]).findings.filter((finding) => finding.severity === 'error')).toMatchObject([
      { finding: 'deleted', from: 5, to: 7 },
      { finding: 'deleted', from: 64, to: 65 },
    ]);
  });

  it("a stored end (the session's head row): a cut tail is deleted unless collected, a head its rows do not give is altered", () => {
    const { rows: events, state } = rows('ledger', 70);
    const key = events[0]?.chain.k as string;
    const stored = { n: state.n, h: chainStateHead(sha256, state) as string };
    const verify = (count: number, end: unknown, erasures: unknown[] = []) => {
      const verifier = createChainVerifier({ sha256, erasures });
      for (const row of events.slice(0, count)) verifier.row(ledger, row);
      const summary = verifier.endStream(ledger, end as typeof stored);
      return { report: verifier.report(), summary };
    };
    const whole = verify(70, stored);
    expect(whole.report.findings).toEqual([]);
    expect(whole.summary.head).toBe(stored.h);
    const cut = verify(67, stored).report;
    expect(cut.ok).toBe(false);
    expect(cut.findings).toMatchObject([
      {
        finding: 'deleted',
        n: 68,
        from: 68,
        to: 70,
        detail: expect.stringMatching(/tail was cut/),
      },
    ]);
    // Past a segment boundary, and a session with no row left.
    expect(verify(60, stored).report.findings).toMatchObject([{ finding: 'deleted', from: 61 }]);
    expect(verify(0, stored).report.findings).toMatchObject([
      { finding: 'deleted', from: 1, to: 70 },
    ]);
    // Retention took the newest rows: collected, the head still checks.
    const collect = {
      op: 'collect',
      at: '2026-11-29T12:00:00.000Z',
      by: { api: 'Ledger.gc' },
      id: 'OAccrEPLowjzTGZTCNYJ-Q',
      stream: key,
      reason: 'retention',
      entries: [69, 70].map((n) => ({ n, c: events[n - 1]?.chain.c as string })),
    };
    const collected = verify(68, stored, [collect]);
    expect(collected.report.ok).toBe(true);
    expect(collected.report.findings).toMatchObject([{ finding: 'collected', from: 69, to: 70 }]);
    expect(collected.summary).toMatchObject({ n: 70, head: stored.h });
    // Every row verifies, but the head the writer stored is another one.
    expect(verify(70, { n: 70, h: events[0]?.chain.c }).report.findings).toMatchObject([
      { finding: 'altered', n: 70, detail: expect.stringMatching(/stored head at entry 70/) },
    ]);
    const refused = thrownError(() => verify(70, { n: -1 }));
    expect(refused.details).toMatchObject({
      subject: 'stored end of a chain stream',
      issues: [{ field: 'n' }],
    });
    expect(refused.message).toMatch(/n .*\(got -1\)/);
  });

  it('a redacted row (salt gone, r set) verifies against its erasure entry; a copied row is inserted; a stored position that differs from n is altered', () => {
    const { rows: events } = rows('ledger', 3);
    const key = events[0]?.chain.k as string;
    const target = events[1] as (typeof events)[0];
    const redactedValue = { ...target.value, summary: '[REDACTED]' };
    const after = createHash('sha256')
      .update(chainCanonicalJson('ledger', redactedValue))
      .digest('base64url');
    const { s: _salt, ...rest } = target.chain;
    const erasure = {
      op: 'redact',
      at: '2026-11-29T10:04:11.210Z',
      by: { api: 'Ledger.redact', label: 'gdpr-42' },
      id: 'OAccrEPLowjzTGZTCNYJ-Q',
      stream: key,
      mode: 'content',
      entries: [{ n: 2, c: target.chain.c, after }],
    };
    const verifier = createChainVerifier({ sha256, erasures: [erasure] });
    verifier.row(ledger, events[0] as (typeof events)[0]);
    verifier.row(ledger, { n: 2, chain: { ...rest, r: erasure.id }, value: redactedValue });
    verifier.row(ledger, events[2] as (typeof events)[0]);
    verifier.row(ledger, events[2] as (typeof events)[0]);
    verifier.row(ledger, { ...(events[2] as (typeof events)[0]), n: 9 });
    expect(
      verifier.report().findings.map(({ finding, n, redaction }) => [finding, n, redaction?.by]),
    ).toEqual([
      ['redacted', 2, { api: 'Ledger.redact', label: 'gdpr-42' }],
      ['inserted', 3, undefined],
      ['altered', 4, undefined],
    ]);
  });

  it('after an unchained prefix the first chained row starts from h_0 of its key', () => {
    const { rows: events, state } = rows('ledger', 2, newChainState(3));
    const key = events[0]?.chain.k as string;
    const verifier = createChainVerifier({ sha256 });
    for (const n of [1, 2, 3])
      verifier.row(ledger, { n, chain: null, value: { event_id: `o${n}` } });
    for (const row of events) verifier.row(ledger, row);
    const summary = verifier.endStream(ledger);
    expect(summary.head).toBe(segmentHead(sha256, genesisHead(sha256, key), 5, state.open));
    expect(verifier.report().findings).toMatchObject([
      { finding: 'unchained', from: 1, to: 3, verified_from: 4 },
    ]);
  });
});

describe('chain verifier: damaged lines and bad input', () => {
  const writer = createChainWriter({ sha256, randomSalt: random });
  const run = { kind: 'run', id: 'r' } as const;
  function lines(count: number) {
    let state = newChainState();
    const out: string[] = [];
    for (let index = 0; index < count; index++) {
      const stamp = writer.stampLine(state, JSON.stringify({ type: 'x', index }));
      out.push(stamp.line);
      state = stamp.state;
    }
    return out;
  }
  const verify = (stored: readonly string[]) => {
    const verifier = createChainVerifier({ sha256 });
    for (const [index, line] of stored.entries()) verifier.line(run, line, { line: index + 1 });
    return verifier.report();
  };

  it('a torn last line is a warning; the same bytes before another line are an error', () => {
    const stored = lines(3);
    const torn = (stored[2] as string).slice(0, 40);
    expect(verify([...stored.slice(0, 2), torn]).findings).toMatchObject([
      { finding: 'unreadable', severity: 'warning', where: { line: 3 } },
    ]);
    const middle = verify([stored[0] as string, torn, stored[2] as string]);
    expect(middle.ok).toBe(false);
    expect(middle.findings).toMatchObject([{ finding: 'altered', n: 2, where: { line: 2 } }]);
  });

  it('a line copied twice is inserted (a copy, not a fork)', () => {
    const stored = lines(3);
    expect(verify([...stored, stored[2] as string]).findings).toMatchObject([
      {
        finding: 'inserted',
        n: 3,
        other: { n: 3, where: { line: 3 } },
        detail: 'a copy of entry 3',
      },
    ]);
  });

  it('refuses what is not a stream, a line or a place, naming the field', () => {
    const verifier = createChainVerifier({ sha256 });
    expect(thrownError(() => verifier.line({ kind: 'file' } as never, '{}')).details).toMatchObject(
      {
        subject: 'chain stream',
      },
    );
    expect(thrownError(() => verifier.line(run, 42 as never)).message).toMatch(
      /Pass the stored line as a string or Uint8Array/,
    );
    expect(thrownError(() => verifier.line(run, '{}', { line: 0 })).details).toMatchObject({
      subject: 'chain entry location',
    });
    expect(thrownError(() => createChainVerifier({ sha256, maxFindings: -1 })).code).toBe(
      'VALIDATION_ERROR',
    );
  });

  it('caps the findings kept, never the counts', () => {
    const stored = lines(5).map((line) => line.replace('"x"', '"y"'));
    const verifier = createChainVerifier({ sha256, maxFindings: 2 });
    for (const line of stored) verifier.line(run, line);
    const report = verifier.report();
    expect(report).toMatchObject({ ok: false, truncated: true, counts: { altered: 5 } });
    expect(report.findings).toHaveLength(2);
  });
});

describe('chain verifier: stream identity', () => {
  it('a ref object reused for another stream (changed in place) is that other stream', () => {
    const writer = createChainWriter({ sha256, randomSalt: random });
    const one = writer.stampLine(newChainState(), '{"type":"a"}').line;
    const other = writer.stampLine(newChainState(), '{"type":"b"}').line;
    const verifier = createChainVerifier({ sha256 });
    const ref: { kind: 'run'; id: string } = { kind: 'run', id: 'first' };
    verifier.line(ref, one);
    ref.id = 'second';
    verifier.line(ref, other);
    const report = verifier.report();
    expect(report.findings).toEqual([]);
    expect(report.verified.streams).toBe(2);
  });
});
