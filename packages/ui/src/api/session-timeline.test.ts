import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { createSession, type RunRecord } from '@episodic/core';
import { createFsStore, type FsIo, nodeFsIo } from '@episodic/store-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { createRunStatusCache } from './run-status.js';
import { createRelativesFinder } from './session-relatives.js';
import { sessionRuns } from './session-runs.js';
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
  it('shows turns with the runs the session names and the episodes each committed', async () => {
    const timeline = await sessionTimeline(deps, home.ids.sessionId, {});
    // Each turn commits the user's message, the answer and a turn.usage meta episode.
    expect(timeline.episode_count).toBe(6);
    expect(timeline.turns).toHaveLength(2);
    expect(timeline.turns.map((turn) => turn.run_id)).toEqual([
      home.ids.toolRunId,
      home.ids.secondRunId,
    ]);
    // A small session, folded on every commit (the default policy): its base names the run of
    // each commit and the episodes it committed.
    const stored = await home.stores.sessions.read(home.ids.sessionId);
    expect(stored?.deltas).toEqual([]);
    expect(stored?.base.head.episode_runs).toEqual([
      { run_id: home.ids.toolRunId, first_id: 1, last_id: 3 },
      { run_id: home.ids.secondRunId, first_id: 4, last_id: 6 },
    ]);
    expect(timeline.runs).toEqual([
      expect.objectContaining({
        run_id: home.ids.toolRunId,
        status: 'completed',
        failed_turn: false,
        committed: { first_id: 1, last_id: 3 },
      }),
      expect.objectContaining({
        run_id: home.ids.secondRunId,
        committed: { first_id: 4, last_id: 6 },
      }),
    ]);
    expect(timeline.last_run_id).toBe(home.ids.secondRunId);
  });

  it('finds the failed turn, absent from the session, among every run of the session', async () => {
    const all = await sessionRuns(deps, home.ids.sessionId);
    expect(all.total).toBe(3);
    expect(all.runs.map((run) => run.run_id)).toEqual([
      home.ids.toolRunId,
      home.ids.failedRunId,
      home.ids.secondRunId,
    ]);
    expect(all.runs[1]).toMatchObject({
      status: 'failed',
      committed: null,
      failed_turn: true,
      error: 'HTTP 503 from the provider',
    });
    expect(all.runs[2]).toMatchObject({ committed: { first_id: 4, last_id: 6 } });
    await expect(sessionRuns(deps, '00000000-0000-4000-8000-999999999999')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(sessionRuns(deps, 'nope')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('names the parent of an imported sub-agent session, and none for an ordinary one', async () => {
    // As the Claude Code importer saves a sub-agent transcript or sidechain: its own session,
    // whose context names the main conversation's session.
    const childId = '00000000-0000-4000-8000-0000000000a1';
    const child = createSession({
      store: home.stores.sessions,
      id: childId,
      context: { import: { source: 'claude-code', parent_session_id: home.ids.sessionId } },
    });
    await child.updateContext({ note: 'saved' });
    const timeline = await sessionTimeline(deps, childId, {});
    expect(timeline.parent_session_id).toBe(home.ids.sessionId);
    expect((await sessionTimeline(deps, home.ids.sessionId, {})).parent_session_id).toBeNull();
    await child.remove();
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

describe('the timeline reads only the runs its session names', () => {
  const OTHER_SESSION = '00000000-0000-4000-8000-0000000000ff';
  const otherRun = (index: number) =>
    `00000000-0000-4000-8000-0000000007${String(index).padStart(2, '0')}`;

  /** Run files opened through the store, by run id (snapshots and deltas left out). */
  function countingStore() {
    const opened: string[] = [];
    const io: FsIo = {
      ...nodeFsIo,
      openSync(path, flags, mode) {
        if (path.endsWith('.jsonl') && !path.includes(`${sep}state${sep}`)) {
          opened.push(basename(path, '.jsonl'));
        }
        return nodeFsIo.openSync(path, flags, mode);
      },
    };
    const files = createFsStore({ root: home.home, io, durability: 'none' });
    return { files, opened };
  }

  it('opens no run file of another session, not even a damaged one', async () => {
    const writer = createFsStore({ root: home.home, durability: 'none' });
    const startedAt = new Date().toISOString();
    for (let index = 0; index < 20; index++) {
      const runId = otherRun(index);
      await writer.runs.append(runId, [
        {
          type: 'header',
          schema_version: 1,
          run_id: runId,
          session_id: OTHER_SESSION,
          started_at: startedAt,
        } as RunRecord,
      ]);
    }
    await writer.close();
    // A run file whose header a crash destroyed: reading it is reporting it.
    const day = join(home.home, 'sessions', ...startedAt.slice(0, 10).split('-'));
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, `${otherRun(99)}.jsonl`), '{"type":"hea');

    const { files, opened } = countingStore();
    try {
      const counted = { ...deps, runs: files.runs, statuses: createRunStatusCache(files.runs) };
      const timeline = await sessionTimeline(counted, home.ids.sessionId, {});
      expect(timeline.turns.map((turn) => turn.run_id)).toEqual([
        home.ids.toolRunId,
        home.ids.secondRunId,
      ]);
      // Each named run's header and tail; nothing else.
      expect(new Set(opened)).toEqual(new Set([home.ids.toolRunId, home.ids.secondRunId]));

      // The follow-up that finds failed turns does read every header: the count above can fail.
      opened.length = 0;
      const all = await sessionRuns(counted, home.ids.sessionId);
      expect(all.runs.some((run) => run.failed_turn)).toBe(true);
      expect(opened).toContain(otherRun(7));
      expect(opened).toContain(otherRun(99));
    } finally {
      await files.close();
    }
  });
});
