import { EpisodicError } from '../errors/episodic-error.js';
import type { RunRecord } from '../schema/run-record.js';
import type { ArtifactStore } from '../store/artifact-store.js';
import type { Ledger } from '../store/ledger-store.js';
import type { RunStore } from '../store/run-store.js';
import { scopeRunStore } from '../store/scoped-run-store.js';
import { sessionRereads } from '../store/session-rereads.js';
import { type SessionStore, sessionEpisodes } from '../store/session-store.js';
import { messageEpisode, SESSION_TS } from './session-fixtures.js';

/**
 * Work the conformance suite runs in another process, against the same stores as the test, to
 * check the promises a store makes across processes (`crossProcessAppends`). A harness that
 * declares `capabilities.crossProcess` implements `StoreHarness.runInChild` by spawning a real
 * child process that opens the same stores and calls `runConformanceChild` with the task.
 */
export type ConformanceChildTask =
  | {
      /** Compare-and-append `count` records to an existing run, re-reading and retrying on CONFLICT. */
      kind: 'run-append-race';
      runId: string;
      /** This writer's number (recorded in each record, so the test can tell writers apart). */
      writer: number;
      count: number;
    }
  | {
      /**
       * Append `count` records to an existing run with plain appends (no expected position),
       * as fast as it can: racing plain appenders on a chaining store.
       */
      kind: 'run-plain-append';
      runId: string;
      writer: number;
      count: number;
      /** Start at this time (epoch ms), so that writers started one after another overlap. */
      startAtMs?: number;
    }
  | {
      /**
       * Commit `count` turns (one episode each) to an existing session, each expecting the
       * revision last read, re-reading and retrying on CONFLICT.
       */
      kind: 'session-commit-race';
      sessionId: string;
      writer: number;
      count: number;
    }
  | {
      /**
       * Read an existing session over and over (at most `count` times) until it reaches
       * `untilRevision`, while other processes commit and fold it; one entry per read, with the
       * revision it read, and `rereads` counts the loads that had to read it again.
       */
      kind: 'session-read-race';
      sessionId: string;
      untilRevision: number;
      count: number;
    }
  | {
      /**
       * Upsert the artifact `key` `count` times, each time associating one more episode of this
       * writer's (`raceEpisode(writer, n)`), and this writer's own key once per turn.
       */
      kind: 'artifact-upsert-race';
      key: string;
      writer: number;
      count: number;
    }
  | {
      /**
       * Delete run `runId` (through the store itself) and create it again with `records` (header
       * first) through a store bound to `scope`: another process replacing a run under a scoped
       * store that has already read it.
       */
      kind: 'run-recreate';
      runId: string;
      scope: string;
      records: RunRecord[];
    }
  | {
      /**
       * Append `count` events (one `appendBatch` of `batch` events every `batch`-th time, single
       * appends otherwise) to one ledger session, no expected position: racing plain appenders.
       */
      kind: 'ledger-append-race';
      scope: string;
      sessionId: string;
      writer: number;
      count: number;
    }
  | {
      /**
       * Save an existing session anew at the revision it is at (no `expectedRevision`), its last
       * episode's text replaced by `text`: another writer rewriting the base without a commit.
       */
      kind: 'session-rewrite';
      sessionId: string;
      text: string;
    };

/**
 * What a child did: one entry per acknowledged write, in the order they were acknowledged, with
 * the run position or session revision the write took.
 */
export interface ConformanceChildResult {
  acknowledged: Array<{ n: number; position: number }>;
  /** How many attempts lost a race (`CONFLICT`) and were retried. */
  conflicts: number;
  /**
   * Session tasks: how many session loads in the child read the session a second time because
   * its base was replaced while it was read (a store reading one snapshot never does).
   */
  rereads?: number;
}

/** The stores a child opens (the same backend and location as the test's harness). */
export interface ConformanceChildStores {
  runs?: RunStore;
  sessions?: SessionStore;
  artifacts?: ArtifactStore;
  ledger?: Ledger;
}

/** The `agent.event` a racing writer appends as its `n`-th record. */
export function raceEvent(runId: string, writer: number, n: number, seq: number) {
  return {
    type: 'agent.event' as const,
    run_id: runId,
    ts: '2026-02-03T12:00:00.000Z',
    seq,
    event: { type: 'conformance.race', writer, n },
  };
}

/**
 * Runs one conformance task in this (child) process and returns what it did. Call it from the
 * harness's child script, then print the result as JSON for the parent.
 */
