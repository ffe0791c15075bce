// Which run committed which episodes: kept in a base's `episode_runs`, whether the session's
// commits were folded into it one by one, appended as deltas, or folded later.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { EpisodeRunRange, SessionDelta } from '../schema/session-state.js';
import { echoModel, newSession } from '../session/__fixtures__/harness.js';
import { loadSession } from '../session/load-session.js';
import { addEpisodeRun } from './episode-runs.js';
import { createMemorySessionStore } from './memory-session-store.js';
import { applyDeltaFields, type SessionHead } from './session-format.js';
import type { SessionStore } from './session-store.js';

const episodes = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, index) => ({ id: first + index }));

describe('addEpisodeRun', () => {
  it('appends one range per commit, extends the same run, and starts over on a reset', () => {
    const ranges: EpisodeRunRange[] = [];
    addEpisodeRun(ranges, { run_id: 'a', episodes: episodes(1, 3) });
    addEpisodeRun(ranges, { run_id: 'a', episodes: episodes(4, 5) });
    addEpisodeRun(ranges, { episodes: episodes(6, 6) });
    addEpisodeRun(ranges, { run_id: 'b', episodes: [] });
    addEpisodeRun(ranges, { run_id: 'b', episodes: episodes(7, 9) });
    // Not right after the run's last range (episode 6 came between): a range of its own.
    addEpisodeRun(ranges, { run_id: 'a', episodes: episodes(10, 10) });
    expect(ranges).toEqual([
      { run_id: 'a', first_id: 1, last_id: 5 },
      { run_id: 'b', first_id: 7, last_id: 9 },
      { run_id: 'a', first_id: 10, last_id: 10 },
    ]);
    addEpisodeRun(ranges, { reset: true, run_id: 'c', episodes: episodes(11, 12) });
    expect(ranges).toEqual([{ run_id: 'c', first_id: 11, last_id: 12 }]);
    addEpisodeRun(ranges, { reset: true });
    expect(ranges).toEqual([]);
  });

  it('skips episodes without ids (a caller commit the store does not check that deep)', () => {
    const ranges: EpisodeRunRange[] = [];
    addEpisodeRun(ranges, { run_id: 'a', episodes: [{}, { id: 'x' }] });
    expect(ranges).toEqual([]);
  });
});

/** A commit: its run (or none), how many episodes it adds, whether it cleared the log first. */
const commitArbitrary = fc.record({
  run: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }),
  added: fc.nat(3),
  reset: fc.nat(7).map((roll) => roll === 0),
});

type Commit = { run: string | undefined; added: number; reset: boolean };

/** The deltas of `commits`, their episode ids following the log's (from 1 again after a clear). */
function deltasOf(commits: ReadonlyArray<Commit>): SessionDelta[] {
  let lastId = 0;
  return commits.map((commit, index) => {
    if (commit.reset) lastId = 0;
    const first = lastId + 1;
    lastId += commit.added;
    return {
      revision: index + 1,
      updated_at: '2026-02-03T12:00:00.000Z',
      ...(commit.reset ? { reset: true as const } : {}),
      ...(commit.run === undefined ? {} : { run_id: commit.run }),
      episodes: episodes(first, lastId),
    };
  });
}

/** The run of each episode in the log after `deltas`, one delta at a time (`undefined`: none). */
function runPerEpisode(deltas: readonly SessionDelta[]): Map<number, string | undefined> {
  const runs = new Map<number, string | undefined>();
  for (const delta of deltas) {
    if (delta.reset === true) runs.clear();
    for (const episode of delta.episodes ?? []) {
      runs.set((episode as { id: number }).id, delta.run_id);
    }
  }
  return runs;
}

/** The same, read from ranges. */
function runPerEpisodeFrom(
  ranges: readonly EpisodeRunRange[],
  ids: Iterable<number>,
): Map<number, string | undefined> {
  const runs = new Map<number, string | undefined>();
  for (const id of ids) {
    const range = ranges.find((candidate) => candidate.first_id <= id && id <= candidate.last_id);
    runs.set(id, range?.run_id);
  }
  return runs;
}

