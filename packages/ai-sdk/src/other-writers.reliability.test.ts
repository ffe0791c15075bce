// Guarantee: several processes calling the AI SDK through episodicMiddleware on one session (one
// home on disk, or one SQLite database) lose no call that could be kept and never interleave two
// calls' episodes: a call whose session was behind commits its turn after the others' (and
// succeeds); a call another writer split between its steps fails with CONFLICT after its first
// step, which the next assembly heals. Whatever the interleaving, the stored history is one the
// AI SDK accepts, and invoke_seq counts every committed model call.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createSession,
  type Episode,
  loadSession,
  type RunStore,
  type SessionStore,
} from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { build } from 'tsup';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from '../../../test-support/bundle-worker.js';
import { AI_VERSIONS, answers, scriptedModel } from './__fixtures__/ai-versions.js';
import { episodicMiddleware } from './episodic-middleware.js';
import { sessionMessages } from './session-messages.js';

const FULL = process.env.RELIABILITY_FULL === '1';
const WRITERS = FULL ? 4 : 3;
const CALLS = FULL ? 60 : 12;
const ROUNDS = FULL ? 3 : 1;

interface Opened {
  sessions: SessionStore;
  runs: RunStore;
  close(): Promise<void>;
}

const BACKENDS: ReadonlyArray<{ name: string; open(location: string): Opened; file: string }> = [
  {
    name: 'files',
    file: 'home',
    open: (location) => createFsStore({ root: location, durability: 'none' }),
  },
  {
    name: 'sqlite',
    file: 'episodic.db',
    open: (location) => createSqliteStore({ filename: location }),
  },
];

interface CallReport {
  input: string;
  kind: 'chat' | 'tool';
  outcome: 'ok' | 'split' | 'busy';
  caughtUp: boolean;
}

let worker = '';

beforeAll(async () => {
  worker = await bundleWorker({
    build: build as (options: Record<string, unknown>) => Promise<unknown>,
    entry: fileURLToPath(new URL('./__fixtures__/writer-worker.ts', import.meta.url)),
    packageDirectory: fileURLToPath(new URL('../', import.meta.url)),
    external: ['better-sqlite3', 'ai', 'zod'],
  });
}, 300_000);