export async function runConformanceChild(
  stores: ConformanceChildStores,
  task: ConformanceChildTask,
): Promise<ConformanceChildResult> {
  if (task.kind === 'session-commit-race') return sessionCommitRace(stores, task);
  if (task.kind === 'session-read-race') return sessionReadRace(stores, task);
  if (task.kind === 'artifact-upsert-race') return artifactUpsertRace(stores, task);
  if (task.kind === 'session-rewrite') return sessionRewrite(stores, task);
  if (task.kind === 'run-recreate') return runRecreate(stores, task);
  if (task.kind === 'run-plain-append') return runPlainAppend(stores, task);
  if (task.kind === 'ledger-append-race') return ledgerAppendRace(stores, task);
  const { runs } = stores;
  if (runs === undefined) throw new Error('run-append-race needs the harness to open `runs`');
  const result: ConformanceChildResult = { acknowledged: [], conflicts: 0 };
  let position = (await runs.read(task.runId)).position;
  for (let n = 0; n < task.count; n++) {
    for (;;) {
      try {
        const receipt = await runs.append(
          task.runId,
          [raceEvent(task.runId, task.writer, n, position)],
          { expectedPosition: position },
        );
        position = receipt.position as number;
        result.acknowledged.push({ n, position });
        break;
      } catch (error) {
        if (!EpisodicError.hasCode(error, 'CONFLICT')) throw error;
        result.conflicts++;
        position = (await runs.readAfter(task.runId, position)).position;
      }
    }
  }
  return result;
}

async function runPlainAppend(
  stores: ConformanceChildStores,
  task: Extract<ConformanceChildTask, { kind: 'run-plain-append' }>,
): Promise<ConformanceChildResult> {
  const { runs } = stores;
  if (runs === undefined) throw new Error('run-plain-append needs the harness to open `runs`');
  const result: ConformanceChildResult = { acknowledged: [], conflicts: 0 };
  const wait = (task.startAtMs ?? 0) - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  for (let n = 0; n < task.count; n++) {
    const receipt = await runs.append(task.runId, [raceEvent(task.runId, task.writer, n, n)]);
    result.acknowledged.push({ n, position: receipt.appended });
  }
  return result;
}

async function ledgerAppendRace(
  stores: ConformanceChildStores,
  task: Extract<ConformanceChildTask, { kind: 'ledger-append-race' }>,
): Promise<ConformanceChildResult> {
  const { ledger } = stores;
  if (ledger === undefined)
    throw new Error('ledger-append-race needs the harness to open `ledger`');
  const result: ConformanceChildResult = { acknowledged: [], conflicts: 0 };
  const event = (n: number) => ({
    event_id: `race-${task.writer}-${n}`,
    scope: task.scope,
    session_id: task.sessionId,
    agent_id: `writer-${task.writer}`,
    type: 'conversation.user' as const,
    summary: `writer ${task.writer} event ${n}`,
    ts_ms: 1_767_225_600_000 + n,
    payload: { writer: task.writer, n },
  });
  for (let n = 0; n < task.count; ) {
    if (n % 5 === 4 && n + 3 <= task.count) {
      const receipts = await ledger.appendBatch([event(n), event(n + 1), event(n + 2)]);
      for (const [index, receipt] of receipts.entries())
        result.acknowledged.push({ n: n + index, position: receipt.event.position });
      n += 3;
      continue;
    }
    const receipt = await ledger.append(event(n));
    result.acknowledged.push({ n, position: receipt.event.position });
    n++;
  }
  return result;
}

async function runRecreate(
  stores: ConformanceChildStores,
  task: Extract<ConformanceChildTask, { kind: 'run-recreate' }>,
): Promise<ConformanceChildResult> {
  const { runs } = stores;
  if (runs === undefined) throw new Error('run-recreate needs the harness to open `runs`');
  if (!(await runs.delete(task.runId))) throw new Error(`run ${task.runId} does not exist`);
  const receipt = await scopeRunStore(runs, { scope: task.scope }).append(
    task.runId,
    task.records,
    { expectedPosition: 0 },
  );
  return {
    acknowledged: [{ n: 0, position: receipt.position as number }],
    conflicts: 0,
  };
}

/** The text of the episode a racing session writer commits as its `n`-th turn. */
export function raceTurn(writer: number, n: number): string {
  return `writer ${writer} turn ${n}`;
}

