import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { createRunStatusCache } from './run-status.js';
import { createRelativesFinder } from './session-relatives.js';
import { sessionEpisode, sessionRelatives, sessionTimeline } from './session-timeline.js';

let home: UiHome;
let deps: Parameters<typeof sessionTimeline>[0];

beforeAll(async () => {
  home = await createUiHome();
  deps = {
    sessions: home.stores.sessions,
    runs: home.stores.runs,
    statuses: createRunStatusCache(home.stores.runs),
  };
});
afterAll(() => home.close());

describe('GET /api/sessions/:id', () => {
  it('shows turns with the run that committed them, and the failed turn absent from the session', async () => {
    const timeline = await sessionTimeline(deps, home.ids.sessionId, {});
    // Each turn commits the user's message, the answer and a turn.usage meta episode.
    expect(timeline.episode_count).toBe(6);
    expect(timeline.turns).toHaveLength(2);
    expect(timeline.turns.map((turn) => turn.run_id)).toEqual([
      home.ids.toolRunId,
      home.ids.secondRunId,
    ]);
    const failed = timeline.runs.find((run) => run.run_id === home.ids.failedRunId);
    expect(failed).toMatchObject({
      status: 'failed',
      committed: null,
      failed_turn: true,
      error: 'HTTP 503 from the provider',
    });
    const committed = timeline.runs.find((run) => run.run_id === home.ids.toolRunId);
    expect(committed).toMatchObject({ failed_turn: false, committed: { first_id: 1, last_id: 3 } });
  });

  it('finds the fork and where it branched, from both sides', async () => {
    const finder = {
      sessions: home.stores.sessions,
      relatives: createRelativesFinder(home.stores.sessions),
    };
    const parent = await sessionRelatives(finder, home.ids.sessionId);
    expect(parent.relatives).toEqual([
      { session_id: home.ids.forkId, shared_to_id: 6, relation: 'fork' },
    ]);
    const fork = await sessionRelatives(finder, home.ids.forkId);
    expect(fork.relatives).toEqual([
      { session_id: home.ids.sessionId, shared_to_id: 6, relation: 'parent' },
    ]);
    expect((await sessionTimeline(deps, home.ids.forkId, {})).episode_count).toBe(9);
  });

  it('pages episodes by id and returns one episode whole', async () => {
    const first = await sessionTimeline(deps, home.ids.forkId, { limit: '4' });
    expect(first.episodes.map((episode) => episode.id)).toEqual([1, 2, 3, 4]);
    expect(first.next_from).toBe(4);
    const second = await sessionTimeline(deps, home.ids.forkId, { from: '4', limit: '4' });
    expect(second.episodes.map((episode) => episode.id)).toEqual([5, 6, 7, 8]);
    const last = await sessionTimeline(deps, home.ids.forkId, {
      from: String(second.next_from),
      limit: '4',
    });
    expect(last.episodes.map((episode) => episode.id)).toEqual([9]);
    expect(last.next_from).toBeNull();
    const { episode } = await sessionEpisode(home.stores.sessions, home.ids.forkId, '5');
    expect(episode).toMatchObject({ id: 5, type: 'item' });
  });

  it('answers NOT_FOUND and VALIDATION_ERROR with the fix', async () => {
    await expect(
      sessionTimeline(deps, '00000000-0000-4000-8000-999999999999', {}),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(sessionTimeline(deps, '../etc/passwd', {})).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(sessionEpisode(home.stores.sessions, home.ids.sessionId, '99')).rejects.toThrow(
      /no episode 99/,
    );
  });
});
