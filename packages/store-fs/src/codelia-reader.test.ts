// What Codelia's own session reader sees in a home Episodic writes. Codelia (seed 001's
// implementation) resumes a session from `sessions/state/<id>.json` alone: its
// `SessionStateStoreImpl.load` reads that file, `JSON.parse`s it and takes its `messages`, and its
// `list()` counts those messages and shows the last user message. It never reads the deltas file
// beside it. So after every commit of a small session, that file alone must be the current state.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BaseMessage,
  createRunRecorder,
  createSession,
  type ModelCall,
  type SessionState,
} from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore, type FsStore } from './index.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface CodeliaView {
  state: SessionState;
  /** What Codelia's `list()` reports for it. */
  summary: { message_count: number; last_user_message: string | undefined };
}

/**
 * Codelia's load path, re-implemented from its documented behaviour (none of its code): the
 * snapshot file alone, parsed as JSON; a snapshot without `session_id` or `updated_at` is none.
 */
function codeliaLoad(root: string, sessionId: string): CodeliaView | null {
  const text = readFileSync(join(root, 'sessions', 'state', `${sessionId}.json`), 'utf8');
  const parsed = JSON.parse(text) as SessionState;
  if (typeof parsed !== 'object' || parsed === null) return null;
  if (!parsed.session_id || !parsed.updated_at) return null;
  const messages = Array.isArray(parsed.messages) ? parsed.messages : [];
  let lastUser: string | undefined;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as BaseMessage;
    if (message.role === 'user') {
      lastUser = typeof message.content === 'string' ? message.content : undefined;
      break;
    }
  }
  return {
    state: { ...parsed, messages },
    summary: { message_count: messages.length, last_user_message: lastUser },
  };
}

/** A turn that calls `list_files` once (its output recorded with an output_ref), then answers. */
function toolTurn(turn: number): ModelCall {
  return (request) =>
    request.round === 0
      ? {
          output: [
            { type: 'message', role: 'assistant', content: `Looking (${turn}).` },
            {
              type: 'function_call',
              call_id: `call_${turn}`,
              name: 'list_files',
              arguments: '{"path":"src"}',
            },
          ],
          usage: { inputTokens: 100, outputTokens: 10 },
        }
      : { output: [{ type: 'message', role: 'assistant', content: `Done (${turn}).` }] };
}

/** A session on the fs store whose tool outputs go to a run file with an output_ref each. */
function recordedSession(store: FsStore) {
  const recorder = createRunRecorder({ store: store.runs });
  const session = createSession({
    store: store.sessions,
    executeTool: async (call) => {
      const output = `${String(call.call_id)}: a.ts\nb.ts\n`;
      const outputRef = await recorder.toolOutput({
        tool: call.name,
        toolCallId: call.call_id,
        resultRaw: output,
      });
      return { output, outputRef };
    },
  });
  return { recorder, session };
}

describe("Codelia's reader on a home Episodic writes", () => {
  it('sees every message after every commit of a small session (the base alone is current)', async () => {
    const home = temporaryDirectory();
    cleanups.push(() => home.remove());
    const store = createFsStore({ root: home.path });
    cleanups.push(() => store.close());
    const { recorder, session } = recordedSession(store);
    await recorder.start('first');
    for (let turn = 1; turn <= 3; turn++) {
      await session.runTurn(`question ${turn}`, toolTurn(turn), { runId: recorder.runId });
      const loaded = (await store.sessions.load(session.id)) as SessionState;
      const codelia = codeliaLoad(home.path, session.id);
      // A seed 001 snapshot: its fields, and the messages load() returns (4 per turn: the assistant's text and call are one).
      expect(codelia?.state).toMatchObject({
        session_id: session.id,
        updated_at: loaded.updated_at,
        run_id: recorder.runId,
      });
      expect(typeof codelia?.state.schema_version).toBe('number');
      expect(codelia?.state.messages).toEqual(loaded.messages);
      expect(loaded.messages).toHaveLength(turn * 4);
      // Its list() agrees with ours.
      const [summary] = await store.sessions.list();
      expect(codelia?.summary).toEqual({
        message_count: summary?.messageCount,
        last_user_message: summary?.lastUserMessage,
      });
      expect(summary?.lastUserMessage).toBe(`question ${turn}`);
    }
    // Tool messages carry the output_ref of the run file's tool.output, as Codelia's do.
    const tools = codeliaLoad(home.path, session.id)?.state.messages.filter(
      (message) => message.role === 'tool',
    );
    const outputs = (await store.runs.read(recorder.runId)).records.filter(
      (record) => record.type === 'tool.output',
    );
    expect(tools).toHaveLength(3);
    expect(tools?.map((message) => (message as { output_ref?: unknown }).output_ref)).toEqual(
      outputs.map((record) => record.output_ref),
    );
    expect(outputs[0]?.output_ref).toMatchObject({ id: 'call_1', line_count: 2 });
    expect(await store.readToolOutput('call_1')).toBe('call_1: a.ts\nb.ts\n');
  });

  it('sees a stale base beyond the threshold, and a current one again with fold: always', async () => {
    for (const fold of [{ currentUpToBytes: 0 }, 'always'] as const) {
      const home = temporaryDirectory();
      cleanups.push(() => home.remove());
      const store = createFsStore({ root: home.path, fold });
      cleanups.push(() => store.close());
      const { recorder, session } = recordedSession(store);
      await recorder.start('first');
      for (let turn = 1; turn <= 3; turn++) {
        await session.runTurn(`question ${turn}`, toolTurn(turn), { runId: recorder.runId });
      }
      const seen = codeliaLoad(home.path, session.id)?.state.messages.length;
      // Past the threshold Codelia sees the base of the first commit; 'always' keeps it current.
      expect(seen).toBe(fold === 'always' ? 12 : 4);
    }
  });
});
