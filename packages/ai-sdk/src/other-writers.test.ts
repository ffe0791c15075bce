// Two writers on one session, each through its own session object on one store on disk: what the
// middleware does when the other one committed first (see "Other writers" in the README). The
// same with separate processes is in other-writers.reliability.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSession, type Episode, loadSession, type RunStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AI_VERSIONS,
  answers,
  callsTool,
  recordTypes,
  scriptedModel,
  scriptedStreamModel,
} from './__fixtures__/ai-versions.js';
import { episodicMiddleware } from './episodic-middleware.js';
import { sessionMessages } from './session-messages.js';

/** Each episode as `turn:source:kind`, the turns named by `names` (a turn id → a letter). */
function turns(episodes: readonly Episode[], names: Map<string, string>): string[] {
  return episodes.map((episode) => {
    const turnId = String(episode.meta.turnId);
    if (!names.has(turnId)) names.set(turnId, String.fromCharCode(65 + names.size));
    const kind =
      episode.type === 'item'
        ? String((episode.payload.item as { type: string }).type)
        : episode.type;
    return `${names.get(turnId)}:${episode.meta.source}:${kind}`;
  });
}

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A home on disk with one session (one turn in it) and two writers that loaded it. */
async function twoWriters() {
  const root = mkdtempSync(join(tmpdir(), 'episodic-ai-sdk-writers-'));
  roots.push(root);
  const store = createFsStore({ root, durability: 'none' });
  const first = createSession({ store: store.sessions });
  await first.runTurn('hello', () => ({
    output: [{ type: 'message', role: 'assistant', content: 'hi' }],
  }));
  const one = await loadSession(store.sessions, first.id);
  const two = await loadSession(store.sessions, first.id);
  return { store, one, two };
}

async function ended(runs: RunStore, sessionId: string) {
  const { runs: listed } = await runs.list({ sessionId });
  return Promise.all(listed.map((summary) => runs.read(summary.runId)));
}

