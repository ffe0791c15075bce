// The trace API on real run records: written through the real fs store (the UI's test home, a run
// with known times), and Codex and OpenAI transcripts imported with @episodic/interop.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSession, EpisodicError, type RunRecord } from '@episodic/core';
import { importTranscript, saveImport } from '@episodic/interop';
import { createFsStore } from '@episodic/store-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { runTrace, sessionTrace } from './trace-api.js';
import type { TraceSpan } from './trace-types.js';

const TRANSCRIPTS = new URL('../../../../fixtures/transcripts/', import.meta.url);
const CODEX = 'codex/rollout-2025-10-29T00-59-38-0199a2f4-6b1c-7d22-9e31-4c5a6b7c8d9e.jsonl';

let home: UiHome;
let dir: string;
let files: ReturnType<typeof createFsStore>;

const TIMED_RUN = '00000000-0000-4000-8000-0000000000a1';
const TWO_TURNS = '00000000-0000-4000-8000-0000000000a2';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** A turn as a live recorder writes it: ask, answer with a tool call, run it (it fails), ask again, the provider fails. */
function timedRun(runId: string): RunRecord[] {
  const turn = { turn_id: 'turn-aaaa-1' };
  return [
    {
      type: 'header',
      schema_version: 1,
      run_id: runId,
      started_at: at(0),
      model: { provider: 'p', name: 'm-1' },
    },
    {
      type: 'run.start',
      run_id: runId,
      ts: at(0),
      meta: turn,
      input: { type: 'text', text: 'Go' },
    },
    {
      type: 'llm.request',
      run_id: runId,
      ts: at(100),
      seq: 1,
      meta: turn,
      input: { messages: [{ role: 'user', content: 'Go' }] },
    },
    {
      type: 'llm.response',
      run_id: runId,
      ts: at(1300),
      seq: 1,
      output: {
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'grep', arguments: '{"q":"x"}' } },
            ],
          },
        ],
        usage: {
          model: 'm-1',
          input_tokens: 500,
          input_cached_tokens: 200,
          output_tokens: 40,
          total_tokens: 540,
        },
        stop_reason: 'tool_use',
      },
    },
    {
      type: 'agent.event',
      run_id: runId,
      ts: at(1310),
      seq: 0,
      event: { type: 'tool_call', tool: 'grep', args: { q: 'x' }, tool_call_id: 'c1' },
    },
    {
      type: 'tool.output',
      run_id: runId,
      ts: at(1810),
      tool: 'grep',
      tool_call_id: 'c1',
      result_raw: 'grep: no index',
      is_error: true,
    },
    {
      type: 'llm.request',
      run_id: runId,
      ts: at(1900),
      seq: 2,
      meta: turn,
      input: { messages: [{ role: 'user', content: 'Go' }] },
    },
    {
      type: 'run.error',
      run_id: runId,
      ts: at(2400),
      error: { name: 'ProviderError', message: 'HTTP 503' },
    },
    { type: 'run.end', run_id: runId, ts: at(2410), outcome: 'error' },
  ] as RunRecord[];
}

/** One run holding two turns (a recorder that keeps one run across turns). */
function twoTurns(runId: string): RunRecord[] {
  const request = (seq: number, ms: number, turn: string) =>
    ({
      type: 'llm.request',
      run_id: runId,
      ts: at(ms),
      seq,
      meta: { turn_id: turn },
      input: { messages: [] },
    }) as RunRecord;
  const response = (seq: number, ms: number, tokens: number) =>
    ({
      type: 'llm.response',
      run_id: runId,
      ts: at(ms),
      seq,
      output: {
        messages: [{ role: 'assistant', content: 'ok' }],
        usage: { model: 'm', input_tokens: tokens, output_tokens: 5, total_tokens: tokens + 5 },
      },
    }) as RunRecord;
  return [
    { type: 'header', schema_version: 1, run_id: runId, started_at: at(0) } as RunRecord,
    {
      type: 'run.start',
      run_id: runId,
      ts: at(0),
      input: { type: 'text', text: 'a' },
    } as RunRecord,
    request(1, 10, 'first-turn'),
    response(1, 210, 100),
    request(2, 5000, 'second-turn'),
    response(2, 5600, 300),
    { type: 'run.end', run_id: runId, ts: at(5700), outcome: 'completed' } as RunRecord,
  ];
}

const kinds = (node: TraceSpan): string[] => [node.kind, ...node.children.flatMap(kinds)];
const find = (node: TraceSpan, id: string): TraceSpan | undefined =>
  node.id === id ? node : node.children.map((child) => find(child, id)).find(Boolean);

beforeAll(async () => {
  home = await createUiHome();
  await home.stores.runs.append(TIMED_RUN, timedRun(TIMED_RUN));
  await home.stores.runs.append(TWO_TURNS, twoTurns(TWO_TURNS));
  dir = mkdtempSync(join(tmpdir(), 'episodic-ui-trace-'));
  files = createFsStore({ root: dir, durability: 'none' });
});
afterAll(async () => {
  await files?.close();
  rmSync(dir, { recursive: true, force: true });
  await home.close();
});

