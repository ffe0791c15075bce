// Property tests of the verifier fold (docs/design/verify.md section 8.3): random chained streams
// with one random edit; the findings name exactly that edit.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ChainFinding,
  type ChainMember,
  chainCanonicalJson,
  createChainVerifier,
  createChainWriter,
  type ErasureEntry,
  ledgerChainCanonicalJson,
  ledgerChainValue,
  newChainState,
  resumeChainState,
} from './index.js';

const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A writer with deterministic salts from `seed`. */
function seededWriter(seed: number) {
  let counter = 0;
  return createChainWriter({
    sha256,
    randomSalt: () => sha256(encoder.encode(`${seed}:${counter++}`)).subarray(0, 16),
  });
}

interface Stream {
  lines: string[];
  chains: ChainMember[];
  texts: string[];
}

/** `count` chained lines (the last stores its head, as a run's `run.end` does), after `prefix` unchained ones. */
function build(seed: number, texts: readonly string[], prefix = 0): Stream {
  const writer = seededWriter(seed);
  let state = newChainState(prefix);
  const lines: string[] = [];
  const chains: ChainMember[] = [];
  for (let index = 0; index < prefix; index++) lines.push(JSON.stringify({ type: 'old', index }));
  texts.forEach((text, index) => {
    const stamp = writer.stampLine(state, JSON.stringify({ type: 'x', text }), {
      head: index === texts.length - 1,
    });
    lines.push(stamp.line);
    chains.push(stamp.chain);
    state = stamp.state;
  });
  return { lines, chains, texts: [...texts] };
}

const run = { kind: 'run', id: 'r-1' } as const;

function verify(
  lines: readonly (string | Uint8Array)[],
  options: { erasures?: ErasureEntry[]; key?: string } = {},
) {
  const verifier = createChainVerifier({ sha256, erasures: options.erasures ?? [] });
  const ref = options.key === undefined ? run : { ...run, key: options.key };
  for (const [index, line] of lines.entries()) verifier.line(ref, line, { line: index + 1 });
  verifier.endStream(ref);
  return verifier.report();
}

const errors = (findings: readonly ChainFinding[]) =>
  findings.filter((finding) => finding.severity === 'error');

const texts = fc.array(fc.string({ maxLength: 40, unit: 'binary' }), {
  minLength: 2,
  maxLength: 150,
});
const RUNS = { numRuns: 150 };