async function sessionCommitRace(
  stores: ConformanceChildStores,
  task: Extract<ConformanceChildTask, { kind: 'session-commit-race' }>,
): Promise<ConformanceChildResult> {
  const { sessions } = stores;
  if (sessions === undefined) throw new Error('session-commit-race needs `sessions`');
  const rereadsBefore = sessionRereads();
  const result: ConformanceChildResult = { acknowledged: [], conflicts: 0 };
  const reload = async () => {
    const stored = await sessions.read(task.sessionId);
    if (stored === null) throw new Error(`session ${task.sessionId} does not exist`);
    return { revision: stored.state.revision ?? 0, episodes: sessionEpisodes(stored) };
  };
  let { revision, episodes } = await reload();
  for (let n = 0; n < task.count; n++) {
    for (;;) {
      const episode = messageEpisode(episodes.length + 1, raceTurn(task.writer, n));
      const all = [...episodes, episode];
      try {
        await sessions.commit({
          sessionId: task.sessionId,
          expectedRevision: revision,
          delta: { revision: revision + 1, updated_at: SESSION_TS, episodes: [episode] },
        });
        revision += 1;
        episodes = all;
        result.acknowledged.push({ n, position: revision });
        break;
      } catch (error) {
        if (!EpisodicError.hasCode(error, 'CONFLICT')) throw error;
        result.conflicts++;
        ({ revision, episodes } = await reload());
      }
    }
  }
  return { ...result, rereads: sessionRereads() - rereadsBefore };
}

async function sessionReadRace(
  stores: ConformanceChildStores,
  task: Extract<ConformanceChildTask, { kind: 'session-read-race' }>,
): Promise<ConformanceChildResult> {
  const { sessions } = stores;
  if (sessions === undefined) throw new Error('session-read-race needs `sessions`');
  const rereadsBefore = sessionRereads();
  const result: ConformanceChildResult = { acknowledged: [], conflicts: 0 };
  for (let n = 0; n < task.count; n++) {
    const stored = await sessions.read(task.sessionId);
    if (stored === null) throw new Error(`session ${task.sessionId} does not exist`);
    const revision = stored.state.revision ?? 0;
    // One snapshot: as many episodes as revisions (each commit of the race adds one).
    if (sessionEpisodes(stored).length !== revision) {
      throw new Error(
        `read revision ${revision} with ${sessionEpisodes(stored).length} episodes: not one snapshot`,
      );
    }
    result.acknowledged.push({ n, position: revision });
    if (revision >= task.untilRevision) break;
  }
  return { ...result, rereads: sessionRereads() - rereadsBefore };
}

/** The task episode a racing artifact writer associates on its `n`-th upsert. */
export function raceEpisode(writer: number, n: number): string {
  const hex = (writer * 0x10000 + n).toString(16).padStart(12, '0');
  return `task:7a6b5c4d-3e2f-4a1b-8c9d-${hex}`;
}

/** The key a racing artifact writer upserts alone. */
export function raceArtifactKey(key: string, writer: number): string {
  return `${key}:writer-${writer}`;
}

async function artifactUpsertRace(
  stores: ConformanceChildStores,
  task: Extract<ConformanceChildTask, { kind: 'artifact-upsert-race' }>,
): Promise<ConformanceChildResult> {
  const { artifacts } = stores;
  if (artifacts === undefined) throw new Error('artifact-upsert-race needs `artifacts`');
  const result: ConformanceChildResult = { acknowledged: [], conflicts: 0 };
  for (let n = 0; n < task.count; n++) {
    const episodes = [raceEpisode(task.writer, n)];
    const shared = await artifacts.upsert({
      key: task.key,
      kind: 'pattern',
      content: 'shared',
      episodes,
    });
    await artifacts.upsert({
      key: raceArtifactKey(task.key, task.writer),
      kind: 'pattern',
      content: n,
      episodes,
    });
    result.acknowledged.push({ n, position: shared.episodes.length });
  }
  return result;
}

async function sessionRewrite(
  stores: ConformanceChildStores,
  task: Extract<ConformanceChildTask, { kind: 'session-rewrite' }>,
): Promise<ConformanceChildResult> {
  const { sessions } = stores;
  if (sessions === undefined) throw new Error('session-rewrite needs `sessions`');
  const state = await sessions.load(task.sessionId);
  if (state === null) throw new Error(`session ${task.sessionId} does not exist`);
  const episodes = state.episodes ?? [];
  const revision = state.revision ?? 0;
  const rewritten = [...episodes.slice(0, -1), messageEpisode(episodes.length, task.text)];
  const messages = state.messages.map((message, index) =>
    index === state.messages.length - 1 ? { ...message, content: task.text } : message,
  );
  await sessions.save({ ...state, episodes: rewritten, messages });
  return { acknowledged: [{ n: 0, position: revision }], conflicts: 0 };
}
