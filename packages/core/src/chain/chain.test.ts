import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { thrownError } from '../__fixtures__/episodic-errors.js';
import {
  anchorSigningText,
  CHAIN_SEGMENT,
  type ChainMember,
  chainCanonicalJson,
  createChainVerifier,
  createChainWriter,
  erasureEntrySchema,
  genesisHead,
  ledgerChainCanonicalJson,
  ledgerChainValue,
  newChainState,
  parseChainLine,
  resumeChainState,
  rowCommitment,
  segmentHead,
  verifyReceiptSchema,
} from './index.js';

const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());
const fromB64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64url'));
const b64Digest = (text: string) => createHash('sha256').update(text).digest('base64url');

/** A writer whose salts (and stream key) are the given ids, in order. */
function fixedWriter(ids: readonly string[]) {
  let next = 0;
  return createChainWriter({
    sha256,
    randomSalt: () => fromB64(ids[next++ % ids.length] as string),
  });
}

const RUN_ID = '8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a';
const HEADER = JSON.stringify({
  type: 'header',
  schema_version: 1,
  run_id: RUN_ID,
  started_at: '2026-02-03T12:00:00.123Z',
  client: { name: 'tui', version: '0.1.0' },
});
const START = JSON.stringify({
  type: 'run.start',
  run_id: RUN_ID,
  ts: '2026-02-03T12:00:00.456Z',
  input: { type: 'text', text: 'deploy with token sk-live-4f9a' },
});
const KEY = 'HZnmWP_bvZzaU2HRo05T0A';
const run = { kind: 'run', id: RUN_ID } as const;

