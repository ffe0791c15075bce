import {
  createMemoryLedger,
  EpisodicError,
  type LedgerOptions,
  type RunRecord,
  type SessionState,
} from '@episodic/core';
import { prepareRunRecords, safeJsonParse } from '@episodic/core/adapter';
import { CONTENT_KINDS } from '@episodic/core/schemas';
import type { ExportedLearning } from './artifact-transfer.js';
import {
  type ExportCounts,
  type ExportedLedgerEvent,
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
  let counts: ExportCounts | undefined;
  let current: { runId: string; records: RunRecord[]; line: number } | undefined;
  const closeRun = () => {
    if (current === undefined) return;
    try {
      prepareRunRecords(current.runId, current.records);
    } catch (error) {
      const message = EpisodicError.isInstance(error) ? error.message : String(error);
      throw invalid(current.line, `run ${current.runId}: ${message}`);
    }
    if (current.records[0]?.type !== 'header')
      throw invalid(current.line, `run ${current.runId} does not start with its header`);
    runs.push(current);
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
        if (current === undefined) {
          if (seenRuns.has(id)) throw invalid(line, `the records of run ${id} are not consecutive`);
          seenRuns.add(id);
          current = { runId: id, records: [], line };
        }
        current.records.push(value.record as RunRecord);
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
  return { selection: header.data.selection, sessions, runs, events, learning, counts };
}
