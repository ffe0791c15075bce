// The kill -9 loop of the session commit reliability tests (store-fs, store-sqlite, store-postgres): start
// a committer child, kill it a random moment after its first acknowledged commit, then check that
// the session loads at the last acknowledged revision or a newer one, never a mix.
import { expect } from 'vitest';
import { committedTurns, type SessionApi } from './session-commit-steps.js';
import type { Worker } from './worker-process.js';

/** The part of a session store the loop reads: where the base stands. */
interface BaseReader {
  read(sessionId: string): Promise<{ baseRevision: number } | null>;
}

/** What one round found once the child was killed: the loaded and the base revisions. */
export interface KilledRound {
  readonly revision: number;
  readonly baseRevision: number;
}

/** Options of `killCommitters`. */
export interface CommitKillOptions<Store extends BaseReader> {
  readonly kills: number;
  readonly api: SessionApi<Store>;
  readonly sessionId: string;
  /** Starts a committer of `sessionId` that folds every `foldEvery` commits (1 to 5). */
  start(foldEvery: number): Worker;
  /** Waits for what the killed child leaves behind (its connections) before the checks. */
  afterKill?(child: Worker): Promise<void>;
  /**
   * Gives `round` the store's sessions (opening the store for it if need be) and adds the
   * backend's own checks of what is stored.
   */
  inspect(round: (sessions: Store) => Promise<KilledRound>): Promise<void>;
}

/** The figures of `killCommitters` for the test's report line. */
export interface CommitKillFigures {
  /** The revision the session loaded at after the last kill. */
  readonly lastRevision: number;
  /** Kills between which a fold moved the base. */
  readonly foldsSeen: number;
  /** Loads one or more commits past the last acknowledgement (written, killed before the ack). */
  readonly newerThanAcked: number;
}

/**
 * Runs `kills` rounds: each kills a committer with SIGKILL, then checks that the session loads
 * consistent, at or past every revision acknowledged so far, and that folds moved the base
 * between more than a quarter of the kills. Returns the figures for the test's report line.
 */
export async function killCommitters<Store extends BaseReader>(
  options: CommitKillOptions<Store>,
): Promise<CommitKillFigures> {
  let lastAcked = 0;
  let foldsSeen = 0;
  let newerThanAcked = 0;
  let baseRevision = 0;
  const round = async (sessions: Store): Promise<KilledRound> => {
    const loaded = await committedTurns(options.api, sessions, options.sessionId);
    expect(loaded.problem).toBeUndefined();
    expect(loaded.consistent).toBe(true);
    expect(loaded.revision).toBeGreaterThanOrEqual(lastAcked);
    if (loaded.revision > lastAcked) newerThanAcked++;
    lastAcked = loaded.revision;
    const stored = await sessions.read(options.sessionId);
    if ((stored?.baseRevision ?? 0) > baseRevision) foldsSeen++;
    baseRevision = stored?.baseRevision ?? 0;
    return { revision: loaded.revision, baseRevision };
  };
  for (let kill = 0; kill < options.kills; kill++) {
    const child = options.start(1 + (kill % 5));
    await child.waitFor((line) => line.startsWith('ack '));
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 40)));
    child.child.kill('SIGKILL');
    const { signal, stderr } = await child.exited;
    expect(signal, stderr).toBe('SIGKILL');
    await options.afterKill?.(child);
    const acks = child.lines.filter((line) => line.startsWith('ack '));
    lastAcked = Math.max(lastAcked, Number(acks.at(-1)?.slice(4)));
    await options.inspect(round);
  }
  expect(foldsSeen).toBeGreaterThan(options.kills / 4);
  return { lastRevision: lastAcked, foldsSeen, newerThanAcked };
}
