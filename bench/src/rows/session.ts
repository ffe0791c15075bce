import { join } from 'node:path';
import { commitEpisodes, createSession, loadSession, type Session } from '@episodic/core';
import {
  copyStore,
  ensureSessionDataset,
  FOLD_EVERY_COMMIT_BYTES,
  type OpenedSessionStore,
  openSessionStore,
  SESSION_BACKENDS,
  SESSION_DURABILITY,
  type SessionBackend,
  type SessionDataset,
  SMALL_SESSION_EPISODES,
  sequentialIds,
  steadyClock,
  storeBytes,
  TURN_ANSWER_TEXT,
  TURN_USER_TEXT,
  turnEpisodes,
} from '../data/sessions.js';
import { fileAppendProbe, sqliteAppendProbe } from '../lib/append-probe.js';
import { type BenchEpisode, BenchSession } from '../lib/bench-session.js';
import { alternate, check, compareRow, type Round } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatBytes, formatCount } from '../lib/context.js';
import { probeReadAll } from '../lib/jsonl-probe.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { LatencyRecorder, median, nowMicros } from '../lib/stats.js';
import { TurnSplit } from '../lib/turn-split.js';

/** A turn's episodes as a framework adapter commits them: the user's message and the answer. */
const TURN_EPISODES = turnEpisodes(TURN_USER_TEXT, TURN_ANSWER_TEXT);

/** `count` commits of a turn's episodes in a row: throughput (commits/s) and each latency in µs. */
async function commitThroughput(session: Session, count: number): Promise<Round> {
  const latencies = new LatencyRecorder(count);
  const start = nowMicros();
  for (let index = 0; index < count; index++) {
    const before = nowMicros();
    await commitEpisodes(session, TURN_EPISODES);
    latencies.add(nowMicros() - before);
  }
  return { value: count / ((nowMicros() - start) / 1e6), latencies: latencies.toArray() };
}

/**
 * Turns until `budgetMs` has passed (at least `min`, at most `max`): the round's median commit
 * time in ms, and every commit's latency in ms. A bounded count keeps a slow implementation's
 * round short; the median does not depend on the count.
 */
async function commitTimes(
  session: Session,
  split: TurnSplit,
  bounds: { min: number; max: number; budgetMs: number },
): Promise<Round> {
  const latencies = new LatencyRecorder(bounds.max);
  const start = nowMicros();
  while (
    latencies.size < bounds.min ||
    (latencies.size < bounds.max && nowMicros() - start < bounds.budgetMs * 1000)
  ) {
    const before = nowMicros();
    await split.turn(session, TURN_USER_TEXT);
    latencies.add((nowMicros() - before) / 1000);
  }
  const values = latencies.toArray();
  return { value: median(values), latencies: values };
}

function notesOf(notes: ReadonlyArray<string | null>): string[] {
  return notes.filter((note): note is string => note !== null);
}

interface BackendData {
  backend: SessionBackend;
  small: SessionDataset;
  large: SessionDataset;
}

function storeSize(dataset: SessionDataset): string {
  return `${formatBytes(dataset.bytes)} on disk; ${formatBytes(dataset.jsonlBytes)} as JSONL`;
}