/** Starts a writer; resolves `ready` once it loaded the session, `done` with its output. */
function startWriter(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [worker, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout?.on('data', (chunk) => {
    output += chunk;
    if (output.includes('ready\n')) markReady();
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const done = new Promise<{ code: number | null; output: string }>((resolve) => {
    child.on('close', (code) => {
      markReady();
      resolve({ code, output });
    });
  });
  return { child, ready, done };
}

/** The log as blocks of consecutive episodes of one turn. */
function blocks(episodes: readonly Episode[]): Episode[][] {
  const result: Episode[][] = [];
  for (const episode of episodes) {
    const last = result.at(-1);
    if (last !== undefined && last[0]?.meta.turnId === episode.meta.turnId) last.push(episode);
    else result.push([episode]);
  }
  return result;
}

function kindOf(episode: Episode): string {
  if (episode.type !== 'item') return episode.type;
  return String((episode.payload.item as { type: string }).type);
}

function userText(block: readonly Episode[]): string {
  const item = block[0]?.payload.item as { content?: unknown } | undefined;
  const content = item?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content.map((part) => String((part as { text?: string }).text ?? '')).join('')
    : '';
}

const EXPECTED_BLOCK: Record<string, string[]> = {
  'chat ok': ['message', 'message', 'meta'],
  'tool ok': ['message', 'function_call', 'meta', 'function_call_output', 'message', 'meta'],
  'tool split': ['message', 'function_call', 'meta'],
};

describe.each(BACKENDS)(
  'several processes calling the AI SDK on one session ($name)',
  (backend) => {
    it(`${WRITERS} writers × ${CALLS} calls, ${ROUNDS} rounds: no call's episodes interleaved, nothing lost that could be kept`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const directory = mkdtempSync(join(tmpdir(), 'episodic-ai-sdk-race-'));
        const location = join(directory, backend.file);
        try {
          let store = backend.open(location);
          const session = createSession({ store: store.sessions });
          await session.runTurn('start', () => ({
            output: [{ type: 'message', role: 'assistant', content: 'ready' }],
          }));
          await store.close();

          const writers = Array.from({ length: WRITERS }, (_, writer) =>
            startWriter([backend.name, location, session.id, String(writer), String(CALLS)]),
          );
          await Promise.all(writers.map((writer) => writer.ready));
          for (const writer of writers) writer.child.stdin?.write('go\n');
          const results = await Promise.all(writers.map((writer) => writer.done));
          const reports: CallReport[][] = [];
          for (const result of results) {
            expect(result.code, result.output).toBe(0);
            const lines = result.output.trim().split('\n');
            expect(lines.at(-1), result.output).toBe('done');
            reports.push(lines.slice(1, -1).map((line) => JSON.parse(line) as CallReport));
          }
          const calls = reports.flat();
          expect(calls).toHaveLength(WRITERS * CALLS);
          // Every writer loaded revision 1 before any of them committed: all but one first call
          // found the session behind and caught up.
          expect(calls.filter((call) => call.caughtUp).length).toBeGreaterThanOrEqual(WRITERS - 1);
          expect(calls.filter((call) => call.kind === 'chat' && call.outcome === 'split')).toEqual(
            [],
          );

          store = backend.open(location);
          try {
            const stored = await loadSession(store.sessions, session.id);
            const turns = blocks(stored.log.read({ fromId: 0 }));
            // Contiguous: no turn id appears in two blocks.
            const turnIds = turns.map((block) => block[0]?.meta.turnId);
            expect(new Set(turnIds).size).toBe(turnIds.length);
            const byInput = new Map(turns.slice(1).map((block) => [userText(block), block]));
            for (const call of calls) {
              const block = byInput.get(call.input);
              if (call.outcome === 'busy') {
                expect(block, call.input).toBeUndefined();
                continue;
              }
              expect(block?.map(kindOf), call.input).toEqual(
                EXPECTED_BLOCK[`${call.kind} ${call.outcome}`],
              );
            }
            expect(turns).toHaveLength(1 + calls.filter((call) => call.outcome !== 'busy').length);
            // Each writer's turns in its own order.
            const order = turns.slice(1).map(userText);
            for (const own of reports) {
              const kept = own.filter((call) => call.outcome !== 'busy').map((call) => call.input);
              expect(order.filter((input) => kept.includes(input))).toEqual(kept);
            }
            // invoke_seq counts the first turn and every committed model call.
            const committedCalls = calls.reduce(
              (sum, call) =>
                sum +
                (call.outcome === 'ok'
                  ? call.kind === 'chat'
                    ? 1
                    : 2
                  : call.outcome === 'split'
                    ? 1
                    : 0),
              0,
            );
            expect(stored.invokeSeq).toBe(1 + committedCalls);
            // One run per call, each ended: with an error exactly for the calls that failed.
            const { runs } = await store.runs.list({ sessionId: session.id });
            expect(runs).toHaveLength(WRITERS * CALLS);
            const read = await Promise.all(runs.map((run) => store.runs.read(run.runId)));
            expect(read.every((run) => run.ended)).toBe(true);
            expect(
              read.filter((run) => run.records.some((record) => record.type === 'run.error')),
            ).toHaveLength(calls.filter((call) => call.outcome !== 'ok').length);

            // The AI SDK accepts the stored history as it is (a split call's tool call is paired).
            const version = AI_VERSIONS[0];
            const { model, prompts } = scriptedModel(version, [answers('all read')]);
            const middleware = episodicMiddleware({ session: stored, runs: store.runs });
            const result = await version.ai.generateText({
              model: version.ai.wrapLanguageModel({ model, middleware }),
              messages: await sessionMessages(stored, { input: 'summarize' }),
              onFinish: middleware.onFinish,
            });
            expect(result.text).toBe('all read');
            expect(prompts).toHaveLength(1);
          } finally {
            await store.close();
          }
        } finally {
          rmSync(directory, { recursive: true, force: true });
        }
      }
    }, 300_000);
  },
);
