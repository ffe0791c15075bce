import type { Episode, RunRecord } from '@episodic/core';
import { describe, expect, it } from 'vitest';
import { projectBySource, projectSources, sessionOnlyEpisodes } from './ledger-index.js';

const TS = '2026-11-28T00:00:00.000Z';
const TURN = '0b7c5a52-0000-4000-8000-000000000001';
const RUN = '0b7c5a52-0000-4000-8000-0000000000aa';
const SESSION = '0b7c5a52-0000-4000-8000-0000000000bb';
const FORK = '0b7c5a52-0000-4000-8000-0000000000cc';

function message(id: number, role: 'user' | 'assistant', text: string, turnId?: string): Episode {
  return {
    id,
    type: 'item',
    payload: { item: { type: 'message', role, content: text } },
    meta: { ts: TS, source: role === 'user' ? 'user' : 'model', ...(turnId ? { turnId } : {}) },
  } as Episode;
}

function checkpoint(id: number): Episode {
  return {
    id,
    type: 'boundary',
    payload: { reason: 'checkpoint', title: 'conversation summary', content: 'so far' },
    meta: { ts: TS, source: 'runtime' },
  } as Episode;
}

const runRecords = [
  {
    type: 'run.start',
    run_id: RUN,
    ts: TS,
    session_id: SESSION,
    meta: { turn_id: TURN },
    input: { type: 'text', text: 'hello' },
  },
  { type: 'run.end', run_id: RUN, ts: TS, status: 'completed' },
] as unknown as RunRecord[];

describe('projectSources: each event once', () => {
  const episodes = [
    message(1, 'user', 'hello', TURN),
    message(2, 'assistant', 'hi', TURN),
    checkpoint(3),
  ];

  it('skips the episodes of a turn a run recorded, and keeps what only the session holds', () => {
    const { fromSessions, fromRuns } = projectBySource({
      sessions: [{ id: SESSION, episodes }],
      runs: [{ id: RUN, records: runRecords }],
    });
    expect(fromSessions.map((event) => event.type)).toEqual(['ops.decision']);
    expect(fromRuns.filter((event) => event.type === 'conversation.user')).toHaveLength(1);
  });

  it('projects a turn no run recorded from the session', () => {
    const events = projectSources({ sessions: [{ id: SESSION, episodes }], runs: [] });
    expect(events.map((event) => event.type)).toEqual([
      'conversation.user',
      'conversation.assistant',
      'ops.decision',
    ]);
  });

  it("leaves a fork's inherited episodes to the session it was forked from", () => {
    const fork = { id: FORK, episodes: [...episodes, checkpoint(4)], inheritedThrough: 3 };
    expect(sessionOnlyEpisodes(fork, new Set()).map((episode) => episode.id)).toEqual([4]);
    const events = projectSources({ sessions: [{ id: SESSION, episodes }, fork], runs: [] });
    expect(events.filter((event) => event.type === 'ops.decision')).toHaveLength(2);
    expect(events.filter((event) => event.session_id === FORK)).toHaveLength(1);
  });
});