async function loadRow(
  context: BenchContext,
  data: BackendData,
  store: OpenedSessionStore,
): Promise<RowResult> {
  const { large, backend } = data;
  const { rounds, warmup } = context.sizes;
  const measured = await alternate({
    rounds,
    warmup,
    product: async () => {
      const start = nowMicros();
      const session = await loadSession(store.sessions, large.sessionId);
      const elapsed = nowMicros() - start;
      if (session.log.size !== large.episodes) throw new Error(`loaded ${session.log.size}`);
      return { value: large.episodes / (elapsed / 1e6) };
    },
    probe: () => {
      const start = nowMicros();
      const episodes = probeReadAll(large.jsonl);
      const elapsed = nowMicros() - start;
      if (episodes.length !== large.episodes) throw new Error(`parsed ${episodes.length}`);
      return { value: large.episodes / (elapsed / 1e6) };
    },
  });
  return compareRow(
    {
      id: `session.load.${backend}`,
      area: 'session load',
      title: `loadSession of a ${formatCount(large.episodes)}-episode session (${backend} store)`,
      durability: `read, page cache (${SESSION_DURABILITY[backend].text})`,
      mode: 'read, page cache',
      dataset: `${formatCount(large.episodes)} episodes, ${storeSize(large)}`,
      product: `await loadSession(store.sessions, id): the committed log (validated, indexed), context, revision`,
      probe:
        'the same episodes as plain JSONL: 1 MB readSync chunks + indexOf("\\n") + JSON.parse per line',
      metric: { name: 'throughput', unit: 'episodes/s', better: 'higher' },
      target: '≥ 0.7× probe',
    },
    measured,
    (row) => [check('throughput ratio ≥ 0.7', row.ratio?.median ?? Number.NaN, '>=', 0.7)],
    [
      `on disk: ${formatBytes(large.bytes)} (${formatCount(large.bytes)} bytes) for ${formatCount(large.episodes)} episodes; the episodes as JSONL: ${formatBytes(large.jsonlBytes)}`,
      `data set built through the public API in ${large.buildSeconds.toFixed(0)} s (implementation ${large.implementation})`,
    ],
  );
}

/**
 * `count` store-level commits of a turn's delta, starting from the session as the row began (saved
 * again before the clock starts): throughput (commits/s), each latency in µs. Every round then
 * commits to a session of the same size and folds at the same points, as a session of that size
 * does turn after turn.
 */
async function storeCommits(
  store: OpenedSessionStore,
  session: BenchSession,
  count: number,
): Promise<Round> {
  const expectedRevision = session.revision;
  await store.sessions.save(session.restart(), { expectedRevision });
  const latencies = new LatencyRecorder(count);
  // The turns' text is made before the clock starts: the probe's line is made ahead too.
  const deltas = session.planTurns(count);
  const start = nowMicros();
  for (const delta of deltas) {
    session.accept(delta);
    const before = nowMicros();
    await store.sessions.commit({
      sessionId: session.id,
      expectedRevision: delta.revision - 1,
      delta,
    });
    latencies.add(nowMicros() - before);
  }
  return { value: count / ((nowMicros() - start) / 1e6), latencies: latencies.toArray() };
}

/** `label: 0.41 ms per commit at the median, over N commits` */
async function commitEpisodesNote(label: string, session: Session, count: number): Promise<string> {
  const round = await commitThroughput(session, count);
  return `${label}: ${(median(round.latencies ?? []) / 1000).toPrecision(3)} ms per commit at the median, over ${count} commits`;
}

