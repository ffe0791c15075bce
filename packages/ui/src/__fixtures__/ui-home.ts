import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSession,
  createTaskLifecycle,
  type ModelCall,
  type RunRecord,
  type Session,
} from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import type { UiStores } from '../stores/ui-stores.js';

/** A tool output longer than the run view's preview, kept whole in the tool-output cache. */
export const LONG_OUTPUT = Array.from(
  { length: 400 },
  (_, line) => `line ${line}: ${'x'.repeat(20)}`,
).join('\n');

const now = () => new Date().toISOString();

/** A model that answers every input with one sentence, calling a tool on the first turn. */
const model: ModelCall = (request) => {
  const last = [...request.items]
    .reverse()
    .find((item) => item.type === 'message' && item.role === 'user');
  return {
    output: [
      {
        type: 'message',
        role: 'assistant',
        content: `answer to ${String((last as { content?: unknown })?.content)}`,
      },
    ],
    usage: { inputTokens: 100, outputTokens: 10 },
  };
};

function header(runId: string, sessionId: string | undefined, startedAt: string): RunRecord {
  return {
    type: 'header',
    schema_version: 1,
    run_id: runId,
    ...(sessionId === undefined ? {} : { session_id: sessionId }),
    started_at: startedAt,
    model: { provider: 'test', name: 'echo-1' },
  } as RunRecord;
}

/** Runs one turn of `session` recorded as run `runId` (its records written around the turn). */
async function recordedTurn(
  stores: { runs: UiStores['runs'] },
  session: Session,
  runId: string,
  input: string,
  extra: (at: string) => RunRecord[] = () => [],
): Promise<void> {
  const startedAt = now();
  await stores.runs.append(runId, [
    header(runId, session.id, startedAt),
    {
      type: 'run.start',
      run_id: runId,
      ts: startedAt,
      input: { type: 'text', text: input },
    } as RunRecord,
  ]);
  // As a recorder does: the session's commit names the run (the delta's run_id).
  await session.runTurn(input, model, { runId });
  const at = now();
  await stores.runs.append(runId, [
    ...extra(at),
    { type: 'run.status', run_id: runId, ts: at, status: 'completed' } as RunRecord,
    { type: 'run.end', run_id: runId, ts: now(), outcome: 'completed' } as RunRecord,
  ]);
}

/** The ids of what `createUiHome` wrote. */
export interface UiHomeIds {
  sessionId: string;
  forkId: string;
  /** T1: a tool call with a long output, and a model input whose manifest cut episodes by budget. */
  toolRunId: string;
  /** A failed turn: run.error and run.end "error", nothing committed. */
  failedRunId: string;
  /** T2, committed. */
  secondRunId: string;
  /** The fork's turn. */
  forkRunId: string;
  /** A run without run.end (still running). */
  runningRunId: string;
  /** A completed task episode. */
  taskId: string;
  /** A ledger event of scope "proj" that was redacted. */
  redactedEventId: string;
}

