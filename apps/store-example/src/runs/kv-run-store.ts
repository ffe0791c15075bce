import {
  assertExpectedRunPosition,
  createRunReadCollector,
  feedRunText,
  planRunAppend,
  type RunRecordEntry,
  type RunStoreAdapter,
  readRunText,
  tailRunText,
} from '../core-kit.js';
import type { KeyValueStore } from '../kv/key-value-store.js';
import { transact } from '../kv/transact.js';
import { listRuns } from './list-runs.js';
import { appendLines, firstLine, runEntryEnds } from './run-entries.js';
import { RUN_PREFIX, runKey } from './run-keys.js';

/**
 * Plans one append to a run's text: `planRunAppend` reads the stored header line and applies the
 * header rules (a new run starts with its header; an equal header is skipped, another one is
 * `CONFLICT`).
 */
function planAppend(runId: string, text: string | undefined, entries: readonly RunRecordEntry[]) {
  const toWrite = planRunAppend(runId, text === undefined ? undefined : firstLine(text), entries);
  const lines = toWrite.map((entry) => entry.json);
  const next = toWrite.length === 0 ? text : appendLines(text ?? '', lines);
  return { appended: toWrite.length, next };
}

/** A run adapter over a key-value store: each run is one value holding its JSONL text. */
export function createKvRunStoreAdapter(kv: KeyValueStore): RunStoreAdapter {
  return {
    specificationVersion: 'v1',
    name: 'kv',
    capabilities: {
      crossProcessAppends: false,
      durability: 'none',
      toolOutputCache: false,
      redaction: true,
    },
    append: (runId, entries) =>
      transact(kv, async () => {
        const key = runKey(runId);
        const text = await kv.get(key);
        const { appended, next } = planAppend(runId, text, entries);
        return { checks: [{ key, value: text }], writes: [{ key, value: next }], result: appended };
      }),
    appendAt: (runId, entries, expectedPosition) =>
      transact(kv, async () => {
        const key = runKey(runId);
        const text = await kv.get(key);
        assertExpectedRunPosition(runId, runEntryEnds(text ?? '').length, expectedPosition);
        const { appended, next } = planAppend(runId, text, entries);
        const position = runEntryEnds(next ?? '').length;
        return {
          checks: [{ key, value: text }],
          writes: [{ key, value: next }],
          result: { appended, position },
        };
      }),
    async read(runId) {
      const text = await kv.get(runKey(runId));
      return text === undefined ? null : readRunText(runId, text);
    },
    async readAfter(runId, position) {
      const text = await kv.get(runKey(runId));
      if (text === undefined) return null;
      const ends = runEntryEnds(text);
      // Given the run's end, the collector refuses a position beyond it (CONFLICT).
      const collector = createRunReadCollector(runId, position, ends.length);
      const start = position === 0 ? { offset: 0, line: 0 } : ends[position - 1];
      feedRunText(collector, text, start?.offset ?? 0, start?.line ?? 0);
      return collector.resultAfter();
    },
    async tail(runId, count) {
      const text = await kv.get(runKey(runId));
      return text === undefined ? null : tailRunText(runId, text, count);
    },
    list: (filter) => listRuns(kv, filter),
    delete: (runId) => kv.delete(runKey(runId)),
    redact: (runId, redactor) =>
      transact(kv, async () => {
        const key = runKey(runId);
        const text = await kv.get(key);
        if (text === undefined) return { checks: [{ key, value: text }], writes: [], result: null };
        let changedLines = 0;
        // Every line is rewritten in place, none removed, so positions stay valid.
        const next = text
          .split('\n')
          .map((line, index, lines) => {
            if (index === lines.length - 1 && line === '') return line;
            const redacted = redactor.line(line);
            if (redacted !== line) changedLines++;
            return redacted;
          })
          .join('\n');
        return {
          checks: [{ key, value: text }],
          writes: [{ key, value: next }],
          result: { changedLines, changedToolOutputs: 0 },
        };
      }),
    async runIdsWithPrefix(prefix, limit) {
      const keys = await kv.keys(runKey(prefix));
      return keys.slice(0, limit).map((key) => key.slice(RUN_PREFIX.length));
    },
  };
}