async function commitRow(
  context: BenchContext,
  data: BackendData,
  store: OpenedSessionStore,
  sessionId: string,
  scratch: string,
): Promise<RowResult> {
  const { backend, small } = data;
  const { rounds, warmup } = context.sizes;
  aboveFoldEveryCommit(small);
  // Enough commits that every round holds the folds the default policy makes (three, at the same
  // points, as each round starts from the same session) and the probe's WAL checkpoints: with 300
  // a round on a growing session held a fold or not, and the same code read 0.40x and 0.78x.
  const count = context.quick ? 200 : 2000;
  // The loaded session's log, committed to turn by turn at the store level.
  const loaded = await loadSession(store.sessions, sessionId);
  const session = new BenchSession(
    loaded.id,
    loaded.log.read({ fromId: 0 }).map((episode) => ({ ...episode }) as BenchEpisode),
    303,
    loaded.revision,
  );
  // One commit first: its delta is what the probe appends, at the same size.
  const template = { session_id: sessionId, ...session.nextTurn() } as Record<string, unknown>;
  await store.sessions.commit({
    sessionId,
    expectedRevision: (template.revision as number) - 1,
    delta: template as never,
  });
  const line = () => `${JSON.stringify(template)}\n`;
  const deltaBytes = Buffer.byteLength(line());
  const probe =
    backend === 'fs'
      ? fileAppendProbe(join(scratch, 'probe-deltas.jsonl'), true)
      : sqliteAppendProbe(join(scratch, 'probe-deltas.db'));
  const measured = await alternate({
    rounds,
    warmup,
    product: () => storeCommits(store, session, count),
    probe: () => {
      const latencies = new LatencyRecorder(count);
      const start = nowMicros();
      for (let index = 0; index < count; index++) {
        const before = nowMicros();
        template.revision = (template.revision as number) + 1;
        probe.append(line());
        latencies.add(nowMicros() - before);
      }
      return { value: count / ((nowMicros() - start) / 1e6), latencies: latencies.toArray() };
    },
  });
  probe.close();
  // For scale, on the same store: the same commit through a live session (commitEpisodes, as a
  // framework adapter commits a turn), and a whole turn (runTurn with an instant model).
  const live = await loadSession(store.sessions, sessionId);
  const grown = `the session, now ${formatCount(live.log.size)} episodes`;
  const viaSession = await commitEpisodesNote(`commitEpisodes of a turn on ${grown}`, live, count);
  const split = new TurnSplit(TURN_ANSWER_TEXT);
  for (let index = 0; index < 20; index++) await split.turn(live, TURN_USER_TEXT);
  return compareRow(
    {
      id: `session.commit.${backend}`,
      area: 'session commit',
      title: `commit one turn on a ${formatCount(SMALL_SESSION_EPISODES)}-episode session (${backend} store)`,
      durability: `${SESSION_DURABILITY[backend].text}; probe: ${probe.durability}`,
      mode: SESSION_DURABILITY[backend].mode,
      dataset: `a ${formatCount(SMALL_SESSION_EPISODES)}-episode session; each round starts from it again (saved before the clock starts) and commits ${formatCount(count)} turns of 2 episodes, folding by the default policy as it grows to ${formatCount(SMALL_SESSION_EPISODES + 2 * count)} episodes`,
      product:
        "await sessions.commit({ expectedRevision, delta }) of a turn's delta: validation, encoding, compare-and-append under the session's revision, folds by the default policy",
      probe: probe.description,
      metric: { name: 'throughput', unit: 'commits/s', better: 'higher' },
      latencyUnit: 'µs',
      target: '≥ 0.5× probe',
    },
    measured,
    (row) => [check('throughput ratio ≥ 0.5', row.ratio?.median ?? Number.NaN, '>=', 0.5)],
    [
      `the probe's delta line is ${deltaBytes} bytes (the turn's 2 episodes, revision, invoke_seq, time)`,
      viaSession,
      ...notesOf([split.note(`a whole runTurn on ${grown}`)]),
    ],
  );
}

/**
 * Throws unless `dataset` is stored in more bytes than the default policy folds on every commit:
 * the commit rows measure commits whose cost does not grow with the session (DESIGN.md §10).
 */
function aboveFoldEveryCommit(dataset: SessionDataset): void {
  if (dataset.bytes <= FOLD_EVERY_COMMIT_BYTES) {
    throw new Error(
      `the ${formatCount(dataset.episodes)}-episode session is stored in ${formatCount(dataset.bytes)} bytes, at most the ${formatCount(FOLD_EVERY_COMMIT_BYTES)} up to which every commit folds: raise SMALL_SESSION_EPISODES so the commit rows measure the amortized regime`,
    );
  }
}

/** Turns committed before a small-session round's clock starts, and turns measured. */
const TINY_WARM_TURNS = 50;

/**
 * For information (no target): a turn's commit on a small session, below the size up to which
 * the default policy folds on every commit, so every commit also rewrites its base (what seed 001
 * readers see is current). Each round commits to a new session of 100 episodes (50 turns
 * committed before the clock starts).
 */