describe('episode_runs over any commit sequence', () => {
  test.prop([fc.array(commitArbitrary, { maxLength: 30 }), fc.nat()])(
    'agrees with each delta’s run, whether the commits were folded one by one, at one point, or not at all',
    (commits, cut) => {
      const deltas = deltasOf(commits);
      const expected = runPerEpisode(deltas);
      // Folded on every commit (as a small session is): each commit adds its own range.
      const folded: EpisodeRunRange[] = [];
      for (const delta of deltas) addEpisodeRun(folded, delta);
      expect(runPerEpisodeFrom(folded, expected.keys())).toEqual(expected);
      // Ranges cover only episodes of the log, never overlap, and go up.
      for (const [index, range] of folded.entries()) {
        expect(range.first_id).toBeLessThanOrEqual(range.last_id);
        for (let id = range.first_id; id <= range.last_id; id++)
          expect(expected.has(id)).toBe(true);
        const next = folded[index + 1];
        if (next !== undefined) {
          expect(next.first_id).toBeGreaterThan(range.last_id);
          // A run's ranges merge when nothing comes between them.
          if (next.run_id === range.run_id)
            expect(next.first_id).toBeGreaterThan(range.last_id + 1);
        }
      }
      // A base folded after some commits, read with the deltas after it (`applyDeltaFields`):
      // the same ranges.
      const at = deltas.length === 0 ? 0 : cut % (deltas.length + 1);
      const baseRuns: EpisodeRunRange[] = [];
      for (const delta of deltas.slice(0, at)) addEpisodeRun(baseRuns, delta);
      const head: SessionHead = {
        schema_version: 2,
        session_id: '5b0c1d2e-3f40-4152-8364-758697a8b9ca',
        updated_at: '2026-02-03T12:00:00.000Z',
        revision: at,
        ...(baseRuns.length === 0 ? {} : { episode_runs: baseRuns }),
      };
      const read = applyDeltaFields(head, deltas.slice(at));
      expect(read.episode_runs ?? []).toEqual(folded);
      // The base's own ranges are not changed by a read.
      expect(head.episode_runs ?? []).toEqual(baseRuns);
    },
  );
});

/** Three turns of runs a, b, then one without a run, then c: the ranges each leaves. */
async function threeRuns(store: SessionStore) {
  const { session } = newSession({}, store);
  await session.runTurn('one', echoModel, { runId: 'run-a' });
  await session.runTurn('two', echoModel, { runId: 'run-b' });
  await session.runTurn('three', echoModel);
  await session.runTurn('four', echoModel, { runId: 'run-c' });
  return session;
}

/** Each echo turn commits three episodes: the user message, the answer, its usage. */
const RANGES = [
  { run_id: 'run-a', first_id: 1, last_id: 3 },
  { run_id: 'run-b', first_id: 4, last_id: 6 },
  { run_id: 'run-c', first_id: 10, last_id: 12 },
];

describe('episode_runs', () => {
  it('keeps the run of every commit in a base folded on every commit (a small session)', async () => {
    const store = createMemorySessionStore();
    const session = await threeRuns(store);
    const stored = await store.read(session.id);
    expect(stored?.deltas).toEqual([]);
    expect(stored?.base.head).toMatchObject({ run_id: 'run-c', episode_runs: RANGES });
    // A session loaded from it carries them on.
    const resumed = await loadSession(store, session.id);
    await resumed.runTurn('five', echoModel, { runId: 'run-d' });
    expect((await store.read(session.id))?.base.head.episode_runs).toEqual([
      ...RANGES,
      { run_id: 'run-d', first_id: 13, last_id: 15 },
    ]);
  });

  it('gives the same ranges from deltas, and a later fold writes them into the base', async () => {
    const store = createMemorySessionStore({ fold: { currentUpToBytes: 0 } });
    const session = await threeRuns(store);
    const stored = await store.read(session.id);
    expect(stored?.deltas).toHaveLength(3);
    // The first commit is the base: it holds run a's range; the deltas add the others.
    expect(stored?.base.head.episode_runs).toEqual(RANGES.slice(0, 1));
    expect(stored?.state.episode_runs).toEqual(RANGES);
    expect((await store.load(session.id))?.episode_runs).toEqual(RANGES);
    await store.fold(session.id);
    const folded = await store.read(session.id);
    expect(folded?.deltas).toEqual([]);
    expect(folded?.base.head.episode_runs).toEqual(RANGES);
  });

  it('drops them when the log is cleared, and writes none for a session without runs', async () => {
    const store = createMemorySessionStore();
    const session = await threeRuns(store);
    await session.clear();
    expect((await store.read(session.id))?.base.head).not.toHaveProperty('episode_runs');
    const { session: plain } = newSession({ id: '5b0c1d2e-3f40-4152-8364-758697a8b9ca' }, store);
    await plain.runTurn('no run', echoModel);
    expect((await store.read(plain.id))?.base.head).not.toHaveProperty('episode_runs');
  });
});

describe('a snapshot without episode_runs (an older Episodic, a seed 001 writer)', () => {
  it('loads, and its next commit names its own run only', async () => {
    const store = createMemorySessionStore();
    const { session } = newSession({}, store);
    await session.runTurn('one', echoModel);
    // As an older Episodic wrote it: the last run's id in the head, no ranges.
    const older = await store.load(session.id);
    expect(older).not.toHaveProperty('episode_runs');
    await store.save({ ...older, run_id: 'run-old' } as NonNullable<typeof older>);
    const resumed = await loadSession(store, session.id);
    expect(resumed.log.lastId).toBe(3);
    await resumed.runTurn('two', echoModel, { runId: 'run-new' });
    expect((await store.load(session.id))?.episode_runs).toEqual([
      { run_id: 'run-new', first_id: 4, last_id: 6 },
    ]);
  });
});
