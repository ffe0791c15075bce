// One of several processes writing to one session through the AI SDK and episodicMiddleware:
// loads the session, prints `ready`, waits for `go` on stdin (so every writer starts from the same
// revision), then makes `count` generateText calls, alternating a one-step chat and a two-step
// tool call. Prints one JSON line per call ({ input, kind, outcome, caughtUp }), then `done`.
import { createInterface } from 'node:readline';
import { loadSession, type RunStore, type SessionStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { episodicMiddleware } from '../episodic-middleware.js';
import { sessionMessages } from '../session-messages.js';

const [backend, location, sessionId, writer, countText] = process.argv.slice(2);
const count = Number(countText);

function open(): { sessions: SessionStore; runs: RunStore; close(): Promise<void> } {
  if (backend === 'files') return createFsStore({ root: location as string, durability: 'none' });
  return createSqliteStore({ filename: location as string });
}

const usage = {
  inputTokens: { total: 5, noCache: 5, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined },
};
const finish = (unified: string) => ({ unified, raw: unified }) as never;

/** Calls `lookup` when the last user message asks to look something up; otherwise answers. */
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const last = prompt.at(-1);
    if (last?.role === 'user') {
      const text = last.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      if (text.includes('look up')) {
        return {
          content: [
            { type: 'tool-call', toolCallId: `call-${text}`, toolName: 'lookup', input: '{}' },
          ],
          finishReason: finish('tool-calls'),
          usage,
          warnings: [],
        };
      }
    }
    return {
      content: [{ type: 'text', text: `answer ${writer}` }],
      finishReason: finish('stop'),
      usage,
      warnings: [],
    };
  },
});

/** A tool that yields to the event loop a few times, so other writers get between the steps. */
const lookup = tool({
  inputSchema: jsonSchema<Record<string, never>>({ type: 'object' }),
  execute: async () => {
    for (let round = 0; round < 3; round++) await new Promise((resolve) => setImmediate(resolve));
    return 'found';
  },
});

const store = open();
try {
  const session = await loadSession(store.sessions, sessionId as string);
  const middleware = episodicMiddleware({ session, runs: store.runs });
  const wrapped = wrapLanguageModel({ model, middleware });
  process.stdout.write('ready\n');
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) if (line === 'go') break;
  lines.close();
  for (let index = 0; index < count; index++) {
    const kind = index % 2 === 0 ? 'chat' : 'tool';
    const input = kind === 'chat' ? `w${writer}-${index} hello` : `w${writer}-${index} look up`;
    const before = session.revision;
    let outcome = 'ok';
    try {
      await generateText({
        model: wrapped,
        messages: await sessionMessages(session, { input }),
        tools: { lookup },
        stopWhen: stepCountIs(2),
        onFinish: middleware.onFinish,
        maxRetries: 0,
      });
    } catch (error) {
      const details = (error as { code?: string; details?: { attempts?: number } }) ?? {};
      if (details.code !== 'CONFLICT') throw error;
      outcome = details.details?.attempts === undefined ? 'split' : 'busy';
    }
    // Committed steps: one for a chat, two for a tool call (one when split).
    const own = outcome === 'ok' ? (kind === 'chat' ? 1 : 2) : outcome === 'split' ? 1 : 0;
    const caughtUp = session.revision - before > own;
    process.stdout.write(`${JSON.stringify({ input, kind, outcome, caughtUp })}\n`);
  }
  process.stdout.write('done\n');
} catch (error) {
  process.stdout.write(`error ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await store.close();
}
