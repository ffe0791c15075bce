// Snapshots written by Codelia's own code (seed 001's implementation; see
// test-support/seed-data/codelia/generate.mjs): resumed by Episodic and committed again, they keep
// every message and field, and Episodic's own tool messages carry what Codelia's readers need.
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BaseMessage,
  INTERRUPTED_CALL_OUTPUT,
  loadSession,
  type ModelCall,
  type SessionState,
} from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CODELIA_SNAPSHOTS,
  expectCodeliaSessions,
} from '../../../test-support/codelia-sessions.js';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore } from './index.js';

const SESSION_ID = 'b2c4a1e0-7c1d-4f5e-9a3b-2d6f8e0c1a4b';
const now = () => new Date('2026-03-01T10:00:00.000Z');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A store root holding the Codelia snapshots, as Codelia left them under sessions/state/. */
function rootWithCodeliaSnapshots(): string {
  const directory = temporaryDirectory();
  cleanups.push(() => directory.remove());
  const state = join(directory.path, 'sessions', 'state');
  mkdirSync(state, { recursive: true });
  for (const file of readdirSync(CODELIA_SNAPSHOTS)) {
    copyFileSync(join(CODELIA_SNAPSHOTS, file), join(state, file));
  }
  return directory.path;
}

function codeliaMessages(): BaseMessage[] {
  const file = join(CODELIA_SNAPSHOTS, `${SESSION_ID}.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as SessionState).messages;
}

/** One turn: the model calls grep, the session runs it, the model answers. */
const toolTurn = (): ModelCall => {
  let round = 0;
  return () => {
    round++;
    return round === 1
      ? {
          output: [
            { type: 'message', role: 'assistant', content: 'Searching.' },
            { type: 'function_call', call_id: 'call_9', name: 'grep', arguments: '{"q":"TODO"}' },
          ],
        }
      : { output: [{ type: 'message', role: 'assistant', content: 'No TODOs.' }] };
  };
};

describe('a Codelia session resumed and committed by Episodic', () => {
  it('keeps its reasoning messages, tool_name, output_ref and every other field on the first commit', async () => {
    const root = rootWithCodeliaSnapshots();
    const store = createFsStore({ root });
    const session = await loadSession(store.sessions, SESSION_ID, {
      now,
      executeTool: () => 'no matches',
    });
    await session.runTurn('Any TODOs left?', toolTurn());
    const saved = JSON.parse(
      readFileSync(join(root, 'sessions', 'state', `${SESSION_ID}.json`), 'utf8'),
    ) as SessionState;
    const original = codeliaMessages();
    // Codelia's 13 messages, unchanged, then the new turn.
    expect(saved.messages.slice(0, original.length)).toEqual(original);
    expect(saved.messages.filter((message) => message.role === 'reasoning')).toHaveLength(3);
    expect(saved.messages.slice(original.length)).toEqual([
      { role: 'user', content: 'Any TODOs left?', message_ts: '2026-03-01T10:00:00.000Z' },
      {
        role: 'assistant',
        content: 'Searching.',
        tool_calls: [
          { id: 'call_9', type: 'function', function: { name: 'grep', arguments: '{"q":"TODO"}' } },
        ],
        message_ts: '2026-03-01T10:00:00.000Z',
      },
      // Codelia's readers need tool_name on every tool message: Episodic's carry it.
      {
        role: 'tool',
        tool_call_id: 'call_9',
        tool_name: 'grep',
        content: 'no matches',
        message_ts: '2026-03-01T10:00:00.000Z',
      },
      { role: 'assistant', content: 'No TODOs.', message_ts: '2026-03-01T10:00:00.000Z' },
    ]);
    // seed 001's other fields are kept as they were.
    expect(saved).toMatchObject({
      invoke_seq: 4,
      meta: { codelia_workspace_root: '/home/user/project', ui: { theme: 'dark' } },
    });
    // And a second resume reads the same messages back from the saved episodic log.
    const again = await loadSession(store.sessions, SESSION_ID, { now });
    await again.runTurn('Thanks', () => ({
      output: [{ type: 'message', role: 'assistant', content: 'Bye.' }],
    }));
    const twice = (await store.sessions.load(SESSION_ID)) as SessionState;
    expect(twice.messages.slice(0, saved.messages.length)).toEqual(saved.messages);
  });

  it('saves messages with no unpaired call and no orphan tool message (the log keeps the truth)', async () => {
    const root = rootWithCodeliaSnapshots();
    const store = createFsStore({ root });
    const broken: BaseMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'tool', tool_call_id: 'call_lost', tool_name: 'grep', content: 'orphan output' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_open', type: 'function', function: { name: 'shell', arguments: '{}' } },
        ],
      },
    ];
    await store.sessions.save({
      schema_version: 1,
      session_id: SESSION_ID,
      updated_at: '2026-02-03T12:00:02.900Z',
      messages: broken,
    });
    const session = await loadSession(store.sessions, SESSION_ID, { now });
    await session.runTurn('continue', () => ({
      output: [{ type: 'message', role: 'assistant', content: 'ok' }],
    }));
    const saved = (await store.sessions.load(SESSION_ID)) as SessionState;
    expect(saved.messages.slice(0, 4)).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_open', type: 'function', function: { name: 'shell', arguments: '{}' } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_open',
        tool_name: 'shell',
        content: INTERRUPTED_CALL_OUTPUT,
      },
      { role: 'user', content: 'continue', message_ts: '2026-03-01T10:00:00.000Z' },
    ]);
    // The log still holds the orphan output and the unanswered call as they were.
    const items = session.log
      .read({ fromId: 0 })
      .filter((episode) => episode.type === 'item')
      .map((episode) => (episode.payload as { item: { type: string } }).item.type);
    expect(items.slice(0, 3)).toEqual(['message', 'function_call_output', 'function_call']);
  });

  it("lists each session with Codelia's last_user_message and loads it as Codelia wrote it", async () => {
    const store = createFsStore({ root: rootWithCodeliaSnapshots() });
    await expectCodeliaSessions(store.sessions);
  });
});
