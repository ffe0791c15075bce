import type { RunRecord } from '../schema/run-record.js';

/**
 * What a list shows about one run, folded from its records: the words that started it, how it
 * ended, how long it took and how many tokens its model responses used.
 */
export interface RunDigest {
  /**
   * The run's title: the text of its `run.start` input (the user's first input, or the task
   * description for a task episode) on one line, cut with `…` (see `runTitle`); null when the
   * run has no readable `run.start` or its input has no text.
   */
  title: string | null;
  /** The `run.end` outcome (`completed`, `cancelled`, `error`, …), or `running` without one. */
  status: string;
  /** The `ts` of the `run.end` record; null while the run has none. */
  endedAt: string | null;
  /**
   * Milliseconds from the header's `started_at` to `run.end`; null while the run has not ended
   * or when either time cannot be parsed.
   */
  durationMs: number | null;
  /** `input_tokens` summed over the run's `llm.response` records that report usage. */
  inputTokens: number;
  /** `output_tokens` summed over the run's `llm.response` records that report usage. */
  outputTokens: number;
  /** How many `llm.response` records the run holds. */
  responses: number;
  /** How many of them report usage (tokens are unknown, not zero, when none does). */
  usageResponses: number;
  /** The latest `ts` among the records read (the header's `started_at` when none has one). */
  lastActivityAt: string | null;
}

/** A digest fed record by record: a caller that tails a run feeds only what is new. */
export interface RunDigester {
  /** Folds the next records, in stored order. */
  add(records: Iterable<RunRecord>): void;
  /** The digest so far (a copy). */
  result(): RunDigest;
}

/** The longest title `runTitle` returns, in characters, the ellipsis included. @default 80 */
export const RUN_TITLE_LENGTH = 80;

/**
 * A text as one line of at most `maxLength` characters: runs of whitespace (newlines included)
 * become one space, the ends are trimmed, and a longer text is cut with `…` (never inside a
 * surrogate pair). Empty when the text holds nothing but whitespace.
 */
export function runTitle(text: string, maxLength: number = RUN_TITLE_LENGTH): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const characters = Array.from(line);
  if (characters.length <= maxLength) return line;
  return `${characters
    .slice(0, Math.max(0, maxLength - 1))
    .join('')
    .trimEnd()}…`;
}

const tokenCount = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;

/** A digester that starts empty (feed it the header first, as stored). */
export function createRunDigester(): RunDigester {
  let startedAt: string | null = null;
  let title: string | null = null;
  let sawStart = false;
  let status = 'running';
  let endedAt: string | null = null;
  let inputTokens = 0;
  let outputTokens = 0;
  let responses = 0;
  let usageResponses = 0;
  let lastActivityAt: string | null = null;
  let lastActivityMs = Number.NEGATIVE_INFINITY;
  const touch = (ts: unknown) => {
    if (typeof ts !== 'string') return;
    const ms = Date.parse(ts);
    if (Number.isNaN(ms) || ms < lastActivityMs) return;
    lastActivityMs = ms;
    lastActivityAt = ts;
  };
  return {
    add(records) {
      for (const raw of records) {
        const record = raw as RunRecord & Record<string, unknown>;
        switch (record.type) {
          case 'header':
            if (typeof record.started_at === 'string') {
              startedAt = record.started_at;
              touch(record.started_at);
            }
            continue;
          case 'run.start':
            if (!sawStart) {
              sawStart = true;
              const text = (record.input as { text?: unknown } | undefined)?.text;
              const line = typeof text === 'string' ? runTitle(text) : '';
              title = line === '' ? null : line;
            }
            break;
          case 'llm.response': {
            responses++;
            const usage = (record.output as { usage?: Record<string, unknown> | null } | undefined)
              ?.usage;
            if (usage !== null && typeof usage === 'object') {
              usageResponses++;
              inputTokens += tokenCount(usage.input_tokens);
              outputTokens += tokenCount(usage.output_tokens);
            }
            break;
          }
          case 'run.end':
            status = typeof record.outcome === 'string' ? record.outcome : 'unknown';
            endedAt = typeof record.ts === 'string' ? record.ts : null;
            break;
        }
        touch(record.ts);
      }
    },
    result() {
      const startMs = startedAt === null ? Number.NaN : Date.parse(startedAt);
      const endMs = endedAt === null ? Number.NaN : Date.parse(endedAt);
      const durationMs =
        Number.isNaN(startMs) || Number.isNaN(endMs) ? null : Math.max(0, endMs - startMs);
      return {
        title,
        status,
        endedAt,
        durationMs,
        inputTokens,
        outputTokens,
        responses,
        usageResponses,
        lastActivityAt,
      };
    },
  };
}

/** The digest of a whole run's records (see `RunDigest`). */
export function digestRun(records: Iterable<RunRecord>): RunDigest {
  const digester = createRunDigester();
  digester.add(records);
  return digester.result();
}