async function smallCommitRow(
  context: BenchContext,
  backend: SessionBackend,
  directory: string,
  scratch: string,
): Promise<RowResult> {
  const { rounds, warmup } = context.sizes;
  const count = context.quick ? 50 : 200;
  const store = openSessionStore(backend, directory);
  const ids = sequentialIds(backend === 'fs' ? 5 : 6);
  let largest = 0;
  const template = { revision: 1, updated_at: new Date(0).toISOString(), episodes: TURN_EPISODES };
  const line = () => `${JSON.stringify(template)}\n`;
  const probe =
    backend === 'fs'
      ? fileAppendProbe(join(scratch, 'probe-small.jsonl'), true)
      : sqliteAppendProbe(join(scratch, 'probe-small.db'));
  try {
    const measured = await alternate({
      rounds,
      warmup,
      product: async () => {
        const session = createSession({ store: store.sessions, id: ids(), now: steadyClock() });
        for (let turn = 0; turn < TINY_WARM_TURNS; turn++) {
          await commitEpisodes(session, TURN_EPISODES);
        }
        const round = await commitThroughput(session, count);
        largest = Math.max(largest, storeBytes(directory));
        return round;
      },
      probe: () => {
        const latencies = new LatencyRecorder(count);
        const start = nowMicros();
        for (let index = 0; index < count; index++) {
          const before = nowMicros();
          template.revision += 1;
          probe.append(line());
          latencies.add(nowMicros() - before);
        }
        return { value: count / ((nowMicros() - start) / 1e6), latencies: latencies.toArray() };
      },
    });
    const episodes = 2 * (TINY_WARM_TURNS + count);
    return compareRow(
      {
        id: `session.commit.small.${backend}`,
        area: 'session commit',
        title: `commit one turn on a small session, folded on every commit (${backend} store)`,
        durability: `${SESSION_DURABILITY[backend].text}; probe: ${probe.durability}`,
        mode: SESSION_DURABILITY[backend].mode,
        dataset: `a new session per round: ${2 * TINY_WARM_TURNS} episodes, then ${formatCount(count)} turns of 2 episodes measured, growing it to ${formatCount(episodes)} episodes (below ${formatBytes(FOLD_EVERY_COMMIT_BYTES)}: every commit folds)`,
        product:
          "await commitEpisodes(session, turn) with the default fold policy: the delta's compare-and-append, then a fold that rewrites the session's base, so the seed 001 snapshot is current after every commit",
        probe: probe.description,
        metric: { name: 'throughput', unit: 'commits/s', better: 'higher' },
        latencyUnit: 'µs',
        target: 'none (reported for information: DESIGN.md §10)',
      },
      measured,
      () => [],
      [
        `the store after the last round: ${formatBytes(largest)} for ${rounds + warmup} sessions of up to ${formatCount(episodes)} episodes`,
      ],
    );
  } finally {
    probe.close();
    await store.close();
  }
}

async function sizeIndependenceRow(
  context: BenchContext,
  data: BackendData,
  largeSession: Session,
  smallSession: Session,
): Promise<RowResult> {
  const { backend, large } = data;
  const { rounds, warmup } = context.sizes;
  const bounds = { min: 3, max: context.quick ? 10 : 20, budgetMs: 3000 };
  const largeSplit = new TurnSplit(TURN_ANSWER_TEXT);
  const smallSplit = new TurnSplit(TURN_ANSWER_TEXT);
  const measured = await alternate({
    rounds,
    warmup,
    product: () => commitTimes(largeSession, largeSplit, bounds),
    probe: () => commitTimes(smallSession, smallSplit, bounds),
  });
  return compareRow(
    {
      id: `session.commit.size-independence.${backend}`,
      area: 'session commit',
      title: `commit one turn: ${formatCount(large.episodes)}-episode session vs ${formatCount(SMALL_SESSION_EPISODES)}-episode session (${backend} store)`,
      durability: SESSION_DURABILITY[backend].text,
      mode: SESSION_DURABILITY[backend].mode,
      dataset: `loaded sessions of ${formatCount(large.episodes)} and ${formatCount(SMALL_SESSION_EPISODES)} episodes, both ending at a compaction checkpoint; ${bounds.min}–${bounds.max} turns per round (3 s budget)`,
      product: `the same runTurn on the ${formatCount(large.episodes)}-episode session`,
      probe: `runTurn on the ${formatCount(SMALL_SESSION_EPISODES)}-episode session (the product against itself)`,
      metric: { name: 'median time per commit', unit: 'ms', better: 'lower' },
      latencyUnit: 'ms',
      target: 'large / small ≤ 1.5×',
    },
    measured,
    (row) => [check('time ratio ≤ 1.5', row.ratio?.median ?? Number.NaN, '<=', 1.5)],
    [
      `the large session: ${formatCount(large.episodes)} episodes, ${storeSize(large)}`,
      'the per-round value is the median commit of the round; p99 and max show the slow commits (e.g. a fold of deltas into a new base)',
      ...notesOf([
        largeSplit.note(`${formatCount(large.episodes)} episodes`),
        smallSplit.note(`${formatCount(SMALL_SESSION_EPISODES)} episodes`),
      ]),
    ],
  );
}

