import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { encodeSessionBase, summaryBaseLine, textLines } from './session-format.js';
import { summarizeSession } from './session-store.js';

const SESSION_ID = '3e4f5061-7283-4940-8a5b-6c7d8e9f0a1b';

describe('textLines', () => {
  test.prop([fc.array(fc.string().map((text) => text.replaceAll('\n', ' ')))])(
    'gives back the lines a store joined with newlines, each once and in order',
    (lines) => {
      expect([...textLines(lines.map((line) => `${line}\n`).join(''))]).toEqual(lines);
    },
  );

  it('yields a last line without its newline, and can be iterated again', () => {
    expect([...textLines('a\nb')]).toEqual(['a', 'b']);
    expect([...textLines('')]).toEqual([]);
    const lines = textLines('one\ntwo\n');
    expect([...lines]).toEqual(['one', 'two']);
    expect([...lines]).toEqual(['one', 'two']);
  });
});

describe('summaryBaseLine', () => {
  it('summarizes like the first line of the base it stands in for', () => {
    const [first] = encodeSessionBase({
      schema_version: 2,
      session_id: SESSION_ID,
      updated_at: '2026-02-03T12:00:00.000Z',
      run_id: 'run-1',
      revision: 4,
      episodes: [
        {
          id: 1,
          type: 'item',
          meta: { source: 'user', ts: '2026-02-03T12:00:00.000Z' },
          payload: { item: { type: 'message', role: 'user', content: 'what changed?' } },
        },
      ],
      messages: [{ role: 'user', content: 'what changed?' }],
    });
    const fromBase = summarizeSession({
      sessionId: SESSION_ID,
      base: first as string,
      lastDelta: null,
    });
    const fromColumns = summarizeSession({
      sessionId: SESSION_ID,
      base: summaryBaseLine({
        sessionId: SESSION_ID,
        revision: 4,
        updatedAt: '2026-02-03T12:00:00.000Z',
        runId: 'run-1',
        messageCount: 1,
        episodeCount: 1,
        lastUserMessage: 'what changed?',
      }),
      lastDelta: null,
    });
    expect(fromColumns).toEqual(fromBase);
    expect(fromBase).toMatchObject({
      revision: 4,
      episodeCount: 1,
      lastUserMessage: 'what changed?',
    });
    const bare = summaryBaseLine({
      sessionId: SESSION_ID,
      revision: 0,
      updatedAt: '2026-02-03T12:00:00.000Z',
      runId: null,
      messageCount: 0,
      episodeCount: null,
      lastUserMessage: null,
    });
    expect(JSON.parse(bare)).not.toHaveProperty('run_id');
    expect(summarizeSession({ sessionId: SESSION_ID, base: bare, lastDelta: null })).toEqual({
      sessionId: SESSION_ID,
      updatedAt: '2026-02-03T12:00:00.000Z',
      revision: 0,
      messageCount: 0,
      baseRevision: 0,
    });
  });
});
