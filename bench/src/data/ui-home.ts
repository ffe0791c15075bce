import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSession, type ModelCall, type RunRecord } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import { createRandom, prose } from './text.js';

const UI_HOME_VERSION = 2;

/** What the UI rows browse: run files and session snapshots under a home (the ledger is the 1M one). */
export interface UiHomeDataset {
  home: string;
  runs: number;
  sessions: string[];
  /** A run with tool calls, model inputs and a long output, to open. */
  sampleRunId: string;
}

const T0 = Date.UTC(2026, 0, 1);
const RUN_SPACING_MS = 13 * 60_000;

function uiRunId(index: number): string {
  return `0e100000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

function sessionIdOf(index: number): string {
  return `0e1c0000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

/** One run in seven fails (a provider error): a failed turn of its session. */
const isFailedRun = (index: number) => index % 7 === 0;

/** The records of run `index`: a header, its input, a model call, a tool call and output, the end. */
function runOf(index: number, sessionId: string): RunRecord[] {
  const runId = uiRunId(index);
  const random = createRandom(index + 17);
  const at = (offset: number) => new Date(T0 + index * RUN_SPACING_MS + offset).toISOString();
  const failed = isFailedRun(index);
  const output = index % 50 === 0 ? prose(random, 12_000) : prose(random, 400);
  const callId = `call_${index}`;
  const records: RunRecord[] = [
    {
      type: 'header',
      schema_version: 1,
      run_id: runId,
      session_id: sessionId,
      started_at: at(0),
      model: { provider: 'bench', name: 'bench-model' },
    },
    {
      type: 'run.start',
      run_id: runId,
      ts: at(1),
      input: { type: 'text', text: prose(random, 80) },
    },
    {
      type: 'llm.request',
      run_id: runId,
      ts: at(2),
      seq: 1,
      meta: {
        manifest: {
          start_id: 1,
          start: 'beginning',
          item_count: 2,
          estimated_tokens: 120,
          budget: null,
          dropped: { total: 0, by_reason: {}, budget_ids: [] },
          notes: [],
        },
      },
      input: { messages: [{ role: 'user', content: prose(random, 200) }] },
    },
    {
      type: 'llm.response',
      run_id: runId,
      ts: at(3),
      seq: 1,
      output: {
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: callId,
                type: 'function',
                function: { name: 'search', arguments: '{"q":"x"}' },
              },
            ],
          },
        ],
      },
    },
    {
      type: 'agent.event',
      run_id: runId,
      ts: at(4),
      seq: 0,
      event: { type: 'tool_call', tool: 'search', args: '{"q":"x"}', tool_call_id: callId },
    },
    {
      type: 'tool.output',
      run_id: runId,
      ts: at(5),
      tool: 'search',
      tool_call_id: callId,
      result_raw: output,
    },
  ] as RunRecord[];
  if (failed) {
    records.push(
      {
        type: 'run.error',
        run_id: runId,
        ts: at(6),
        error: { name: 'ProviderError', message: 'HTTP 503' },
      } as RunRecord,
      { type: 'run.end', run_id: runId, ts: at(7), outcome: 'error' } as RunRecord,
    );
  } else {
    records.push(
      {
        type: 'agent.event',
        run_id: runId,
        ts: at(6),
        seq: 1,
        event: { type: 'final', content: prose(random, 120) },
      } as RunRecord,
      { type: 'run.end', run_id: runId, ts: at(7), outcome: 'completed' } as RunRecord,
    );
  }
  return records;
}

const echo: ModelCall = () => ({
  output: [{ type: 'message', role: 'assistant', content: 'noted' }],
  usage: { inputTokens: 50, outputTokens: 5 },
});

/**
 * The UI's data set: `uiRuns` run files (10,000 at full size) over `uiRuns / 100` sessions and
 * ~130 days, written through the fs store, and each session written through core's sessions: one
 * committed turn per completed run of it (about 86 of its 100 runs), each commit naming its run.
 * Cached in `bench/.data` like the other data sets.
 */
export async function ensureUiHome(context: BenchContext): Promise<UiHomeDataset> {
  const runs = context.sizes.uiRuns;
  const sessionCount = Math.max(1, Math.floor(runs / 100));
  const home = join(context.paths.data, `ui-home-${runs}-v${UI_HOME_VERSION}`);
  const marker = `${home}.ok.json`;
  const sessions = Array.from({ length: sessionCount }, (_, index) => sessionIdOf(index + 1));
  const dataset: UiHomeDataset = { home, runs, sessions, sampleRunId: uiRunId(50) };
  if (existsSync(marker) && JSON.parse(readFileSync(marker, 'utf8')).runs === runs) return dataset;
  rmSync(home, { recursive: true, force: true });
  context.log(`generating a UI home: ${formatCount(runs)} run files, ${sessionCount} sessions…`);
  const store = createFsStore({ root: home, durability: 'none' });
  try {
    for (let index = 0; index < runs; index++) {
      const records = runOf(index, sessions[index % sessionCount] as string);
      await store.runs.append((records[0] as { run_id: string }).run_id, records);
    }
    for (const [first, sessionId] of sessions.entries()) {
      // Each completed run of the session is one committed turn, timed inside its run and named
      // by its commit (as a recorder does); a failed run commits nothing.
      let clock = new Date(T0);
      const session = createSession({ store: store.sessions, id: sessionId, now: () => clock });
      for (let index = first; index < runs; index += sessionCount) {
        if (isFailedRun(index)) continue;
        clock = new Date(T0 + index * RUN_SPACING_MS + 3);
        await session.runTurn(`question ${index}`, echo, { runId: uiRunId(index) });
      }
    }
  } finally {
    await store.close();
  }
  writeFileSync(marker, JSON.stringify({ runs }));
  return dataset;
}