describe('GET /api/runs/:id/trace', () => {
  it('times each model and tool call from the records, with tokens and errors', async () => {
    const trace = await runTrace(home.stores.runs, TIMED_RUN, {});
    expect(trace.timed).toBe(true);
    expect(trace.origin).toBe(at(0));
    expect(trace.status).toBe('failed');
    expect(
      trace.root.children.map((node) => [node.id, node.start_ms, node.end_ms, node.status]),
    ).toEqual([
      ['model:1', 100, 1300, 'ok'],
      ['tool:c1', 1310, 1810, 'error'],
      ['model:2', 1900, 2400, 'error'],
      ['error:7', 2400, 2400, 'error'],
    ]);
    const [first, tool, second] = trace.root.children;
    expect(first?.duration_ms).toBe(1200);
    expect(first?.tokens).toEqual({ input: 500, output: 40, cached: 200 });
    expect(first?.detail).toBe('m-1 · asked for grep · stop: tool_use');
    expect(tool).toMatchObject({
      name: 'grep',
      requested_by: 1,
      error: 'grep: no index',
      duration_ms: 500,
    });
    expect(second?.error).toBe('ProviderError: HTTP 503');
    expect(second?.missing).toEqual(['no answer: the run failed while the model was being asked']);
    expect(trace.root).toMatchObject({
      start_ms: 0,
      end_ms: 2410,
      status: 'error',
      error: 'ProviderError: HTTP 503',
    });
    expect(trace.extent_ms).toBe(2410);
    expect(trace.totals).toEqual({
      model_calls: 2,
      tool_calls: 1,
      errors: 2,
      tokens: { input: 500, output: 40, cached: 200 },
      calls_without_usage: 1,
      model_ms: 1700,
      tool_ms: 500,
    });
    // One turn is not a level of its own, but it is named.
    expect(trace.turns).toEqual([{ turn_id: 'turn-aaaa-1', start_ms: 0 }]);
  });

  it('splits a run of several turns, and shows one turn with ?turn=', async () => {
    const whole = await runTrace(home.stores.runs, TWO_TURNS, {});
    expect(kinds(whole.root)).toEqual(['run', 'turn', 'model', 'turn', 'model']);
    expect(whole.root.children.map((turn) => [turn.detail, turn.start_ms, turn.end_ms])).toEqual([
      ['first-turn', 10, 210],
      ['second-turn', 5000, 5600],
    ]);
    const second = await runTrace(home.stores.runs, TWO_TURNS, { turn: 'second-turn' });
    expect(second.turn_id).toBe('second-turn');
    expect(second.root.id).toBe('turn:second-turn');
    expect(second.totals.tokens).toEqual({ input: 300, output: 5, cached: null });
    await expect(runTrace(home.stores.runs, TWO_TURNS, { turn: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining("The run's turns are first-turn, second-turn."),
    });
  });

  it("marks the fixture home's failed tool output, run.error and a run still going", async () => {
    const tool = await runTrace(home.stores.runs, home.ids.toolRunId, {});
    expect(find(tool.root, 'tool:call_2')).toMatchObject({
      status: 'error',
      error: 'no such index',
      requested_by: null,
    });
    expect(find(tool.root, 'tool:call_1')).toMatchObject({ status: 'ok', requested_by: 1 });
    expect(find(tool.root, 'model:1')?.tokens).toEqual({ input: 150, output: 7, cached: null });
    const failed = await runTrace(home.stores.runs, home.ids.failedRunId, {});
    expect(failed.root.children.map((node) => [node.kind, node.error])).toEqual([
      ['error', 'ProviderError: HTTP 503 from the provider'],
    ]);
    expect(failed.totals.errors).toBe(1);
    const running = await runTrace(home.stores.runs, home.ids.runningRunId, {});
    expect(running.root).toMatchObject({ status: 'open', end_ms: null, duration_ms: null });
    expect(running.root.missing[0]).toMatch(/no run\.end/);
  });

  it('says what an imported Codex run does not record: no request, so no model latency', async () => {
    const imported = importTranscript('codex', readFileSync(new URL(CODEX, TRANSCRIPTS), 'utf8'));
    await saveImport({ sessions: files.sessions, runs: files.runs }, imported.conversations);
    const conversation = imported.conversations[0];
    const runId = conversation?.runs[0]?.runId as string;
    const trace = await runTrace(files.runs, runId, {});
    expect(trace.imported_from).toBe('codex');
    expect(trace.timed).toBe(true);
    expect(trace.missing.join(' ')).toMatch(/Imported from a codex transcript.*no llm\.request/);
    const model = trace.root.children.find((node) => node.kind === 'model');
    expect(model).toMatchObject({
      start_ms: null,
      duration_ms: null,
      tokens: { input: 5210, output: 188, cached: 3072 },
    });
    expect(model?.end_ms).toBeGreaterThan(0);
    expect(model?.missing[0]).toMatch(/^no llm\.request/);
    // Tool calls keep their times: the call and its output are both in the transcript.
    const tool = trace.root.children.find((node) => node.kind === 'tool');
    expect(tool).toMatchObject({ name: 'shell', duration_ms: 6803, requested_by: 1 });
    expect(trace.totals.model_ms).toBeNull();

    // An imported session names only its last run: every run of it is found by the headers.
    const session = await sessionTrace(
      { sessions: files.sessions, runs: files.runs },
      conversation?.sessionId as string,
      { runs: 'all' },
    );
    expect(
      session.turns.map((turn) => [turn.number, turn.totals.model_ms, turn.totals.tool_calls]),
    ).toEqual([
      [1, null, 1],
      [2, null, 1],
    ]);
    expect(session.turns[1]?.totals.calls_without_usage).toBe(1);
    expect(session.missing.join(' ')).toMatch(
      /2 turns have model calls without recorded request times/,
    );
    expect(session.missing.join(' ')).toMatch(/1 turn has model calls that report no token usage/);
  });

  it('renders an import whose source has no times at all, saying so', async () => {
    const imported = importTranscript(
      'openai',
      readFileSync(new URL('openai/responses-items.jsonl', TRANSCRIPTS), 'utf8'),
    );
    await saveImport({ sessions: files.sessions, runs: files.runs }, imported.conversations);
    const runId = imported.conversations[0]?.runs[0]?.runId as string;
    const trace = await runTrace(files.runs, runId, {});
    expect(trace.timed).toBe(false);
    expect(trace.missing[0]).toMatch(
      /^Every record of this run carries the same time \(1970-01-01T00:00:00\.000Z\)/,
    );
    expect(kinds(trace.root)).toEqual(['run', 'model', 'tool', 'model']);
    const spans = [trace.root, ...trace.root.children];
    expect(spans.every((node) => node.start_ms === null && node.end_ms === null)).toBe(true);
    expect(trace.extent_ms).toBe(0);
  });

  it('refuses a bad id or parameter, changing nothing', async () => {
    await expect(runTrace(home.stores.runs, 'nope', {})).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(runTrace(home.stores.runs, TIMED_RUN, { tern: 'x' })).rejects.toSatisfy((error) =>
      EpisodicError.hasCode(error, 'VALIDATION_ERROR'),
    );
    await expect(
      runTrace(home.stores.runs, '00000000-0000-4000-8000-0000000000ff', {}),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('GET /api/sessions/:id/trace', () => {
  it("charts the session's turns: tokens, latency, the failed turn; task episodes are not turns", async () => {
    // First the runs the session names (its cost follows the session), then every run of it.
    const named = await sessionTrace(home.stores, home.ids.sessionId);
    expect(named.runs).toBe('named');
    expect(named.turns.map((turn) => turn.run_id)).toEqual([
      home.ids.toolRunId,
      home.ids.secondRunId,
    ]);
    const trace = await sessionTrace(home.stores, home.ids.sessionId, { runs: 'all' });
    expect(
      trace.turns.map((turn) => [turn.number, turn.run_id, turn.status, turn.failed_turn]),
    ).toEqual([
      [1, home.ids.toolRunId, 'completed', false],
      [2, home.ids.failedRunId, 'failed', true],
      [3, home.ids.secondRunId, 'completed', false],
    ]);
    expect(trace.turns[0]?.totals).toMatchObject({
      model_calls: 1,
      tool_calls: 2,
      errors: 1,
      tokens: { input: 150, output: 7 },
    });
    expect(trace.turns[1]?.totals.errors).toBe(1);
    expect(trace.turns.every((turn) => turn.duration_ms !== null && turn.duration_ms >= 0)).toBe(
      true,
    );
    expect(trace.total_runs).toBe(3);
  });

  it('takes the turn of a multi-turn run one by one', async () => {
    const session = createSession({
      store: files.sessions,
      id: '00000000-0000-4000-8000-0000000000b1',
    });
    await session.runTurn(
      'hi',
      () => ({ output: [{ type: 'message', role: 'assistant', content: 'hello' }] }),
      {
        runId: TWO_TURNS,
      },
    );
    await files.runs.append(TWO_TURNS, twoTurns(TWO_TURNS));
    const trace = await sessionTrace({ sessions: files.sessions, runs: files.runs }, session.id);
    expect(
      trace.turns.map((turn) => [turn.turn_id, turn.duration_ms, turn.totals.tokens?.input]),
    ).toEqual([
      ['first-turn', 200, 100],
      ['second-turn', 600, 300],
    ]);
  });

  it('is NOT_FOUND for a session the home does not have', async () => {
    await expect(
      sessionTrace(home.stores, '00000000-0000-4000-8000-0000000000ee'),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