describe('chain formulas: test vectors (docs/design/verify.md section 2 pins these lines)', () => {
  it('stamps the design examples byte for byte: k on the first line, c over the line through its salt', () => {
    const writer = fixedWriter([KEY, 'OPGhvlZWdY1tZywyJ-mH4A', 'xsQwc3DnDQu-s743wcz_Lw']);
    const first = writer.stampLine(newChainState(), HEADER);
    expect(first.line).toBe(
      `${HEADER.slice(0, -1)},"chain":{"n":1,"k":"${KEY}","s":"OPGhvlZWdY1tZywyJ-mH4A","c":"IJ2ltH1vCzl3hWV_tP2t9FfhmQPxjOqB6SNzwLCbPMg"}}`,
    );
    const second = writer.stampLine(first.state, START);
    expect(second.line).toBe(
      `${START.slice(0, -1)},"chain":{"n":2,"s":"xsQwc3DnDQu-s743wcz_Lw","c":"5R-suxyDK06RVxlgv_B0IFslmmuEkms9fnirc9L6zB4"}}`,
    );
    // The commitment is the plain SHA-256 of the line's prefix through the salt's closing quote.
    const prefix = second.line.slice(0, second.line.indexOf(',"c":'));
    expect(second.chain.c).toBe(b64Digest(prefix));
    expect(second.state).toEqual({
      n: 2,
      key: KEY,
      head: null,
      open: [first.chain.c, second.chain.c],
    });
  });

  it('row commitments, the genesis head and segment heads follow section 1.2 exactly', () => {
    const delta = {
      revision: 8,
      updated_at: '2026-11-29T09:12:03.004Z',
      run_id: RUN_ID,
      episodes: [
        {
          id: 45,
          type: 'item',
          meta: { source: 'user', ts: '2026-11-29T09:12:02.990Z' },
          payload: { item: { type: 'message', role: 'user', content: 'and the tests?' } },
        },
      ],
      episode_count: 45,
    };
    const canonical = chainCanonicalJson('session', { ...delta, chain: { n: 8 } });
    expect(rowCommitment(sha256, 'xRsdlnVSQQOaSZR9lL22Vg', 8, canonical)).toBe(
      'dAWMFwVsWVspOJH6mq_Z02mDfMwWtdTr7RU52u4k9gQ',
    );
    expect(rowCommitment(sha256, 'xRsdlnVSQQOaSZR9lL22Vg', 8, canonical)).toBe(
      b64Digest(`episodic.chain.v1 entry\nxRsdlnVSQQOaSZR9lL22Vg\n8\n${canonical}`),
    );
    expect(genesisHead(sha256, KEY)).toBe('W6gC77VVQ9zPv7fPWv248ATYSfsgPn4T3VgBsemu27k');
    expect(genesisHead(sha256, KEY)).toBe(b64Digest(`episodic.chain.v1 genesis\n${KEY}`));
    const g = genesisHead(sha256, KEY);
    expect(segmentHead(sha256, g, 2, ['a', 'b'])).toBe(
      b64Digest(`episodic.chain.v1 head\n${g}\n2\na\nb`),
    );
    // A ledger event's commitment covers its listed fields only (not position or redacted).
    expect(
      chainCanonicalJson('ledger', { event_id: 'e1', position: 4, redacted: 0, summary: 's' }),
    ).toBe(
      '{"agent_id":null,"created_at":null,"event_id":"e1","metadata":null,"payload":null,"refs":null,"schema_version":null,"scope":null,"session_id":null,"summary":"s","ts_ms":null,"type":null}',
    );
  });

  it("a ledger row's canonical JSON: the JSON columns as their stored text; the direct writer gives the general canonical JSON", () => {
    const rows = [
      {
        event_id: '01KE0Y8E00ASKEDFORSTATUS0',
        ts_ms: 1767225600000,
        scope: 'p',
        session_id: 's "quoted" \\ ✓ \ud800',
        agent_id: 'a\n\u0000',
        type: 'tool.result',
        summary: 'ünïcödé 🎉 </script>',
        payload_json: '{"b":1,"a":"x"}',
        refs_json: null,
        metadata_json: '{"k":"v"}',
        schema_version: 'episodic.ledger.v0',
        created_at: '2026-01-01T00:00:00.000Z',
      },
      // As PostgreSQL returns a bigint, and a row whose payload was not selected.
      {
        ...{ event_id: 'e', scope: 's', session_id: 's', agent_id: 'a', type: 't', summary: '' },
        ts_ms: '-0',
        refs_json: '[]',
        metadata_json: null,
        schema_version: 'v',
        created_at: 'c',
      },
    ];
    for (const row of rows) {
      const text = ledgerChainCanonicalJson(row);
      expect(text).toBe(chainCanonicalJson('ledger', ledgerChainValue(row)));
      expect(JSON.parse(text)).toMatchObject({
        payload: row.payload_json ?? null,
        ts_ms: Number(row.ts_ms) + 0,
      });
    }
    // Not the shape core writes (a number where text is stored): the general path still answers.
    const odd = { ...(rows[1] as (typeof rows)[1]), summary: 7 as unknown as string };
    expect(ledgerChainCanonicalJson(odd)).toBe(chainCanonicalJson('ledger', ledgerChainValue(odd)));
  });

  it('stores the head every 64th entry and on request, from h_0, and restarts the segment after it', () => {
    const writer = createChainWriter({
      sha256,
      randomSalt: () => crypto.getRandomValues(new Uint8Array(16)),
    });
    let state = newChainState();
    const chains: ChainMember[] = [];
    for (let index = 1; index <= 130; index++) {
      const stamp = writer.stampLine(state, JSON.stringify({ type: 'x', index }), {
        head: index === 130,
      });
      chains.push(stamp.chain);
      state = stamp.state;
    }
    const key = chains[0]?.k as string;
    const h1 = segmentHead(
      sha256,
      genesisHead(sha256, key),
      64,
      chains.slice(0, 64).map((c) => c.c),
    );
    const h2 = segmentHead(
      sha256,
      h1,
      128,
      chains.slice(64, 128).map((c) => c.c),
    );
    expect(chains[63]?.h).toBe(h1);
    expect(chains[127]?.h).toBe(h2);
    expect(chains[129]?.h).toBe(
      segmentHead(
        sha256,
        h2,
        130,
        chains.slice(128).map((c) => c.c),
      ),
    );
    expect(chains.filter((chain) => chain.h !== undefined)).toHaveLength(3);
    expect(chains.filter((chain) => chain.k !== undefined)).toHaveLength(1);
    expect(state).toMatchObject({ n: 130, key, head: h2 });
    expect(state.open).toHaveLength(2);
    // A writer that lost its memory resumes from the tail since the last boundary.
    expect(resumeChainState(chains.slice(127), key)).toEqual(state);
    expect(resumeChainState(chains.slice(0, 10))).toEqual(
      resumeChainState(chains.slice(0, 10), 'ignored-when-k-is-there'),
    );
    expect(thrownError(() => resumeChainState(chains.slice(100), key)).message).toMatch(
      /neither the stream's first chained entry/,
    );
    expect(thrownError(() => resumeChainState([chains[127], chains[129]], key)).message).toMatch(
      /n 130 after n 128/,
    );
    expect(CHAIN_SEGMENT).toBe(64);
  });

  it('starts after an unchained prefix with the key and h_0, keeping n equal to the position', () => {
    const writer = fixedWriter([KEY, 'OPGhvlZWdY1tZywyJ-mH4A']);
    const stamp = writer.stampRow(newChainState(140), '{"a":1}');
    expect(stamp.chain).toEqual({
      n: 141,
      k: KEY,
      s: 'OPGhvlZWdY1tZywyJ-mH4A',
      c: rowCommitment(sha256, 'OPGhvlZWdY1tZywyJ-mH4A', 141, '{"a":1}'),
    });
  });
});

