import { createHash } from 'node:crypto';
import {
  type ChainMember,
  createMemoryLedger,
  EpisodicError,
  type ErasureEntry,
  type LedgerOptions,
  type RunRecord,
  type SessionState,
} from '@episodic/core';
import {
  chainMemberText,
  createChainVerifier,
  prepareRunRecords,
  safeJsonParse,
} from '@episodic/core/adapter';
import { CONTENT_KINDS } from '@episodic/core/schemas';
import type { ExportedLearning } from './artifact-transfer.js';
import {
  EXPORT_FORMAT,
  type ExportCounts,
  type ExportedLedgerEvent,
  type ExportFormat,
  type ExportSelection,
  exportBodyLineSchema,
  exportHeaderLineSchema,
} from './export-format.js';

/** A run as an export holds it: its records in order, header first. */
export interface ExportedRun {
  readonly runId: string;
  readonly records: RunRecord[];
  /** The line of its first record. */
  readonly line: number;
  /**
   * With proofs (v3, a chained run): its stored lines as the source home held them, each the
   * record's own JSON text with its `chain` member last (lines without one as the record's text).
   */
  readonly lines?: string[];
}

/** A run line of the export whose proof does not check (a v3 file changed after export). */
export interface ExportProofFinding {
  readonly line: number;
  readonly runId: string;
  readonly finding: string;
  readonly n?: number;
}

/** An export, parsed and fully validated. */
export interface ParsedExport {
  readonly selection: ExportSelection;
  readonly sessions: ReadonlyArray<{ state: SessionState; line: number }>;
  readonly runs: readonly ExportedRun[];
  readonly events: ReadonlyArray<{ event: ExportedLedgerEvent; line: number }>;
  /** Artifacts and episode metadata (exports since `episodic.export.v2`). */
  readonly learning: ExportedLearning;
  readonly counts: ExportCounts;
  /** The format of the file's header. */
  readonly format: ExportFormat;
  /** The erasure log entries it carries (v3). */
  readonly erasures: ErasureEntry[];
  /** Proofs that do not check against the lines they cover (v3): the file was changed. */
  readonly proofFindings: ExportProofFinding[];
}

/** Caps and guards wide enough for anything a ledger stored before (the data was accepted once). */
export const IMPORT_LEDGER_OPTIONS: LedgerOptions = {
  caps: {
    payloadBytes: 1_000_000_000,
    refsBytes: 1_000_000_000,
    summaryBytes: 1_000_000_000,
    metadataBytes: 1_000_000_000,
  },
  contentGuard: { allow: [...CONTENT_KINDS] },
};

