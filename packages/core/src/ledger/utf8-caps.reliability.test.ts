// Pins "byte caps on arbitrary Unicode → output ≤ cap, well-formed, a prefix of the input"
// (QUALITY.md reliability table; research/reliability.md test plan T28, after Claude Code #56064
// and #45982: output cut by UTF-16 code unit left a lone `\ud83d`, and every later resume failed
// with "no low surrogate"). Properties over `fc.string({ unit: 'binary' })` (lone surrogates
// included), emoji-heavy and grapheme strings, with caps from 0 to 64 KiB, for every place core
// cuts text: `truncateUtf8`, the ledger projection of run records (summaries and payload text),
// the tool-output truncation of model-input assembly, and what the ledger stores (0 lone
// surrogates in any stored JSON). 400 cases per property per `pnpm test` (200 for the ledger);
// RELIABILITY_FULL=1 runs 5,000 (1,000). The seed is printed and replayable (FC_SEED / FC_PATH).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { truncateToolOutput } from '../assembly/truncate-tool-output.js';
import type { RunRecord } from '../schema/run-record.js';
import { createMemoryLedger } from '../store/memory-ledger.js';
import { projectRunRecords } from './projection.js';
import { truncateUtf8 } from './utf8.js';

const FULL = process.env.RELIABILITY_FULL === '1';

function parameters(
  label: string,
  reduced = 400,
  full = 5_000,
): { numRuns: number; seed: number; path?: string } {
  const numRuns = FULL ? full : reduced;
  const given = process.env.FC_SEED;
  const seed = given ? Number(given) : (Math.random() * 0x7fffffff) | 0;
  const path = process.env.FC_PATH;
  console.log(`[fast-check] ${label}: seed ${seed}, ${numRuns} runs (replay: FC_SEED=${seed})`);
  return { numRuns, seed, ...(path ? { path } : {}) };
}

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text).length;

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const lones = (value: string) => value.match(LONE)?.length ?? 0;
/** JSON text with a `\uD8xx`–`\uDFxx` escape that is not half of an escaped pair. */
const LONE_ESCAPE =
  /\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}/;

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 3000 }),
  fc.string({ unit: 'grapheme', maxLength: 800 }),
  fc
    .array(fc.constantFrom('😀', '👩‍👩‍👧', 'é', 'a', '中', '\ud800', '\udc00', '\n', ' '), {
      maxLength: 4000,
    })
    .map((parts) => parts.join('')),
);
const cap = fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 64 * 1024 }));

describe('byte caps on arbitrary Unicode', () => {
  it('truncateUtf8: ≤ cap, well-formed, a code-point prefix of the (well-formed) input', () => {
    fc.assert(
      fc.property(text, cap, (input, maxBytes) => {
        const output = truncateUtf8(input, maxBytes);
        expect(bytesOf(output)).toBeLessThanOrEqual(maxBytes);
        expect(output.isWellFormed()).toBe(true);
        expect(input.toWellFormed().startsWith(output)).toBe(true);
        if (input.isWellFormed()) expect(input.startsWith(output)).toBe(true);
      }),
      parameters('truncateUtf8'),
    );
  });

  it('the ledger projection of run records: capped, well-formed summaries and payload text', () => {
    const runId = '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b';
    fc.assert(
      fc.property(
        text,
        // Any cap from 1 byte: an empty text's fallback label ("(assistant message)") is capped too.
        fc.integer({ min: 1, max: 4096 }),
        fc.integer({ min: 0, max: 64 * 1024 }),
        (input, summaryBytes, textBytes) => {
          const ts = '2026-02-03T12:00:00.000Z';
          const records: RunRecord[] = [
            { type: 'run.start', run_id: runId, ts, input: { type: 'text', text: input } },
            {
              type: 'llm.response',
              run_id: runId,
              ts,
              seq: 1,
              output: { messages: [{ role: 'assistant', content: input }] },
            },
            { type: 'run.end', run_id: runId, ts, outcome: 'completed', final: input },
          ];
          for (const event of projectRunRecords(records, { scope: 's', summaryBytes, textBytes })) {
            expect(bytesOf(event.summary)).toBeLessThanOrEqual(summaryBytes);
            expect(event.summary.isWellFormed()).toBe(true);
            const payloadText =
              (event.payload as { text?: string; final?: string }).text ??
              (event.payload as { final?: string }).final;
            if (payloadText !== undefined) {
              expect(bytesOf(payloadText)).toBeLessThanOrEqual(textBytes);
              expect(payloadText.isWellFormed()).toBe(true);
              if (input.isWellFormed()) expect(input.startsWith(payloadText)).toBe(true);
            }
          }
        },
      ),
      parameters('projection caps'),
    );
  });

  it('tool-output truncation never leaves a lone surrogate', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 2, max: 5000 }), (input, maxChars) => {
        const { text: output } = truncateToolOutput(input, maxChars);
        // A cut never creates a lone surrogate (one already in the input may be kept or dropped).
        expect(lones(output)).toBeLessThanOrEqual(lones(input));
      }),
      parameters('tool output truncation'),
    );
  });

  it('the ledger never stores a lone surrogate: it is escaped or refused, and reads back well-formed', async () => {
    const ledger = createMemoryLedger();
    let index = 0;
    await fc.assert(
      fc.asyncProperty(text, async (input) => {
        const id = `u-${index++}`;
        const summary = truncateUtf8(input, 1024) || 'empty';
        try {
          await ledger.append(
            {
              event_id: id,
              scope: 'caps',
              session_id: id,
              agent_id: 'a',
              type: 'ops.decision',
              summary,
              payload: { text: truncateUtf8(input, 4000) },
            },
            { allow: ['pii', 'secret', 'tool_output'] },
          );
        } catch (error) {
          expect((error as { code?: string }).code).toBe('VALIDATION_ERROR');
          return;
        }
        const page = await ledger.query({ scope: 'caps', sessionId: id, includePayload: true });
        const stored = page.events.find((event) => event.event_id === id);
        const json = JSON.stringify(stored);
        expect(LONE_ESCAPE.test(json)).toBe(false);
        expect(stored?.summary.isWellFormed()).toBe(true);
      }),
      parameters('ledger storage', 200, 1_000),
    );
  });
});
