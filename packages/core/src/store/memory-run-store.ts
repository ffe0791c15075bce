import type { RunHeader } from '../schema/run-record.js';
import {
  createRunStore,
  finishRunList,
  matchesRunListFilter,
  planRunAppend,
  type RunListError,
  type RunStore,
  type RunStoreAdapter,
  type RunSummary,
  readRunHeaderLine,
  readRunText,
  summarizeRun,
  tailRunText,
} from './run-store.js';

/** The in-memory run store adapter, plus a hook tests use to damage stored runs. */
export interface MemoryRunStoreAdapter extends RunStoreAdapter {
  /**
   * Appends raw text to a run's stored JSONL underneath the store (a torn write, a NUL run…), or
   * replaces it when `replace` is true. For tolerance tests; the run must exist.
   */
  writeRaw(runId: string, text: string, options?: { replace?: boolean }): void;
}

/**
 * The in-memory reference run store. Each run is kept as JSONL text, exactly as a run file holds
 * it, and read back through the same tolerant reader, so what a caller reads is always a fresh copy.
 */
export function createMemoryRunStoreAdapter(): MemoryRunStoreAdapter {
  const runs = new Map<string, string>();
  const firstLine = (text: string) => {
    const end = text.indexOf('\n');
    return end === -1 ? text : text.slice(0, end);
  };
  const storedHeader = (runId: string): RunHeader | null | undefined => {
    const text = runs.get(runId);
    return text === undefined ? undefined : readRunHeaderLine(firstLine(text));
  };
  return {
    specificationVersion: 'v1',
    name: 'memory',
    capabilities: {
      crossProcessAppends: false,
      durability: 'none',
      toolOutputCache: false,
      redaction: true,
    },
    append(runId, entries) {
      const toWrite = planRunAppend(runId, storedHeader(runId), entries);
      if (toWrite.length === 0) return 0;
      let text = runs.get(runId) ?? '';
      // A torn fragment stays one bad line instead of swallowing the next record.
      if (text !== '' && !text.endsWith('\n')) text += '\n';
      for (const entry of toWrite) text += `${entry.json}\n`;
      runs.set(runId, text);
      return toWrite.length;
    },
    read(runId) {
      const text = runs.get(runId);
      return text === undefined ? null : readRunText(runId, text);
    },
    tail(runId, count) {
      const text = runs.get(runId);
      return text === undefined ? null : tailRunText(runId, text, count);
    },
    list(filter) {
      const summaries: RunSummary[] = [];
      const errors: RunListError[] = [];
      for (const [runId, text] of runs) {
        const header = readRunHeaderLine(firstLine(text));
        if (header === null) {
          errors.push({
            runId,
            location: `run ${runId}`,
            message: 'the first line is not a readable run header',
          });
          continue;
        }
        const summary = summarizeRun(runId, header);
        if (matchesRunListFilter(summary, filter)) summaries.push(summary);
      }
      return finishRunList(summaries, errors, filter);
    },
    delete(runId) {
      return runs.delete(runId);
    },
    redact(runId, redactor) {
      const text = runs.get(runId);
      if (text === undefined) return null;
      const lines = text.split('\n');
      // After the last newline: empty, or a torn tail that stays without its newline.
      const tail = lines.pop() as string;
      let output = '';
      let changedLines = 0;
      let droppedLines = 0;
      const rewrite = (line: string, ending: string) => {
        const next = redactor.line(line);
        if (next === null) droppedLines++;
        else {
          if (next !== line) changedLines++;
          output += next + ending;
        }
      };
      for (const line of lines) rewrite(line, '\n');
      if (tail !== '') rewrite(tail, '');
      runs.set(runId, output);
      return { changedLines, droppedLines, changedToolOutputs: 0 };
    },
    writeRaw(runId, text, options) {
      const id = runId.toLowerCase();
      const stored = runs.get(id);
      if (stored === undefined) throw new Error(`run ${id} does not exist`);
      runs.set(id, options?.replace === true ? text : stored + text);
    },
  };
}

/** An in-memory `RunStore` (for tests, examples and short-lived agents). */
export function createMemoryRunStore(): RunStore {
  return createRunStore(createMemoryRunStoreAdapter());
}