describe('chain verifier: properties over random streams', () => {
  it('an untouched stream verifies with no finding', () => {
    fc.assert(
      fc.property(fc.integer(), texts, (seed, values) => {
        expect(verify(build(seed, values).lines).findings).toEqual([]);
      }),
      RUNS,
    );
  });

  it('any single-byte change is an error named at its line, and only there', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        texts,
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (seed, values, lineIndex, byteIndex, flip) => {
          const { lines } = build(seed, values);
          const index = lineIndex % lines.length;
          const bytes = encoder.encode(lines[index] as string);
          const at = byteIndex % bytes.length;
          const changed = bytes.slice();
          changed[at] = (bytes[at] as number) ^ flip;
          // A newline would split the line in storage: a reader's concern, not the fold's.
          fc.pre(changed[at] !== 0x0a);
          const stored: (string | Uint8Array)[] = [...lines];
          stored[index] = changed;
          const report = verify(stored);
          const found = errors(report.findings);
          expect(found.length).toBeGreaterThan(0);
          for (const finding of found) expect(finding.where?.line).toBe(index + 1);
          expect(found.map((finding) => finding.finding)).toContain('altered');
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a deleted entry (not the last) is deleted, named by its n', () => {
    fc.assert(
      fc.property(fc.integer(), texts, fc.nat(), (seed, values, pick) => {
        const { lines } = build(seed, values);
        const index = pick % (lines.length - 1);
        const found = errors(verify(lines.filter((_line, at) => at !== index)).findings);
        expect(found).toMatchObject([{ finding: 'deleted', n: index + 1 }]);
        expect(found).toHaveLength(1);
      }),
      RUNS,
    );
  });

  it('an inserted unchained line, anywhere, is inserted', () => {
    fc.assert(
      fc.property(fc.integer(), texts, fc.nat(), (seed, values, pick) => {
        const { lines } = build(seed, values);
        const index = pick % (lines.length + 1);
        const stored = [...lines.slice(0, index), '{"type":"forged"}', ...lines.slice(index)];
        const found = errors(verify(stored).findings);
        expect(found.map((finding) => finding.finding)).toEqual(['inserted']);
      }),
      RUNS,
    );
  });

  it('a swapped adjacent pair is reordered, naming both entries', () => {
    fc.assert(
      fc.property(fc.integer(), texts, fc.nat(), (seed, values, pick) => {
        const { lines } = build(seed, values);
        const index = pick % (lines.length - 1);
        const stored = [...lines];
        [stored[index], stored[index + 1]] = [stored[index + 1] as string, stored[index] as string];
        const found = errors(verify(stored).findings);
        expect(found).toMatchObject([
          { finding: 'reordered', n: index + 1, other: { n: index + 2 } },
        ]);
        expect(found).toHaveLength(1);
      }),
      RUNS,
    );
  });

  it('a redacted entry (content changed, c kept, salt overwritten, erasure entry present) is redacted, not an error', () => {
    fc.assert(
      fc.property(fc.integer(), texts, fc.nat(), (seed, values, pick) => {
        const { lines, chains } = build(seed, values);
        const index = pick % lines.length;
        const chain = chains[index] as ChainMember;
        const id = 'OAccrEPLowjzTGZTCNYJ-Q';
        const key = chains[0]?.k as string;
        const original = lines[index] as string;
        const prefix = original.slice(0, original.indexOf(',"chain":'));
        const redacted = `{"type":"x","text":"[REDACTED]"${original.slice(prefix.length)}`.replace(
          `"s":"${chain.s}"`,
          `"r":"${id}"`,
        );
        const after = createHash('sha256').update(redacted).digest('base64url');
        const stored = [...lines];
        stored[index] = redacted.padEnd(original.length, ' ');
        const report = verify(stored, {
          erasures: [
            {
              op: 'redact',
              at: '2026-11-29T10:04:11.210Z',
              by: { api: 'RunStore.redact' },
              id,
              stream: key,
              entries: [{ n: chain.n, c: chain.c, after }],
            },
          ],
        });
        expect(report.ok).toBe(true);
        expect(report.findings).toMatchObject([{ finding: 'redacted', n: index + 1 }]);
        expect(report.findings).toHaveLength(1);
      }),
      RUNS,
    );
  });

  it('a collected prefix with its checkpoint is collected, and the rest verifies (heads included)', () => {
    fc.assert(
      fc.property(fc.integer(), texts, fc.nat(), (seed, values, pick) => {
        const { lines, chains } = build(seed, values);
        const k = 1 + (pick % (lines.length - 1));
        const boundaryN = Math.floor(k / 64) * 64;
        const boundary = chains[boundaryN - 1];
        const key = chains[0]?.k as string;
        const through = {
          n: k,
          ...(boundaryN === 0 ? {} : { boundary: { n: boundaryN, h: boundary?.h as string } }),
          open: chains.slice(boundaryN, k).map((chain) => chain.c),
        };
        const report = verify(lines.slice(k), {
          key,
          erasures: [
            {
              op: 'collect',
              at: '2026-11-29T12:00:00.000Z',
              by: { command: 'episodes gc', flags: [] },
              id: 'OAccrEPLowjzTGZTCNYJ-Q',
              stream: key,
              through,
            },
          ],
        });
        expect(report.ok).toBe(true);
        expect(report.findings).toMatchObject([{ finding: 'collected', from: 1, to: k }]);
        expect(report.findings).toHaveLength(1);
        // Without the checkpoint the same prefix is deleted.
        const deleted = errors(verify(lines.slice(k), { key }).findings);
        expect(deleted).toMatchObject([{ finding: 'deleted', n: 1 }]);
        expect(deleted[0]?.to ?? deleted[0]?.n).toBe(k);
      }),
      RUNS,
    );
  });

  it('an unchained prefix is unchained, verified from the first chained entry', () => {
    fc.assert(
      fc.property(fc.integer(), texts, fc.integer({ min: 1, max: 100 }), (seed, values, prefix) => {
        const report = verify(build(seed, values, prefix).lines);
        expect(report.ok).toBe(true);
        expect(report.findings).toMatchObject([
          { finding: 'unchained', from: 1, to: prefix, verified_from: prefix + 1 },
        ]);
        expect(report.findings).toHaveLength(1);
      }),
      RUNS,
    );
  });

  it('two plain appenders from the same state are forked (a warning), never an error', () => {
    fc.assert(
      fc.property(fc.integer(), texts, fc.nat(), (seed, values, pick) => {
        const writerA = seededWriter(seed);
        const writerB = seededWriter(seed + 1);
        const at = 1 + (pick % values.length);
        let state = newChainState();
        const lines: string[] = [];
        values.forEach((text, index) => {
          if (index === at) {
            // B read the same position as A and appends its own entry n.
            lines.push(writerB.stampLine(state, JSON.stringify({ type: 'b', text })).line);
          }
          const stamp = writerA.stampLine(state, JSON.stringify({ type: 'x', text }));
          lines.push(stamp.line);
          state = stamp.state;
        });
        if (at === values.length)
          lines.push(writerB.stampLine(state, '{"type":"b"}').line.replace(/"n":\d+/, (m) => m));
        const report = verify(lines);
        expect(report.ok).toBe(true);
        if (at < values.length)
          expect(report.findings).toMatchObject([
            { finding: 'forked', severity: 'warning', n: at + 1 },
          ]);
      }),
      RUNS,
    );
  });

  it('a writer that lost its memory resumes from the tail since the last boundary to the same state', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 300 }),
        fc.nat(),
        (seed, count, prefix) => {
          const writer = seededWriter(seed);
          let state = newChainState(prefix % 100);
          const chains: ChainMember[] = [];
          for (let index = 0; index < count; index++) {
            const stamp = writer.stampRow(state, `{"i":${index}}`);
            chains.push(stamp.chain);
            state = stamp.state;
          }
          const boundary = chains.findLastIndex(
            (chain) => chain.n % 64 === 0 && chain.k === undefined,
          );
          const tail = chains.slice(Math.max(0, boundary));
          expect(resumeChainState(tail, state.key)).toEqual(state);
        },
      ),
      RUNS,
    );
  });

  it('lines in bytes and in text verify alike', () => {
    const { lines } = build(1, ['a', 'é', '😀']);
    expect(verify(lines.map((line) => encoder.encode(line)))).toEqual(verify(lines));
    expect(decoder.decode(encoder.encode(lines[0] as string))).toBe(lines[0]);
  });
});

describe("a ledger row's canonical JSON", () => {
  it('the direct writer gives exactly the general canonical JSON, for any text and time', () => {
    const text = fc.string({ unit: 'binary' });
    const nullable = fc.option(text, { nil: null });
    fc.assert(
      fc.property(
        fc.record({
          event_id: text,
          ts_ms: fc.oneof(fc.integer(), fc.double(), fc.integer().map(String)),
          scope: text,
          session_id: text,
          agent_id: text,
          type: text,
          summary: text,
          payload_json: fc.option(nullable, { nil: undefined }),
          refs_json: nullable,
          metadata_json: nullable,
          schema_version: text,
          created_at: text,
        }),
        (row) => {
          const value = ledgerChainValue(row);
          if (!Number.isFinite(value.ts_ms)) {
            expect(() => ledgerChainCanonicalJson(row)).toThrow();
            return;
          }
          expect(ledgerChainCanonicalJson(row)).toBe(chainCanonicalJson('ledger', value));
        },
      ),
      { numRuns: 300 },
    );
  });
});