describe.each(AI_VERSIONS)('episodicMiddleware and another writer ($name)', (version) => {
  const { generateText, streamText, wrapLanguageModel, tool, jsonSchema, stepCountIs } = version.ai;

  it("a call whose session is behind commits its turn after the other writer's, and succeeds", async () => {
    const { store, one, two } = await twoWriters();
    try {
      const middlewareOne = episodicMiddleware({ session: one, runs: store.runs });
      const middlewareTwo = episodicMiddleware({ session: two, runs: store.runs });
      const modelOne = scriptedModel(version, [answers('from one'), answers('one again')]).model;
      const modelTwo = scriptedStreamModel(version, [answers('from two')]).model;
      // Both build their messages from revision 1; one commits first.
      const messagesTwo = await sessionMessages(two, { input: 'two asks' });
      const resultOne = await generateText({
        model: wrapLanguageModel({ model: modelOne, middleware: middlewareOne }),
        messages: await sessionMessages(one, { input: 'one asks' }),
        onFinish: middlewareOne.onFinish,
      });
      const streamed = streamText({
        model: wrapLanguageModel({ model: modelTwo, middleware: middlewareTwo }),
        messages: messagesTwo,
        onFinish: middlewareTwo.onFinish,
      });
      expect(resultOne.text).toBe('from one');
      expect(await streamed.text).toBe('from two');

      // Two's session caught up: it holds one's turn, then its own, as stored.
      const names = new Map<string, string>();
      const stored = await loadSession(store.sessions, one.id);
      expect(turns(stored.log.read({ fromId: 0 }), names)).toEqual([
        'A:user:message',
        'A:model:message',
        'B:user:message',
        'B:model:message',
        'B:runtime:meta',
        'C:user:message',
        'C:model:message',
        'C:runtime:meta',
      ]);
      expect(two.log.toJSONL()).toBe(stored.log.toJSONL());
      expect(two.revision).toBe(3);
      expect(stored.invokeSeq).toBe(3); // the first turn, then one model call each

      // One is behind now; its next call catches up the same way.
      await generateText({
        model: wrapLanguageModel({ model: modelOne, middleware: middlewareOne }),
        messages: await sessionMessages(one, { input: 'one asks again' }),
        onFinish: middlewareOne.onFinish,
      });
      expect(one.revision).toBe(4);
      const runs = await ended(store.runs, one.id);
      expect(runs.map((run) => recordTypes(run.records).at(-1))).toEqual([
        'run.end:completed',
        'run.end:completed',
        'run.end:completed',
      ]);
    } finally {
      await store.close();
    }
  });

  it('a call whose tool loop another writer split fails with CONFLICT; the session is reloaded and the next call works', async () => {
    const { store, one, two } = await twoWriters();
    try {
      const middlewareOne = episodicMiddleware({ session: one, runs: store.runs });
      const middlewareTwo = episodicMiddleware({ session: two, runs: store.runs });
      const modelTwo = scriptedModel(version, [answers('two answers')]).model;
      const { model: modelOne, prompts } = scriptedModel(version, [
        callsTool('call_1', 'lookup', { q: 'x' }),
        answers('never committed'),
        answers('one continues'),
      ]);
      // The other writer commits a whole turn while one's tool runs (between its two steps).
      const lookup = tool({
        inputSchema: jsonSchema<{ q: string }>({ type: 'object' }),
        execute: async () => {
          await generateText({
            model: wrapLanguageModel({ model: modelTwo, middleware: middlewareTwo }),
            messages: await sessionMessages(two, { input: 'two asks meanwhile' }),
            onFinish: middlewareTwo.onFinish,
          });
          return 'found';
        },
      });
      const call = generateText({
        model: wrapLanguageModel({ model: modelOne, middleware: middlewareOne }),
        messages: await sessionMessages(one, { input: 'one looks up x' }),
        tools: { lookup },
        stopWhen: stepCountIs(3),
        onFinish: middlewareOne.onFinish,
        maxRetries: 0,
      });
      const error = await call.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toMatchObject({ code: 'CONFLICT', details: { reloaded: true } });
      expect(String((error as Error).message)).toContain('would split its tool calls');

      // One's first step stays, then the other writer's whole turn; the rest of one's call is not
      // in the session (its run has it), and one's session object holds what is stored.
      const names = new Map<string, string>();
      const stored = await loadSession(store.sessions, one.id);
      expect(turns(stored.log.read({ fromId: 0 }), names)).toEqual([
        'A:user:message',
        'A:model:message',
        'B:user:message',
        'B:model:function_call',
        'B:runtime:meta',
        'C:user:message',
        'C:model:message',
        'C:runtime:meta',
      ]);
      expect(one.log.toJSONL()).toBe(stored.log.toJSONL());
      const runs = await ended(store.runs, one.id);
      const failed = runs.find((run) => recordTypes(run.records).at(-1) === 'run.end:error');
      expect(failed?.records.filter((record) => record.type === 'llm.response')).toHaveLength(2);
      expect(failed?.records.find((record) => record.type === 'run.error')).toMatchObject({
        error: { message: expect.stringContaining('changed by another writer') },
      });

      // The same middleware goes on: the cut call is paired with an "interrupted" output, so the
      // AI SDK accepts the history, and the next turn lands after everything.
      const next = await generateText({
        model: wrapLanguageModel({ model: modelOne, middleware: middlewareOne }),
        messages: await sessionMessages(one, { input: 'one goes on' }),
        onFinish: middlewareOne.onFinish,
      });
      expect(next.text).toBe('one continues');
      expect(prompts[2]).toMatchObject([
        { role: 'user' },
        { role: 'assistant' },
        { role: 'user', content: [{ type: 'text', text: 'one looks up x' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1' }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1' }] },
        { role: 'user', content: [{ type: 'text', text: 'two asks meanwhile' }] },
        { role: 'assistant' },
        { role: 'user', content: [{ type: 'text', text: 'one goes on' }] },
      ]);
      expect((await loadSession(store.sessions, one.id)).revision).toBe(4);
    } finally {
      await store.close();
    }
  });
});
