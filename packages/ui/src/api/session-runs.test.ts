import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSession,
  type ModelCall,
  type RunRecord,
  type Session,
  type SessionState,
} from '@episodic/core';
import { createFsStore, type FsStore } from '@episodic/store-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunStatusCache } from './run-status.js';
import { namedRunOf, readSession, runsNamedBy, sessionRuns } from './session-runs.js';
import { sessionTimeline } from './session-timeline.js';

const SESSION = '00000000-0000-4000-8000-00000000a001';
const runId = (n: number) => `00000000-0000-4000-8000-00000000b${String(n).padStart(3, '0')}`;
const answer: ModelCall = () => ({
  output: [{ type: 'message', role: 'assistant', content: 'ok' }],
});

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function openHome(options: { foldEveryCommit: boolean }): FsStore {
  const home = mkdtempSync(join(tmpdir(), 'episodic-ui-runs-'));
  const store = createFsStore({
    root: home,
    durability: 'none',
    // The default policy (a small session is folded on every commit), or no fold at all (as for a
    // session past the size up to which the default policy folds every commit).
    ...(options.foldEveryCommit ? {} : { fold: { currentUpToBytes: 0 } }),
  });
  cleanups.push(
    () => rmSync(home, { recursive: true, force: true }),
    () => store.close(),
  );
  return store;
}

/** One turn recorded as run `n` (header, turn, end), the clock inside the run. */
async function turn(store: FsStore, session: Session, n: number, clock: { at: number }) {
  const at = (offset: number) => new Date(clock.at + offset).toISOString();
  await store.runs.append(runId(n), [
    {
      type: 'header',
      schema_version: 1,
      run_id: runId(n),
      session_id: SESSION,
      started_at: at(0),
    } as RunRecord,
  ]);
  clock.at += 10;
  await session.runTurn(`turn ${n}`, answer, { runId: runId(n) });
  await store.runs.append(runId(n), [
    { type: 'run.end', run_id: runId(n), ts: at(20), outcome: 'completed' } as RunRecord,
  ]);
  clock.at += 1000;
}

async function recordedSession(store: FsStore, turns: number) {
  const clock = { at: Date.UTC(2026, 2, 1, 12) };
  const session = createSession({
    store: store.sessions,
    id: SESSION,
    now: () => new Date(clock.at),
  });
  for (let n = 1; n <= turns; n++) await turn(store, session, n, clock);
  return { session, clock };
}

function deps(store: FsStore) {
  return {
    sessions: store.sessions,
    runs: store.runs,
    statuses: createRunStatusCache(store.runs),
  };
}

const ALL_THREE = [
  [runId(1), { first_id: 1, last_id: 2 }],
  [runId(2), { first_id: 3, last_id: 4 }],
  [runId(3), { first_id: 5, last_id: 6 }],
];

describe('the runs a session names', () => {
  it('after a fold on every commit (the default for a small session), names every commit’s run', async () => {
    const store = openHome({ foldEveryCommit: true });
    await recordedSession(store, 3);
    const read = await readSession(store.sessions, SESSION);
    expect(read.stored.deltas).toEqual([]);
    const named = runsNamedBy(read.stored);
    expect(named.named).toEqual([runId(1), runId(2), runId(3)]);
    expect([...named.exact]).toEqual(ALL_THREE);

    const timeline = await sessionTimeline(deps(store), SESSION, {});
    expect(timeline.runs.map((run) => [run.run_id, run.committed])).toEqual(ALL_THREE);
    expect(timeline.turns.map((entry) => entry.run_id)).toEqual([runId(1), runId(2), runId(3)]);
    const all = await sessionRuns(deps(store), SESSION);
    expect(all.runs.map((run) => [run.run_id, run.committed])).toEqual(ALL_THREE);
  });

  it('matches runs by time for a base without episode_runs (an older Episodic’s)', async () => {
    const store = openHome({ foldEveryCommit: true });
    await recordedSession(store, 3);
    const { episode_runs: _runs, ...older } = (await store.sessions.load(SESSION)) as SessionState;
    await store.sessions.save(older);
    const read = await readSession(store.sessions, SESSION);
    expect(read.stored.state).not.toHaveProperty('episode_runs');
    expect(runsNamedBy(read.stored).named).toEqual([runId(3)]);

    const timeline = await sessionTimeline(deps(store), SESSION, {});
    expect(timeline.runs.map((run) => run.run_id)).toEqual([runId(3)]);
    expect(timeline.turns.map((entry) => entry.run_id)).toEqual([null, null, runId(3)]);
    const all = await sessionRuns(deps(store), SESSION);
    expect(all.runs.map((run) => [run.run_id, run.committed])).toEqual(ALL_THREE);
  });

  it('takes each delta’s run and episodes as recorded, and forgets them after a clear()', async () => {
    const store = openHome({ foldEveryCommit: false });
    const { session, clock } = await recordedSession(store, 3);
    let named = runsNamedBy((await readSession(store.sessions, SESSION)).stored);
    // The first commit is the base (its range in its episode_runs); the others are deltas.
    expect(named.named).toEqual([runId(1), runId(2), runId(3)]);
    expect([...named.exact]).toEqual(ALL_THREE);

    await session.clear();
    await turn(store, session, 4, clock);
    named = runsNamedBy((await readSession(store.sessions, SESSION)).stored);
    // The episodes before the clear() are gone, and so is what the session said about them.
    expect([...named.exact.keys()]).toEqual([runId(4)]);
    const range = named.exact.get(runId(4)) as { first_id: number; last_id: number };
    expect(named.ranges).toEqual([{ run_id: runId(4), ...range }]);
    const timeline = await sessionTimeline(deps(store), SESSION, {});
    expect(timeline.turns.map((entry) => entry.run_id)).toEqual([runId(4)]);
  });

  it('gives each turn its own run when runs take turns (a run’s committed range spans another’s)', async () => {
    const store = openHome({ foldEveryCommit: true });
    const clock = { at: Date.UTC(2026, 2, 1, 12) };
    const session = createSession({
      store: store.sessions,
      id: SESSION,
      now: () => new Date(clock.at),
    });
    await turn(store, session, 1, clock);
    await turn(store, session, 2, clock);
    // Run 1 commits again (as a task's run spans turns): its range, 1 to 6, spans run 2's.
    await session.runTurn('turn 1 again', answer, { runId: runId(1) });
    const timeline = await sessionTimeline(deps(store), SESSION, {});
    expect(timeline.turns.map((entry) => entry.run_id)).toEqual([runId(1), runId(2), runId(1)]);
    expect(namedRunOf(runsNamedBy((await readSession(store.sessions, SESSION)).stored), 3)).toBe(
      runId(2),
    );
  });
});
