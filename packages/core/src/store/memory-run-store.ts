import {
  type ChainState,
  type ChainWriter,
  type ChainWriterOptions,
  createChainWriter,
  newChainState,
  resumeChainState,
} from '../chain/index.js';
import { EpisodicError } from '../errors/episodic-error.js';
import type { RunHeader, RunRecord } from '../schema/run-record.js';
import { isAfterRunSearchPoint } from '../search/run-search-query.js';
import { rankDocuments, type SearchDocument, searchDocument } from '../search/search-rank.js';
import { type RunLineSearchFields, searchFieldsOfRunLine } from '../search/search-run-text.js';
import {
  assertExpectedRunHeader,
  assertExpectedRunPosition,
  createRunReadCollector,
  createRunStore,
  feedRunText,
  isBlankRunLine,
  planRunAppend,
  positionBeyondEnd,
  type RunRecordEntry,
  type RunSearchPlan,
  type RunSearchRow,
  type RunStore,
  type RunStoreAdapter,
  readRunHeaderLine,
  readRunText,
  runChainLines,
  runHeaderScope,
  splitChainedRunLine,
  tailRunText,
} from './run-store.js';

/** One stored entry as the search sees it: its run, position, fields and tokens. */
interface SearchEntry {
  readonly runId: string;
  readonly position: number;
  readonly fields: RunLineSearchFields;
  readonly document: SearchDocument;
}

/** The search entries of a run's text: one per complete entry (blank lines are none). */
function searchEntriesOf(runId: string, run: StoredRun): SearchEntry[] {
  const entries: SearchEntry[] = [];
  let start = 0;
  run.ends.forEach((end, index) => {
    // The entry is the last non-blank line before `end` (blank lines are skipped, not entries).
    const text = run.text.slice(start, end - 1);
    const lines = text.split('\n');
    const line = lines[lines.length - 1] as string;
    start = end;
    const fields = searchFieldsOfRunLine(line);
    entries.push({ runId, position: index + 1, fields, document: searchDocument(fields.text) });
  });
  return entries;
}

/** The in-memory run store adapter, plus a hook tests use to damage stored runs. */
export interface MemoryRunStoreAdapter extends RunStoreAdapter {
  /**
   * Appends raw text to a run's stored JSONL underneath the store (a torn write, a NUL run…), or
   * replaces it when `replace` is true. For tolerance tests; the run must exist.
   */
  writeRaw(runId: string, text: string, options?: { replace?: boolean }): void;
  /**
   * The run's stored lines, without their newlines (`null` when the run does not exist): what a
   * chain verifier reads (`createChainVerifier(…).line`).
   */
  readLines(runId: string): string[] | null;
}

/** Options of the memory run store. */
export interface MemoryRunStoreOptions {
  /**
   * Chain every appended line (docs/design/verify.md; the `chain` capability) with this SHA-256
   * and salt source. The store then declares no `redaction` (a redaction of chained lines needs
   * the erasure log, issue #34's next step) and reports no `headerLine` (its first line carries
   * its chain member). Absent: no chain, as before.
   */
  readonly chain?: ChainWriterOptions;
}

/** A record without its top-level `chain` member (what a chaining store's readers return). */
function withoutChain<Record extends RunRecord>(record: Record): Record {
  if (!Object.hasOwn(record, 'chain')) return record;
  const { chain: _chain, ...rest } = record as Record & { chain?: unknown };
  return rest as Record;
}

/**
 * One stored run: its JSONL text and where each entry ends, so a read after a position starts
 * there instead of at the beginning.
 */
interface StoredRun {
  text: string;
  /** `ends[k]`: the offset just after the newline of entry k + 1 (blank lines are no entries). */
  ends: number[];
  /** `lines[k]`: the 1-based line number of entry k + 1. */
  lines: number[];
  /** The offset after the last complete line indexed, and that line's number. */
  indexedTo: number;
  indexedLines: number;
  /** Where the run's chain stands (chaining stores only). */
  chain?: ChainState;
}

/** Indexes the complete lines added since the last call. */
function indexRun(run: StoredRun): void {
  let start = run.indexedTo;
  for (;;) {
    const end = run.text.indexOf('\n', start);
    if (end === -1) break;
    run.indexedLines++;
    if (!isBlankRunLine(run.text.slice(start, end), run.indexedLines === 1)) {
      run.ends.push(end + 1);
      run.lines.push(run.indexedLines);
    }
    start = end + 1;
  }
  run.indexedTo = start;
}

function storedRun(text: string): StoredRun {
  const run: StoredRun = { text, ends: [], lines: [], indexedTo: 0, indexedLines: 0 };
  indexRun(run);
  return run;
}

/**
 * The in-memory reference run store. Each run is kept as JSONL text, exactly as a run file holds
 * it, and read back through the same tolerant reader, so what a caller reads is always a fresh copy.
 */