describe('chain writer: input errors', () => {
  const writer = createChainWriter({ sha256, randomSalt: () => new Uint8Array(16) });
  it('refuses a record that carries its own chain member, text that is not an object, and a bad state', () => {
    const own = thrownError(() =>
      writer.stampLine(newChainState(), '{"type":"x","chain":{"n":1}}'),
    );
    expect(own.code).toBe('VALIDATION_ERROR');
    expect(own.message).toMatch(/already carries a chain member/);
    // A key named chain deeper in the record is the caller's content, not a member.
    expect(writer.stampLine(newChainState(), '{"type":"x","meta":{"chain":1}}').chain.n).toBe(1);
    expect(thrownError(() => writer.stampLine(newChainState(), '{}')).message).toMatch(
      /non-empty object/,
    );
    const state = thrownError(() =>
      writer.stampLine({ n: 3, key: null, head: null, open: ['x'] }, '{"a":1}'),
    );
    expect(state.details).toMatchObject({ subject: 'chain state' });
  });
  it('refuses options that are not functions and salts that are not 16 bytes', () => {
    expect(
      thrownError(() =>
        createChainWriter({ sha256: 'x' as never, randomSalt: () => new Uint8Array(16) }),
      ).details,
    ).toMatchObject({ subject: 'chain writer options' });
    const short = createChainWriter({ sha256, randomSalt: () => new Uint8Array(8) });
    expect(thrownError(() => short.stampRow(newChainState(), '{}')).message).toMatch(
      /returned 8 bytes, not 16/,
    );
  });
});

describe('chain lines: the fast-path reader', () => {
  it('reads n, k, the salt or erasure id, c and h from the end of the line, and says where the hashed bytes end', () => {
    const writer = fixedWriter([KEY, 'OPGhvlZWdY1tZywyJ-mH4A']);
    const { line, chain } = writer.stampLine(newChainState(), HEADER, { head: true });
    const bytes = new TextEncoder().encode(line);
    const parsed = parseChainLine(bytes);
    expect(parsed).toMatchObject({ kind: 'chained', ...chain, s: '', contentEnd: bytes.length });
    if (parsed.kind !== 'chained') throw new Error('unreachable');
    expect(line.slice(0, parsed.hashedEnd)).toBe(line.slice(0, line.indexOf(',"c":')));
    expect(parseChainLine(new TextEncoder().encode(HEADER))).toEqual({ kind: 'none' });
    expect(parseChainLine(new TextEncoder().encode(line.replace('"n":1', '"n":01')))).toMatchObject(
      {
        kind: 'malformed',
      },
    );
    expect(parseChainLine(new TextEncoder().encode(`${line.slice(0, -1)} `))).toMatchObject({
      kind: 'malformed',
    });
  });
});

