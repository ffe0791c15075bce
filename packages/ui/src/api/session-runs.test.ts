import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSession, type ModelCall, type RunRecord, type Session } from '@episodic/core';
import { createFsStore, type FsStore } from '@episodic/store-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunStatusCache } from './run-status.js';
import { readSession, runsNamedBy, sessionRuns } from './session-runs.js';
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
    // Every commit folded into a new base (the base keeps only the last run's id), or never one
    // (as a session past the size up to which the default policy folds every commit).
    fold: options.foldEveryCommit ? 'always' : { currentUpToBytes: 0 },
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

describe('the runs a session names', () => {
  it('after folds, names only the base’s last run; every run is found after, matched by time', async () => {
    const store = openHome({ foldEveryCommit: true });
    await recordedSession(store, 3);
    const read = await readSession(store.sessions, SESSION);
    expect(read.stored.deltas).toEqual([]);
    expect(runsNamedBy(read.stored).named).toEqual([runId(3)]);

    const timeline = await sessionTimeline(deps(store), SESSION, {});
    expect(timeline.runs.map((run) => run.run_id)).toEqual([runId(3)]);
    expect(timeline.turns.map((entry) => entry.run_id)).toEqual([null, null, runId(3)]);

    const all = await sessionRuns(deps(store), SESSION);
    expect(all.runs.map((run) => [run.run_id, run.committed])).toEqual([
      [runId(1), { first_id: 1, last_id: 2 }],
      [runId(2), { first_id: 3, last_id: 4 }],
      [runId(3), { first_id: 5, last_id: 6 }],
    ]);
  });

  it('takes each delta’s run and episodes as recorded, and forgets them after a clear()', async () => {
    const store = openHome({ foldEveryCommit: false });
    const { session, clock } = await recordedSession(store, 3);
    let named = runsNamedBy((await readSession(store.sessions, SESSION)).stored);
    // The first commit is the base (its run named, its episodes not); the others are deltas.
    expect(named.named.sort()).toEqual([runId(1), runId(2), runId(3)]);
    expect([...named.exact]).toEqual([
      [runId(2), { first_id: 3, last_id: 4 }],
      [runId(3), { first_id: 5, last_id: 6 }],
    ]);

    await session.clear();
    await turn(store, session, 4, clock);
    named = runsNamedBy((await readSession(store.sessions, SESSION)).stored);
    // The episodes before the clear() are gone, and so is what the deltas said about them.
    expect([...named.exact.keys()]).toEqual([runId(4)]);
    const range = named.exact.get(runId(4)) as { first_id: number; last_id: number };
    expect([...named.attributed]).toEqual(
      Array.from({ length: range.last_id - range.first_id + 1 }, (_, i) => range.first_id + i),
    );
    const timeline = await sessionTimeline(deps(store), SESSION, {});
    expect(timeline.turns.map((entry) => entry.run_id)).toEqual([runId(4)]);
  });
});
