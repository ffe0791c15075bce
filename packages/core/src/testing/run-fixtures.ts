import type { RunRecord } from '../schema/run-record.js';

/** Fixed ids and records for the run store suite. */
export const SESSION_A = '5b0d1a8e-2c3f-4a5b-8c6d-7e8f9a0b1c2d';
export const SESSION_B = '9c8b7a6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d';

/** A deterministic UUIDv4 for the `index`-th run of a test. */
export function runIdFor(index: number): string {
  const hex = index.toString(16).padStart(12, '0');
  return `0f0e0d0c-0b0a-4908-8706-${hex}`;
}

/** A header for run `runId`, started at `startedAt`. */
export function headerFor(
  runId: string,
  options: { sessionId?: string; startedAt?: string; schemaVersion?: number } = {},
): RunRecord {
  return {
    type: 'header',
    schema_version: options.schemaVersion ?? 1,
    run_id: runId,
    session_id: options.sessionId ?? SESSION_A,
    started_at: options.startedAt ?? '2026-02-03T12:00:00.000Z',
    client: { name: 'conformance', version: '1.0.0' },
    model: { provider: 'test', name: 'test-model' },
    runtime: { cwd: '/work/project', os: 'linux' },
  };
}

/** An `agent.event` record with `seq`. */
export function agentEvent(
  runId: string,
  seq: number,
  extra: Record<string, unknown> = {},
): RunRecord {
  return {
    type: 'agent.event',
    run_id: runId,
    ts: `2026-02-03T12:00:${String(Math.min(seq, 59)).padStart(2, '0')}.000Z`,
    seq,
    event: { type: 'text', content: `event ${seq}` },
    ...extra,
  };
}

/** A full, ended run: header, start, status, `events` agent events, completed status and end. */
export function completedRun(runId: string, events = 3, sessionId?: string): RunRecord[] {
  const ts = '2026-02-03T12:01:00.000Z';
  return [
    headerFor(runId, sessionId === undefined ? {} : { sessionId }),
    {
      type: 'run.start',
      run_id: runId,
      ts,
      input: { type: 'text', text: 'list files' },
      ui_context: { cwd: '/work/project' },
    },
    { type: 'run.status', run_id: runId, ts, status: 'running' },
    ...Array.from({ length: events }, (_, seq) => agentEvent(runId, seq)),
    { type: 'run.status', run_id: runId, ts, status: 'completed' },
    { type: 'run.end', run_id: runId, ts, outcome: 'completed', final: 'done' },
  ];
}