/** A temporary Episodic home written through the real stores (run files + SQLite), for the UI's tests. */
export interface UiHome {
  home: string;
  stores: UiStores;
  ids: UiHomeIds;
  close(): Promise<void>;
}

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export async function createUiHome(): Promise<UiHome> {
  const home = mkdtempSync(join(tmpdir(), 'episodic-ui-test-'));
  // The default fold policy: these small sessions are folded on every commit, their bases
  // naming the run of each commit (`episode_runs`), which the session page's per-turn runs read.
  const files = createFsStore({ root: home, durability: 'none' });
  const sqlite = createSqliteStore({ filename: join(home, 'episodic.db') });
  const stores: UiStores = {
    runs: files.runs,
    sessions: files.sessions,
    ledger: sqlite.ledger,
    artifacts: sqlite.artifacts,
    location: { home, database: join(home, 'episodic.db'), store: 'fs' },
    sqlite,
  };
  const ids: UiHomeIds = {
    sessionId: id(1),
    forkId: id(2),
    toolRunId: id(11),
    failedRunId: id(12),
    secondRunId: id(13),
    forkRunId: id(14),
    runningRunId: id(15),
    taskId: '',
    redactedEventId: '',
  };

  const session = createSession({ store: files.sessions, id: ids.sessionId });
  await recordedTurn(stores, session, ids.toolRunId, 'What is in the log?', (at) => [
    {
      type: 'llm.request',
      run_id: ids.toolRunId,
      ts: at,
      seq: 1,
      meta: {
        manifest: {
          start_id: 2,
          start: 'budget-boundary',
          item_count: 1,
          estimated_tokens: 50,
          budget: { limit: 100, last_input_tokens: 150, exceeded: true },
          dropped: { total: 1, by_reason: { budget: 1 }, budget_ids: [1] },
          notes: [
            {
              episode_id: 2,
              kind: 'synthesized-output',
              detail: 'tool call "call_9" had no output',
            },
          ],
        },
      },
      input: { messages: [{ role: 'user', content: 'What is in the log?' }] },
    } as RunRecord,
    {
      type: 'llm.response',
      run_id: ids.toolRunId,
      ts: at,
      seq: 1,
      output: {
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'read_log', arguments: '{"path":"app.log"}' },
              },
            ],
          },
        ],
        usage: { model: 'echo-1', input_tokens: 150, output_tokens: 7, total_tokens: 157 },
      },
    } as RunRecord,
    {
      type: 'agent.event',
      run_id: ids.toolRunId,
      ts: at,
      seq: 0,
      event: {
        type: 'tool_call',
        tool: 'read_log',
        args: { path: 'app.log' },
        tool_call_id: 'call_1',
      },
    } as RunRecord,
    {
      type: 'tool.output',
      run_id: ids.toolRunId,
      ts: at,
      tool: 'read_log',
      tool_call_id: 'call_1',
      result_raw: LONG_OUTPUT,
      output_ref: { id: 'call_1', byte_size: LONG_OUTPUT.length },
    } as RunRecord,
    {
      type: 'agent.event',
      run_id: ids.toolRunId,
      ts: at,
      seq: 1,
      event: { type: 'tool_call', tool: 'search', args: '{}', tool_call_id: 'call_2' },
    } as RunRecord,
    {
      type: 'tool.output',
      run_id: ids.toolRunId,
      ts: at,
      tool: 'search',
      tool_call_id: 'call_2',
      result_raw: 'no such index',
      is_error: true,
    } as RunRecord,
  ]);

  const failedAt = now();
  await files.runs.append(ids.failedRunId, [
    header(ids.failedRunId, ids.sessionId, failedAt),
    {
      type: 'run.start',
      run_id: ids.failedRunId,
      ts: failedAt,
      input: { type: 'text', text: 'Fail please' },
    } as RunRecord,
    {
      type: 'run.error',
      run_id: ids.failedRunId,
      ts: now(),
      error: { name: 'ProviderError', message: 'HTTP 503 from the provider' },
    } as RunRecord,
    { type: 'run.end', run_id: ids.failedRunId, ts: now(), outcome: 'error' } as RunRecord,
  ]);
  await new Promise((resolve) => setTimeout(resolve, 5));
  await recordedTurn(stores, session, ids.secondRunId, 'And then?');

  const fork = session.fork({ id: ids.forkId });
  await new Promise((resolve) => setTimeout(resolve, 5));
  await recordedTurn(stores, fork, ids.forkRunId, 'In the fork');

  const runningAt = now();
  await files.runs.append(ids.runningRunId, [
    header(ids.runningRunId, undefined, runningAt),
    {
      type: 'run.start',
      run_id: ids.runningRunId,
      ts: runningAt,
      input: { type: 'text', text: 'Still going' },
    } as RunRecord,
  ]);

  const tasks = createTaskLifecycle({ runs: files.runs, artifacts: sqlite.artifacts });
  const task = await tasks.createTask({
    task_description: 'Add rate limiting',
    domain: 'web-api',
    task_type: 'code_generation',
    metadata: { team: 'infra', priority: 3 },
  });
  ids.taskId = task.id;
  await tasks.addStep({
    episode_id: task.id,
    step_number: 1,
    tool: 'architect',
    action: 'Design it',
    result: { type: 'success', output: 'token bucket' },
    latency_ms: 120,
  });
  await tasks.addStep({
    episode_id: task.id,
    step_number: 2,
    tool: 'test_runner',
    action: 'Run tests',
    result: { type: 'error', message: '2 failures' },
    latency_ms: 900,
  });
  await tasks.addStep({
    episode_id: task.id,
    step_number: 3,
    tool: 'coder',
    action: 'Fix the tests',
    result: { type: 'success', output: 'green' },
    latency_ms: 300,
  });
  await tasks.completeTask({
    episode_id: task.id,
    outcome_type: 'success',
    verdict: 'Implemented and tested',
    artifacts: ['limiter.rs'],
  });

  for (let index = 0; index < 30; index++) {
    await sqlite.ledger.append({
      scope: 'proj',
      session_id: 's-1',
      agent_id: index % 3 === 0 ? 'planner' : 'worker',
      type: index % 2 === 0 ? 'conversation.user' : 'tool.call',
      summary: `event ${index}`,
      ts_ms: 1_767_225_600_000 + index * 1000,
      payload: { index, secret_free: true },
    });
  }
  const target = await sqlite.ledger.append({
    scope: 'proj',
    session_id: 's-2',
    agent_id: 'worker',
    type: 'ops.alert',
    summary: 'contained something private',
    ts_ms: 1_767_225_700_000,
    payload: { note: 'private' },
  });
  ids.redactedEventId = target.event.event_id;
  await sqlite.ledger.redact({ scope: 'proj', eventId: target.event.event_id });
  await sqlite.ledger.append({
    scope: 'other',
    session_id: 's-9',
    agent_id: 'x',
    type: 'ops.decision',
    summary: 'other scope',
  });

  return {
    home,
    stores,
    ids,
    async close() {
      await files.close();
      await sqlite.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
