// The bytes path of run verification (docs/design/verify.md section 4.6) against the text path:
// random chained runs with random byte edits, read once as text (what store-fs read before) and
// once as bytes (`runChainLinesOfBytes`), give the same lines and the same report.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ChainMember,
  createChainVerifier,
  createChainWriter,
  type ErasureEntry,
  newChainState,
} from '../chain/index.js';
import { type RunChainLine, runChainLines, runChainLinesOfBytes } from './run-store.js';

const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());
const encoder = new TextEncoder();
const ERASURE_ID = 'OAccrEPLowjzTGZTCNYJ-Q';

/** A chained run's stored lines (the last with its head), one of them redacted when asked. */
function chainedRun(seed: number, texts: readonly string[], redact: number | undefined) {
  let counter = 0;
  const writer = createChainWriter({
    sha256,
    randomSalt: () => sha256(encoder.encode(`${seed}:${counter++}`)).subarray(0, 16),
  });
  let state = newChainState(0);
  const lines: string[] = [];
  const chains: ChainMember[] = [];
  texts.forEach((text, index) => {
    const stamp = writer.stampLine(state, JSON.stringify({ type: 'x', text }), {
      head: index === texts.length - 1,
    });
    lines.push(stamp.line);
    chains.push(stamp.chain);
    state = stamp.state;
  });
  const erasures: ErasureEntry[] = [];
  if (redact !== undefined) {
    const index = redact % lines.length;
    const chain = chains[index] as ChainMember;
    const original = lines[index] as string;
    const redacted =
      `{"type":"x","text":"[REDACTED]"${original.slice(original.indexOf(',"chain":'))}`.replace(
        `"s":"${chain.s}"`,
        `"r":"${ERASURE_ID}"`,
      );
    lines[index] = redacted.padEnd(original.length, ' ');
    erasures.push({
      op: 'redact',
      at: '2026-11-29T10:04:11.210Z',
      by: { api: 'RunStore.redact' },
      id: ERASURE_ID,
      stream: chains[0]?.k as string,
      entries: [
        {
          n: chain.n,
          c: chain.c,
          after: createHash('sha256').update(redacted).digest('base64url'),
        },
      ],
    });
  }
  return { lines, erasures };
}

type Edit =
  | { op: 'set' | 'insert'; at: number; byte: number }
  | { op: 'delete' | 'cut'; at: number }
  | { op: 'dropLine' | 'copyLine'; at: number };

/** Bytes worth trying: JSON and chain-member delimiters, a newline, spaces, NUL and bytes that are not UTF-8 alone. */
const interesting = fc.constantFrom(
  0x0a,
  0x0d,
  0x20,
  0x22,
  0x2c,
  0x3a,
  0x7b,
  0x7d,
  0x00,
  0x80,
  0xbf,
  0xc3,
  0xe2,
  0xef,
  0xff,
);
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    op: fc.constantFrom('set' as const, 'insert' as const),
    at: fc.nat(),
    byte: fc.oneof(interesting, fc.integer({ min: 0, max: 255 })),
  }),
  fc.record({ op: fc.constantFrom('delete' as const, 'cut' as const), at: fc.nat() }),
  fc.record({ op: fc.constantFrom('dropLine' as const, 'copyLine' as const), at: fc.nat() }),
);

function applyEdit(bytes: Uint8Array, change: Edit): Uint8Array {
  if (bytes.length === 0) return bytes;
  const at = change.at % bytes.length;
  const list = [...bytes];
  switch (change.op) {
    case 'set':
      list[at] = change.byte;
      break;
    case 'insert':
      list.splice(at, 0, change.byte);
      break;
    case 'delete':
      list.splice(at, 1);
      break;
    case 'cut':
      list.length = at;
      break;
    case 'dropLine':
    case 'copyLine': {
      const start = bytes.lastIndexOf(0x0a, at - 1) + 1;
      const newline = bytes.indexOf(0x0a, at);
      const end = newline === -1 ? bytes.length : newline + 1;
      if (change.op === 'dropLine') list.splice(start, end - start);
      else list.splice(end, 0, ...list.slice(start, end));
      break;
    }
  }
  return Uint8Array.from(list);
}

function verify(lines: readonly RunChainLine[], erasures: ErasureEntry[], asBytes: boolean) {
  const verifier = createChainVerifier({ sha256, erasures });
  const stream = { kind: 'run', id: 'r-1' } as const;
  for (const stored of lines)
    verifier.line(stream, asBytes ? (stored.bytes as Uint8Array) : stored.text, {
      file: 'sessions/r-1.jsonl',
      line: stored.line,
    });
  const ended = verifier.endStream(stream);
  return { ended, report: verifier.report() };
}

describe('run chain lines: bytes as read give what text gives', () => {
  it('random chained runs with random byte edits: the same lines and the same report', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.array(fc.string({ maxLength: 30, unit: 'binary' }), { minLength: 1, maxLength: 80 }),
        fc.option(fc.nat(), { nil: undefined }),
        fc.record({ bom: fc.boolean(), blank: fc.boolean(), newlineAtEnd: fc.boolean() }),
        fc.array(edit, { maxLength: 4 }),
        (seed, texts, redact, shape, edits) => {
          const { lines, erasures } = chainedRun(seed, texts, redact);
          if (shape.blank) lines.splice(1, 0, ' \t', '\u00a0');
          let text = lines.join('\n') + (shape.newlineAtEnd ? '\n' : '');
          if (shape.bom) text = `\ufeff${text}`;
          let bytes: Uint8Array = encoder.encode(text);
          for (const change of edits) bytes = applyEdit(bytes, change);

          // The text path: the file decoded whole, as store-fs read it (`readFileSync(…, 'utf8')`).
          const asText = runChainLines(Buffer.from(bytes).toString('utf8'));
          const asBytes = runChainLinesOfBytes(bytes);
          expect(
            asBytes.map(({ position, line, text: lineText }) => ({
              position,
              line,
              text: lineText,
            })),
          ).toEqual(
            asText.map(({ position, line, text: lineText }) => ({
              position,
              line,
              text: lineText,
            })),
          );
          expect(verify(asBytes, erasures, true)).toEqual(verify(asText, erasures, false));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a line read as bytes is a view into the read buffer, not a copy', () => {
    const bytes = encoder.encode('{"a":1}\n\n{"b":2}');
    const lines = runChainLinesOfBytes(bytes);
    expect(lines.map(({ position, line, text }) => ({ position, line, text }))).toEqual([
      { position: 1, line: 1, text: '{"a":1}' },
      { position: 2, line: 3, text: '{"b":2}' },
    ]);
    expect(lines[1]?.bytes?.buffer).toBe(bytes.buffer);
    expect(lines[1]?.bytes?.byteOffset).toBe(9);
  });

  it('a changed byte that is not UTF-8 is altered in both forms, with the same finding', () => {
    const { lines } = chainedRun(7, ['one', 'two', 'three'], undefined);
    const bytes = encoder.encode(lines.join('\n'));
    // A byte of the second line's record (not its member) becomes 0xff.
    bytes[(lines[0]?.length as number) + 1 + 10] = 0xff;
    const fromBytes = verify(runChainLinesOfBytes(bytes), [], true).report;
    expect(fromBytes.ok).toBe(false);
    expect(fromBytes.findings).toMatchObject([{ finding: 'altered', n: 2 }]);
    expect(fromBytes).toEqual(
      verify(runChainLines(Buffer.from(bytes).toString('utf8')), [], false).report,
    );
  });
});