describe('chain verifier', () => {
  function stamped(count: number) {
    const writer = createChainWriter({
      sha256,
      randomSalt: () => crypto.getRandomValues(new Uint8Array(16)),
    });
    let state = newChainState();
    const lines: string[] = [];
    for (let index = 0; index < count; index++) {
      const stamp = writer.stampLine(state, JSON.stringify({ type: 'x', index }));
      lines.push(stamp.line);
      state = stamp.state;
    }
    return { lines, state, writer };
  }
  const verify = (lines: readonly string[], options: Record<string, unknown> = {}) => {
    const verifier = createChainVerifier({ sha256, ...options });
    for (const [index, line] of lines.entries())
      verifier.line(run, line, { file: 'run.jsonl', line: index + 1 });
    const summary = verifier.endStream(run);
    return { report: verifier.report(), summary };
  };

  it('a clean stream verifies with no finding, and ends at head(n)', () => {
    const { lines, state } = stamped(70);
    const { report, summary } = verify(lines);
    expect(report.findings).toEqual([]);
    expect(report).toMatchObject({
      ok: true,
      verified: { streams: 1, entries: 70 },
      streams: { chained: 1 },
    });
    expect(summary).toMatchObject({ key: state.key, n: 70, boundary: { n: 64, h: state.head } });
    expect(summary.head).toBe(segmentHead(sha256, state.head as string, 70, state.open));
  });

  it('the design redaction example: r in place of the salt, padded, explained by its erasure entry', () => {
    const writer = fixedWriter([KEY, 'OPGhvlZWdY1tZywyJ-mH4A', 'xsQwc3DnDQu-s743wcz_Lw']);
    const first = writer.stampLine(newChainState(), HEADER);
    const second = writer.stampLine(first.state, START);
    const redactedText = second.line
      .replace('sk-live-4f9a', '[REDACTED]')
      .replace('"s":"xsQwc3DnDQu-s743wcz_Lw"', '"r":"OAccrEPLowjzTGZTCNYJ-Q"');
    const padded = redactedText.padEnd(second.line.length, ' ');
    expect(padded).toBe(
      `{"type":"run.start","run_id":"${RUN_ID}","ts":"2026-02-03T12:00:00.456Z","input":{"type":"text","text":"deploy with token [REDACTED]"},"chain":{"n":2,"r":"OAccrEPLowjzTGZTCNYJ-Q","c":"5R-suxyDK06RVxlgv_B0IFslmmuEkms9fnirc9L6zB4"}}  `,
    );
    const erasure = erasureEntrySchema.parse({
      op: 'redact',
      at: '2026-11-29T10:04:11.210Z',
      by: { command: 'runs redact', flags: ['--mode'], software: '@episodic/cli 0.9.0' },
      id: 'OAccrEPLowjzTGZTCNYJ-Q',
      stream: KEY,
      mode: 'secrets',
      entries: [{ n: 2, c: second.chain.c, after: b64Digest(redactedText) }],
    });
    expect(erasure.op === 'redact' && erasure.entries[0]?.after).toBe(
      'tzCM_2f2PN8VxDLmjzt9oxGx-_SjbysmO9oV4lxT0l0',
    );
    const { report } = verify([first.line, padded], { erasures: [erasure] });
    expect(report.ok).toBe(true);
    expect(report.findings).toEqual([
      {
        finding: 'redacted',
        severity: 'info',
        stream: run,
        n: 2,
        where: { file: 'run.jsonl', line: 2 },
        redaction: {
          erasure: 'OAccrEPLowjzTGZTCNYJ-Q',
          at: '2026-11-29T10:04:11.210Z',
          by: { command: 'runs redact', flags: ['--mode'], software: '@episodic/cli 0.9.0' },
          mode: 'secrets',
        },
      },
    ]);
    // Without the erasure entry, or changed again after it, the same line is altered.
    expect(verify([first.line, padded]).report.findings[0]).toMatchObject({
      finding: 'altered',
      severity: 'error',
      n: 2,
      detail: expect.stringMatching(/which no erasure log holds/),
    });
    expect(
      verify([first.line, padded.replace('[REDACTED]', '[REDACTEX]')], { erasures: [erasure] })
        .report.findings[0],
    ).toMatchObject({ finding: 'altered', detail: expect.stringMatching(/changed again/) });
    // Recorded but not yet applied: the salted line with its erasure entry is a warning.
    expect(
      verify([first.line, second.line], { erasures: [erasure] }).report.findings,
    ).toMatchObject([
      { finding: 'redacted', severity: 'warning', n: 2, redaction: { applied: false } },
    ]);
  });

  it('a stored head that was edited is altered when every entry of its segment verifies', () => {
    const { lines } = stamped(64);
    const last = lines[63] as string;
    const edited = last.replace(
      /"h":"(.)/,
      (_all, first: string) => `"h":"${first === 'A' ? 'B' : 'A'}`,
    );
    const { report } = verify([...lines.slice(0, 63), edited]);
    expect(report.findings).toMatchObject([
      { finding: 'altered', n: 64, detail: expect.stringMatching(/stored h was edited/) },
    ]);
  });

  it('rows: session deltas and ledger events verify from their canonical JSON; an unchained ledger row of another program is information', () => {
    const writer = createChainWriter({
      sha256,
      randomSalt: () => crypto.getRandomValues(new Uint8Array(16)),
    });
    const ledger = { kind: 'ledger', scope: 'p', session_id: 's-1' } as const;
    const events = [1, 2, 3].map((index) => ({
      event_id: `e${index}`,
      summary: `event ${index}`,
      type: 'x',
    }));
    let state = newChainState();
    const rows = events.map((event, index) => {
      const stamp = writer.stampRow(state, chainCanonicalJson('ledger', event));
      state = stamp.state;
      return { n: index + 1, chain: stamp.chain, value: event };
    });
    const verifier = createChainVerifier({ sha256 });
    verifier.row(ledger, rows[0] as (typeof rows)[0]);
    verifier.row(ledger, {
      n: 2,
      chain: null,
      value: { event_id: 'other', summary: 'from openclaw-mem' },
    });
    verifier.row(ledger, {
      ...(rows[1] as (typeof rows)[0]),
      n: 3,
      chain: { ...rows[1]?.chain, n: 3 },
    });
    verifier.row(ledger, {
      ...(rows[2] as (typeof rows)[0]),
      value: { ...events[2], summary: 'edited' },
    });
    const report = verifier.report();
    expect(report.findings.map((finding) => [finding.finding, finding.n ?? finding.from])).toEqual([
      ['altered', 3],
      ['altered', 4],
      ['unchained', 2],
    ]);
  });

  it('anchors: a rewritten stream is anchor-mismatch, a gone one deleted, a collected one collected; a bad signature is refused', () => {
    const { lines, state } = stamped(10);
    const { summary } = verify(lines);
    const anchor = {
      format: 'episodic.anchors.v1',
      created_at: '2026-11-29T11:00:00.000Z',
      home: 'h',
      public_key: 'p',
      key_id: 'id',
      heads: [{ stream: state.key, kind: 'run', n: 10, h: summary.head }],
      erasure_logs: [],
      signature: 'sig',
    };
    const good = () => true;
    expect(verify(lines, { anchors: [anchor], verifySignature: good }).report.findings).toEqual([]);
    const rewritten = stamped(10).lines;
    const other = {
      ...anchor,
      heads: [{ ...anchor.heads[0], stream: rewritten[0]?.match(/"k":"([^"]+)"/)?.[1] }],
    };
    expect(
      verify(rewritten, { anchors: [other], verifySignature: good }).report.findings,
    ).toMatchObject([{ finding: 'anchor-mismatch', n: 10 }]);
    expect(
      verify(lines.slice(0, 9), { anchors: [anchor], verifySignature: good }).report.findings,
    ).toMatchObject([{ finding: 'deleted', n: 10 }]);
    expect(verify([], { anchors: [anchor], verifySignature: good }).report.findings).toMatchObject([
      { finding: 'deleted', stream: { kind: 'run', key: state.key } },
    ]);
    const collect = {
      op: 'collect',
      at: '2026-11-29T12:00:00.000Z',
      by: { command: 'runs gc', flags: [] },
      id: 'OAccrEPLowjzTGZTCNYJ-Q',
      stream: state.key,
      reason: 'retention',
      through: { n: 10, h: summary.head },
    };
    expect(
      verify([], { anchors: [anchor], verifySignature: good, erasures: [collect] }).report,
    ).toMatchObject({
      ok: true,
      streams: { collected: 1 },
      findings: [{ finding: 'collected', to: 10 }],
    });
    expect(
      verify(lines, { anchors: [anchor], verifySignature: () => false }).report.findings,
    ).toMatchObject([
      { finding: 'anchor-mismatch', detail: expect.stringMatching(/fails its signature/) },
    ]);
    expect(thrownError(() => createChainVerifier({ sha256, anchors: [anchor] })).message).toMatch(
      /without verifySignature/,
    );
    expect(thrownError(() => createChainVerifier({ sha256, erasures: [{ op: 'x' }] })).code).toBe(
      'VALIDATION_ERROR',
    );
  });

  it('anchoredKinds: an anchored stream of a kind the fold does not see whole is never called gone', () => {
    const { lines, state } = stamped(3);
    const { summary } = verify(lines);
    const anchor = {
      format: 'episodic.anchors.v1',
      created_at: '2026-11-29T11:00:00.000Z',
      home: 'h',
      public_key: 'p',
      key_id: 'id',
      heads: [{ stream: state.key, kind: 'run', n: 3, h: summary.head }],
      erasure_logs: [],
      signature: 'sig',
    };
    const good = () => true;
    const some = { anchors: [anchor], verifySignature: good };
    expect(verify([], { ...some, anchoredKinds: ['ledger'] }).report.findings).toEqual([]);
    expect(verify([], { ...some, anchoredKinds: ['run'] }).report.findings).toMatchObject([
      { finding: 'deleted', stream: { kind: 'run', key: state.key } },
    ]);
    // Seen, it is still checked against its head.
    const rewritten = stamped(3).lines.map((line) =>
      line.replace(/"k":"[^"]+"/, `"k":"${state.key}"`),
    );
    expect(
      verify(rewritten, { ...some, anchoredKinds: [] }).report.counts['anchor-mismatch'],
    ).toBeGreaterThan(0);
    expect(
      thrownError(() => createChainVerifier({ sha256, anchoredKinds: ['x'] as never })).code,
    ).toBe('VALIDATION_ERROR');
  });

  it('anchorSigningText: the canonical JSON of every field but the signature', () => {
    const file = { signature: 'sig', b: [2, 1], a: { d: 1, c: 'é' } };
    expect(anchorSigningText(file as never)).toBe('{"a":{"c":"é","d":1},"b":[2,1]}');
    const { signature: _signature, ...unsigned } = file;
    expect(anchorSigningText(unsigned as never)).toBe(anchorSigningText(file as never));
  });

  it('the report fits the receipt schema', () => {
    const { report } = verify(stamped(3).lines);
    const { ok: _ok, ...rest } = report;
    expect(
      verifyReceiptSchema.parse({
        kind: 'episodic.verify.v1',
        ok: true,
        ts: '2026-11-29T10:20:00.000Z',
        version: { episodic: '0.9.0', schema: 'v1' },
        ...rest,
        anchors: null,
      }).ok,
    ).toBe(true);
  });
});