export function createMemoryRunStoreAdapter(
  options: MemoryRunStoreOptions = {},
): MemoryRunStoreAdapter {
  const runs = new Map<string, StoredRun>();
  // Each run's search entries, made again when its text changed (an append, a redaction).
  const searchCache = new Map<string, { text: string; entries: SearchEntry[] }>();
  const searchEntries = (runId: string, run: StoredRun): SearchEntry[] => {
    const cached = searchCache.get(runId);
    if (cached !== undefined && cached.text === run.text) return cached.entries;
    const entries = searchEntriesOf(runId, run);
    searchCache.set(runId, { text: run.text, entries });
    return entries;
  };
  /** True when a run's header passes the plan's header filters (scope, session). */
  const headerPasses = (run: StoredRun, plan: RunSearchPlan): boolean => {
    if (plan.scope === undefined && plan.sessionId === undefined) return true;
    const header = readRunHeaderLine(firstLine(run.text));
    if (header === null) return false;
    if (plan.scope !== undefined && runHeaderScope(header) !== plan.scope) return false;
    if (plan.sessionId !== undefined && header.session_id?.toLowerCase() !== plan.sessionId)
      return false;
    return true;
  };
  const entryPasses = (entry: SearchEntry, plan: RunSearchPlan): boolean => {
    if (plan.types !== undefined && !plan.types.includes(entry.fields.type)) return false;
    const tsMs = entry.fields.tsMs;
    if (plan.fromMs !== undefined && (tsMs === null || tsMs < plan.fromMs)) return false;
    if (plan.toMs !== undefined && (tsMs === null || tsMs > plan.toMs)) return false;
    return true;
  };
  const writer: ChainWriter | undefined =
    options.chain === undefined ? undefined : createChainWriter(options.chain);
  const strip = <Result extends { records: RunRecord[]; header?: RunHeader | null }>(
    result: Result,
  ): Result => {
    if (writer === undefined) return result;
    const stripped = { ...result, records: result.records.map(withoutChain) };
    if (result.header !== undefined && result.header !== null)
      stripped.header = withoutChain(result.header);
    return stripped;
  };
  const firstLine = (text: string) => {
    const end = text.indexOf('\n');
    return end === -1 ? text : text.slice(0, end);
  };
  const storedHeader = (runId: string): RunHeader | null | undefined => {
    const run = runs.get(runId);
    if (run === undefined) return undefined;
    const header = readRunHeaderLine(firstLine(run.text));
    return header === null || writer === undefined ? header : withoutChain(header);
  };
  /** The header line `list` gives: without its chain member on a chaining store. */
  const listedHeader = (text: string): string => {
    const line = firstLine(text);
    if (writer === undefined) return line;
    const header = readRunHeaderLine(line);
    return header === null ? line : JSON.stringify(withoutChain(header));
  };
  const write = (runId: string, entries: readonly RunRecordEntry[]): number => {
    const toWrite = planRunAppend(runId, storedHeader(runId), entries);
    if (toWrite.length === 0) return 0;
    const run = runs.get(runId) ?? storedRun('');
    let text = run.text;
    // A torn fragment stays one bad line instead of swallowing the next record.
    if (text !== '' && !text.endsWith('\n')) text += '\n';
    if (writer === undefined) for (const entry of toWrite) text += `${entry.json}\n`;
    else {
      // Stamp every line first: a refused record (one carrying its own chain) writes nothing.
      let state = run.chain ?? newChainState(run.ends.length);
      let lines = '';
      for (const entry of toWrite) {
        // The last line a writer writes before a run ends stores the head (verify.md 1.4).
        const stamp = writer.stampLine(state, entry.json, {
          head: entry.record.type === 'run.end',
        });
        lines += `${stamp.line}\n`;
        state = stamp.state;
      }
      text += lines;
      run.chain = state;
    }
    run.text = text;
    indexRun(run);
    runs.set(runId, run);
    return toWrite.length;
  };
  return {
    specificationVersion: 'v1',
    name: 'memory',
    capabilities: {
      crossProcessAppends: false,
      durability: 'none',
      toolOutputCache: false,
      redaction: writer === undefined,
      headerLine: writer === undefined,
      search: true,
      ...(writer === undefined ? {} : { chain: true }),
    },
    append: write,
    appendAt(runId, entries, expectedPosition, expectedHeaderLine) {
      const run = runs.get(runId);
      assertExpectedRunHeader(
        runId,
        run === undefined ? undefined : firstLine(run.text),
        expectedHeaderLine,
      );
      assertExpectedRunPosition(runId, run?.ends.length ?? 0, expectedPosition);
      const appended = write(runId, entries);
      return { appended, position: runs.get(runId)?.ends.length ?? 0 };
    },
    read(runId) {
      const run = runs.get(runId);
      return run === undefined ? null : strip(readRunText(runId, run.text));
    },
    readAfter(runId, position) {
      const run = runs.get(runId);
      if (run === undefined) return null;
      if (position > run.ends.length) throw positionBeyondEnd(runId, position, run.ends.length);
      const collector = createRunReadCollector(runId, position);
      const offset = position === 0 ? 0 : (run.ends[position - 1] as number);
      const lineNumber = position === 0 ? 0 : (run.lines[position - 1] as number);
      feedRunText(collector, run.text, offset, lineNumber);
      if (writer !== undefined) return strip(collector.resultAfter());
      return { ...collector.resultAfter(), headerLine: firstLine(run.text) };
    },
    tail(runId, count) {
      const run = runs.get(runId);
      if (run === undefined) return null;
      if (writer !== undefined) return strip(tailRunText(runId, run.text, count));
      return { ...tailRunText(runId, run.text, count), headerLine: firstLine(run.text) };
    },
    runIdsWithPrefix(prefix, limit) {
      return [...runs.keys()]
        .filter((runId) => runId.startsWith(prefix))
        .sort()
        .slice(0, limit);
    },
    list(filter) {
      // Given run ids are looked up one by one, whatever the store's size.
      const listed =
        filter.runIds === undefined
          ? [...runs]
          : [...filter.runIds].flatMap((runId) => {
              const run = runs.get(runId);
              return run === undefined ? [] : [[runId, run] as const];
            });
      return {
        rows: listed.map(([runId, run]) => ({ runId, header: listedHeader(run.text) })),
      };
    },
    delete(runId) {
      searchCache.delete(runId);
      return runs.delete(runId);
    },
    search(plan) {
      // BM25 over every stored entry of every run (as FTS5 keeps its statistics), ranking the
      // entries the plan's filters select; ties by run id, then position.
      const corpus: SearchDocument[] = [];
      const candidates: Array<readonly [SearchEntry, SearchDocument]> = [];
      for (const [runId, run] of runs) {
        const entries = searchEntries(runId, run);
        const inRun = (plan.runId === undefined || plan.runId === runId) && headerPasses(run, plan);
        for (const entry of entries) {
          corpus.push(entry.document);
          if (inRun && entryPasses(entry, plan)) candidates.push([entry, entry.document]);
        }
      }
      return rankDocuments(corpus, candidates, plan.match)
        .filter(
          ({ key, score }) =>
            plan.after === undefined ||
            isAfterRunSearchPoint(score, key.runId, key.position, plan.after),
        )
        .sort(
          (left, right) =>
            right.score - left.score ||
            (left.key.runId < right.key.runId ? -1 : left.key.runId > right.key.runId ? 1 : 0) ||
            left.key.position - right.key.position,
        )
        .slice(0, plan.limit)
        .map(
          ({ key, score, snippet }): RunSearchRow => ({
            run_id: key.runId,
            position: key.position,
            type: key.fields.type,
            ts_ms: key.fields.tsMs,
            score,
            snippet,
          }),
        );
    },
    redact(runId, redactor) {
      const run = runs.get(runId);
      if (run === undefined) return null;
      const lines = run.text.split('\n');
      // After the last newline: empty, or a torn tail that stays without its newline.
      const tail = lines.pop() as string;
      let output = '';
      let changedLines = 0;
      const rewrite = (line: string, ending: string) => {
        const next = redactor.line(line);
        if (next !== line) changedLines++;
        output += next + ending;
      };
      for (const line of lines) rewrite(line, '\n');
      if (tail !== '') rewrite(tail, '');
      runs.set(runId, storedRun(output));
      return { changedLines, changedToolOutputs: 0 };
    },
    ...(writer === undefined
      ? {}
      : {
          readChain(runId: string) {
            const run = runs.get(runId);
            return run === undefined ? null : runChainLines(run.text);
          },
          importChained(runId: string, entries: readonly RunRecordEntry[]) {
            if (runs.has(runId)) {
              throw new EpisodicError({
                code: 'CONFLICT',
                message: `Run ${runId} exists already: an import with proofs writes new runs only, byte for byte. Import into another store, or delete the run first.`,
                details: { runId },
              });
            }
            const toWrite = planRunAppend(runId, undefined, entries);
            const run = storedRun(toWrite.map((entry) => `${entry.json}\n`).join(''));
            // The chain resumes after the imported lines: from the last segment boundary (or the
            // first chained line) to the end, with the stream key of the line that carries it.
            const members = toWrite.map((entry) => splitChainedRunLine(entry.json)?.chain ?? null);
            const key = members.find((member) => member?.k !== undefined)?.k ?? null;
            let start = -1;
            for (let index = members.length - 1; index >= 0; index--) {
              const member = members[index];
              if (member === null || member === undefined) break;
              if (member.k !== undefined || member.n % 64 === 0) {
                start = index;
                break;
              }
            }
            run.chain =
              start === -1
                ? newChainState(run.ends.length)
                : resumeChainState(members.slice(start), key);
            indexRun(run);
            runs.set(runId, run);
            return toWrite.length;
          },
        }),
    readLines(runId) {
      const run = runs.get(runId);
      if (run === undefined) return null;
      const lines = run.text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      return lines;
    },
    writeRaw(runId, text, options) {
      const id = runId.toLowerCase();
      const stored = runs.get(id);
      if (stored === undefined) throw new Error(`run ${id} does not exist`);
      runs.set(id, storedRun(options?.replace === true ? text : stored.text + text));
    },
  };
}

/** An in-memory `RunStore` (for tests, examples and short-lived agents). */
export function createMemoryRunStore(options: MemoryRunStoreOptions = {}): RunStore {
  return createRunStore(createMemoryRunStoreAdapter(options));
}