/** A row whose data set the product could not write: an error, with the product's message. */
function failedRow(
  id: string,
  backend: SessionBackend,
  episodes: number,
  reason: string,
): RowResult {
  return {
    id,
    area: id.startsWith('session.load') ? 'session load' : 'session commit',
    title: `the ${formatCount(episodes)}-episode session could not be written (${backend} store)`,
    durability: SESSION_DURABILITY[backend].text,
    mode: SESSION_DURABILITY[backend].mode,
    dataset: `${formatCount(episodes)} episodes, built through the public API`,
    product: 'n/a',
    probe: 'n/a',
    metric: { name: 'n/a', unit: '', better: 'lower' },
    target: id.startsWith('session.load') ? '≥ 0.7× probe' : 'large / small ≤ 1.5×',
    status: 'error',
    checks: [],
    notes: [`building the data set failed: ${reason}`],
  };
}

async function backendRows(context: BenchContext, backend: SessionBackend): Promise<RowResult[]> {
  const small = await ensureSessionDataset(context, backend, SMALL_SESSION_EPISODES);
  let large: SessionDataset | undefined;
  let largeFailure = '';
  try {
    large = await ensureSessionDataset(context, backend, context.sizes.sessionEpisodes);
  } catch (error) {
    largeFailure = error instanceof Error ? error.message : String(error);
  }
  const data: BackendData = { backend, small, large: large as SessionDataset };
  const scratch = scratchDirectory(context, `session-${backend}`);
  const stores: OpenedSessionStore[] = [];
  const open = (name: string, dataset: SessionDataset): OpenedSessionStore => {
    const directory = join(scratch.path, name);
    copyStore(dataset.store, directory);
    const store = openSessionStore(backend, directory);
    stores.push(store);
    return store;
  };
  try {
    // Load first, while the large copy is exactly the data set as built.
    const largeStore = large === undefined ? undefined : open('large', large);
    let load: RowResult;
    if (largeStore === undefined) {
      load = failedRow(
        `session.load.${backend}`,
        backend,
        context.sizes.sessionEpisodes,
        largeFailure,
      );
    } else {
      context.log(`session.load.${backend}`);
      load = await loadRow(context, data, largeStore);
    }

    context.log(`session.commit.${backend}`);
    const commitStore = open('small-commit', small);
    const commit = await commitRow(context, data, commitStore, small.sessionId, scratch.path);

    let independence: RowResult;
    if (largeStore === undefined) {
      independence = failedRow(
        `session.commit.size-independence.${backend}`,
        backend,
        context.sizes.sessionEpisodes,
        largeFailure,
      );
    } else {
      context.log(`session.commit.size-independence.${backend}`);
      const smallStore = open('small', small);
      independence = await sizeIndependenceRow(
        context,
        data,
        await loadSession(largeStore.sessions, data.large.sessionId),
        await loadSession(smallStore.sessions, small.sessionId),
      );
    }
    context.log(`session.commit.small.${backend}`);
    const smallCommit = await smallCommitRow(
      context,
      backend,
      join(scratch.path, 'small-sessions'),
      scratch.path,
    );
    return [commit, smallCommit, independence, load];
  } finally {
    for (const store of stores) await store.close();
    scratch.dispose();
  }
}

export const sessionModule: RowModule = {
  id: 'session',
  rows: SESSION_BACKENDS.flatMap((backend) => [
    `session.commit.${backend}`,
    `session.commit.small.${backend}`,
    `session.commit.size-independence.${backend}`,
    `session.load.${backend}`,
  ]),
  needs: ['sessions'],
  async run(context: BenchContext): Promise<RowResult[]> {
    const rows: RowResult[] = [];
    for (const backend of SESSION_BACKENDS) rows.push(...(await backendRows(context, backend)));
    return rows;
  },
};