function invalid(line: number, message: string): EpisodicError {
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid export, line ${line}: ${message}. Nothing was imported.`,
    details: { line },
  });
}

/** The event as the ledger's `append` takes it (what it fills in itself is left out). */
export function newEventOf(event: ExportedLedgerEvent) {
  return {
    event_id: event.event_id,
    ts_ms: event.ts_ms,
    scope: event.scope,
    session_id: event.session_id,
    agent_id: event.agent_id,
    type: event.type,
    summary: event.summary,
    ...(event.payload === null ? {} : { payload: event.payload }),
    ...(event.refs === null ? {} : { refs: event.refs }),
    ...(event.metadata === undefined ? {} : { metadata: event.metadata }),
  };
}

/**
 * Parses and validates a whole export before anything is written: the header, every line's shape,
 * every run's records (with core's run-record rules), every ledger event (with core's ledger
 * rules), no id twice, and the trailer's counts (a truncated file is refused).
 */
export async function readExport(text: string): Promise<ParsedExport> {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) throw invalid(1, 'the file is empty');
  const values = lines.map((raw, index) => {
    const parsed = safeJsonParse(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (!parsed.success) throw invalid(index + 1, `not valid JSON (${parsed.error})`);
    return parsed.value;
  });
  const header = exportHeaderLineSchema.safeParse(values[0]);
  if (!header.success) {
    throw invalid(
      1,
      'not an Episodic export header ({"type":"export.header","format":"episodic.export.v2",…})',
    );
  }
  const sessions: { state: SessionState; line: number }[] = [];
  const runs: ExportedRun[] = [];
  const events: { event: ExportedLedgerEvent; line: number }[] = [];
  const learning: ExportedLearning = { artifacts: [], metadata: [] };
  const seenArtifacts = new Set<string>();
  const seenMetadata = new Set<string>();
  const seenSessions = new Set<string>();
  const seenRuns = new Set<string>();
  const seenEvents = new Set<string>();
  const format = header.data.format;
  const erasures: ErasureEntry[] = [];
  const seenErasures = new Set<string>();
  let counts: ExportCounts | undefined;
  let current:
    | { runId: string; records: RunRecord[]; line: number; chains: (ChainMember | undefined)[] }
    | undefined;
  const closeRun = () => {
    if (current === undefined) return;
    let entries: ReturnType<typeof prepareRunRecords>;
    try {
      entries = prepareRunRecords(current.runId, current.records);
    } catch (error) {
      const message = EpisodicError.isInstance(error) ? error.message : String(error);
      throw invalid(current.line, `run ${current.runId}: ${message}`);
    }
    if (current.records[0]?.type !== 'header')
      throw invalid(current.line, `run ${current.runId} does not start with its header`);
    const { runId, records, line, chains } = current;
    if (chains.some((chain) => chain !== undefined)) {
      // The stored lines, rebuilt: the record's own JSON text, then its chain member.
      const lines = entries.map(({ json }, index) => {
        const chain = chains[index];
        return chain === undefined
          ? json
          : `${json.slice(0, -1)},"chain":${chainMemberText(chain)}}`;
      });
      runs.push({ runId, records, line, lines });
    } else runs.push({ runId, records, line });
    current = undefined;
  };
  for (let index = 1; index < values.length; index++) {
    const line = index + 1;
    if (counts !== undefined) throw invalid(line, 'content after the export.end line');
    const parsed = exportBodyLineSchema.safeParse(values[index]);
    if (!parsed.success) {
      const [issue] = parsed.error.issues;
      throw invalid(
        line,
        `${issue?.path.join('.') || 'the line'}: ${issue?.message ?? 'not an export line'}`,
      );
    }
    const value = parsed.data;
    if (value.type !== 'run.record' || current?.runId !== value.run_id) closeRun();
    switch (value.type) {
      case 'session': {
        const id = value.session_id.toLowerCase();
        if (value.state.session_id.toLowerCase() !== id)
          throw invalid(line, `the snapshot holds session ${value.state.session_id}, not ${id}`);
        if (seenSessions.has(id)) throw invalid(line, `session ${id} appears twice`);
        seenSessions.add(id);
        sessions.push({ state: value.state, line });
        break;
      }
      case 'run.record': {
        const id = value.run_id.toLowerCase();
        if (value.chain !== undefined && format !== EXPORT_FORMAT)
          throw invalid(
            line,
            `a chain member in a ${format} file (proofs came with ${EXPORT_FORMAT})`,
          );
        if (current === undefined) {
          if (seenRuns.has(id)) throw invalid(line, `the records of run ${id} are not consecutive`);
          seenRuns.add(id);
          current = { runId: id, records: [], line, chains: [] };
        }
        current.records.push(value.record as RunRecord);
        current.chains.push(value.chain);
        break;
      }
      case 'erasure': {
        if (format !== EXPORT_FORMAT)
          throw invalid(
            line,
            `an erasure line in a ${format} file (they came with ${EXPORT_FORMAT})`,
          );
        if (value.entry.op === 'import')
          throw invalid(line, "an import entry is the exporting home's own and is never exported");
        if (seenErasures.has(value.entry.id))
          throw invalid(line, `erasure entry ${value.entry.id} appears twice`);
        seenErasures.add(value.entry.id);
        erasures.push(value.entry);
        break;
      }
      case 'ledger.event': {
        if (seenEvents.has(value.event.event_id))
          throw invalid(line, `event ${value.event.event_id} appears twice`);
        seenEvents.add(value.event.event_id);
        events.push({ event: value.event, line });
        break;
      }
      case 'episode.metadata': {
        if (seenMetadata.has(value.episode))
          throw invalid(line, `the metadata of episode ${value.episode} appears twice`);
        seenMetadata.add(value.episode);
        learning.metadata.push({ episode: value.episode, metadata: value.metadata });
        break;
      }
      case 'artifact': {
        if (seenArtifacts.has(value.artifact.key))
          throw invalid(line, `artifact ${value.artifact.key} appears twice`);
        seenArtifacts.add(value.artifact.key);
        learning.artifacts.push(value.artifact);
        break;
      }
      case 'export.end':
        counts = value.counts;
        break;
    }
  }
  closeRun();
  if (counts === undefined) {
    throw invalid(
      lines.length,
      'the export.end line is missing: the file was cut short (copy it again)',
    );
  }
  const records = runs.reduce((sum, run) => sum + run.records.length, 0);
  const found = {
    sessions: sessions.length,
    runs: runs.length,
    records,
    events: events.length,
    artifacts: learning.artifacts.length,
    episode_metadata: learning.metadata.length,
    ...(counts.erasures === undefined && erasures.length === 0
      ? {}
      : { erasures: erasures.length }),
  };
  if (JSON.stringify(found) !== JSON.stringify(counts)) {
    throw invalid(
      lines.length,
      `the counts ${JSON.stringify(counts)} do not match the content ${JSON.stringify(found)}`,
    );
  }
  // Every ledger rule runs on each event (scope, type, sizes) without storage.
  const check = createMemoryLedger(IMPORT_LEDGER_OPTIONS);
  for (const { event, line } of events) {
    try {
      await check.append(newEventOf(event));
    } catch (error) {
      throw invalid(
        line,
        `event ${event.event_id}: ${EpisodicError.isInstance(error) ? error.message : String(error)}`,
      );
    }
  }
  return {
    selection: header.data.selection,
    sessions,
    runs,
    events,
    learning,
    counts,
    format,
    erasures,
    proofFindings: checkProofs(runs, erasures),
  };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

/**
 * The proofs of a v3 file checked against the lines they cover, with core's verifier: a changed
 * byte in an exported record (or member) is `altered` at its export line. Import goes on (the
 * records are valid; the target's `episodic verify` names the same entries) and says so.
 */
function checkProofs(runs: readonly ExportedRun[], erasures: ErasureEntry[]): ExportProofFinding[] {
  const chained = runs.filter((run) => run.lines !== undefined);
  if (chained.length === 0) return [];
  const verifier = createChainVerifier({ sha256, erasures, maxFindings: 1000 });
  for (const run of chained) {
    const stream = { kind: 'run', id: run.runId } as const;
    for (const [index, text] of (run.lines as string[]).entries())
      verifier.line(stream, text, { line: run.line + index });
    verifier.endStream(stream);
  }
  return verifier
    .report()
    .findings.filter((finding) => finding.severity === 'error')
    .map((finding) => ({
      line: finding.where?.line ?? 0,
      runId: finding.stream.id ?? '',
      finding: finding.finding,
      ...(finding.n === undefined ? {} : { n: finding.n }),
    }));
}
