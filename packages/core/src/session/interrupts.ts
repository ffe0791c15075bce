// The turns of a session in call order, and how one of them is interrupted or aborted: the
// interrupt boundary (and with `keep: 'partial'` the turn's work so far) committed in its place.
import type { Episodic } from '../episodic/create-episodic.js';
import type { BoundaryEpisode, Episode, NewEpisode } from '../schema/episode.js';
import { turnAbortedError } from './abortable.js';
import type { InterruptResult } from './session-types.js';
import type { SessionWriter } from './session-writer.js';

/** A turn from `runTurn()` until it committed or was discarded. */
export interface ActiveTurn {
  readonly turnId: string;
  readonly controller: AbortController;
  /** Set once the commit has started: from then on the turn can no longer be aborted. */
  committing: boolean;
  /** Set once the turn's failure path has run: a late interrupt() finds nothing to do. */
  finished: boolean;
  interrupt: {
    reason: string | undefined;
    keep: 'boundary' | 'partial';
    promise: Promise<InterruptResult>;
  } | null;
  resolveInterrupt: ((result: InterruptResult) => void) | null;
  rejectInterrupt: ((error: unknown) => void) | null;
  readonly settled: Promise<void>;
  markSettled(): void;
}

const INTERRUPT_TITLE = 'turn interrupted';
const INTERRUPT_CONTENT =
  'The previous turn was interrupted before it finished: its input and output were discarded, and tools it called may have partially run.';
const INTERRUPT_PARTIAL_CONTENT =
  'The previous turn was interrupted before it finished: its input and the output produced so far were kept; a tool call without an output did not finish and may have partially run.';

/** What `interrupt()` gives when no turn could be interrupted (a fresh object each time). */
const notInterrupted = (): InterruptResult => ({
  interrupted: false,
  turnId: null,
  boundary: null,
  kept: [],
});

/** A session's turns in call order: the first is running or next to run; later ones wait. */
export class TurnRegistry {
  private readonly sessionId: string;
  private readonly turns: ActiveTurn[] = [];

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  /** The current turn's id: the one running now, else the next one waiting, else null. */
  get activeTurnId(): string | null {
    return this.turns[0]?.turnId ?? null;
  }

  /**
   * Registers a turn as soon as `runTurn()` is called (not when it starts), so `interrupt()`
   * right after `runTurn()` reaches it; `external` aborts it like `abort()`.
   */
  register(turnId: string, external: AbortSignal | undefined): ActiveTurn {
    const controller = new AbortController();
    let markSettled = () => {};
    const settled = new Promise<void>((resolve) => {
      markSettled = resolve;
    });
    const turn: ActiveTurn = {
      turnId,
      controller,
      committing: false,
      finished: false,
      interrupt: null,
      resolveInterrupt: null,
      rejectInterrupt: null,
      settled,
      markSettled: () => {},
    };
    if (external !== undefined) {
      const onAbort = () =>
        controller.abort(turnAbortedError(this.sessionId, turnId, 'aborted', 'its signal fired'));
      if (external.aborted) onAbort();
      else external.addEventListener('abort', onAbort, { once: true });
      turn.markSettled = () => {
        external.removeEventListener('abort', onAbort);
        markSettled();
      };
    } else {
      turn.markSettled = markSettled;
    }
    this.turns.push(turn);
    return turn;
  }

  /** Removes a turn that committed or was discarded. */
  release(turn: ActiveTurn): void {
    const index = this.turns.indexOf(turn);
    if (index >= 0) this.turns.splice(index, 1);
    // Settles an interrupt() whose turn never got to write its boundary (e.g. the session was
    // removed first); a no-op when the boundary path already settled it.
    turn.resolveInterrupt?.({ interrupted: false, turnId: turn.turnId, boundary: null, kept: [] });
    turn.markSettled();
  }

  /**
   * Aborts the current turn and asks for its interrupt boundary; resolves once the boundary is
   * committed (see `commitInterrupt`). Nothing happens when no turn can be aborted any more.
   */
  interrupt(reason: string | undefined, keep: 'boundary' | 'partial'): Promise<InterruptResult> {
    const turn = this.abortable();
    if (turn === undefined) return Promise.resolve(notInterrupted());
    if (turn.interrupt !== null) return turn.interrupt.promise;
    const promise = new Promise<InterruptResult>((resolve, reject) => {
      turn.resolveInterrupt = resolve;
      turn.rejectInterrupt = reject;
    });
    turn.interrupt = { reason, keep, promise };
    turn.controller.abort(turnAbortedError(this.sessionId, turn.turnId, 'interrupted', reason));
    return promise;
  }

  /** Aborts the current turn without a boundary; resolves true once it has been discarded. */
  async abort(): Promise<boolean> {
    const turn = this.abortable();
    if (turn === undefined) return false;
    turn.controller.abort(turnAbortedError(this.sessionId, turn.turnId, 'aborted'));
    await turn.settled;
    return true;
  }

  /** Aborts the current turn because the session is being removed (no boundary, no wait). */
  abortForRemoval(): void {
    const turn = this.abortable();
    turn?.controller.abort(
      turnAbortedError(this.sessionId, turn.turnId, 'aborted', 'session removed'),
    );
  }

  /** The current turn while it can still be aborted (not committing, not already discarded). */
  private abortable(): ActiveTurn | undefined {
    const turn = this.turns[0];
    return turn === undefined || turn.committing || turn.finished ? undefined : turn;
  }
}

/**
 * Commits the interrupt boundary of an interrupted turn (after the turn's work so far with
 * `keep: 'partial'`: the episodes of `working` above `startId`) and settles `interrupt()`'s
 * promise. Runs inside the session's mutation order (the turn's own slot).
 */
export async function commitInterrupt(
  writer: SessionWriter,
  turn: ActiveTurn,
  working: Episodic,
  startId: number,
): Promise<void> {
  const keep = turn.interrupt?.keep ?? 'boundary';
  const reason = turn.interrupt?.reason;
  const boundary: NewEpisode = {
    type: 'boundary',
    meta: { source: 'runtime', turnId: turn.turnId },
    payload: {
      reason: 'interrupt',
      title: INTERRUPT_TITLE,
      content: reason ?? (keep === 'partial' ? INTERRUPT_PARTIAL_CONTENT : INTERRUPT_CONTENT),
    },
  };
  try {
    let committed: Episode[];
    if (keep === 'partial') {
      working.append(boundary);
      await writer.commit(working);
      committed = writer.merge(working, startId);
    } else {
      committed = await writer.appendCommitted([boundary]);
    }
    turn.resolveInterrupt?.({
      interrupted: true,
      turnId: turn.turnId,
      boundary: committed[committed.length - 1] as BoundaryEpisode,
      kept: committed.slice(0, -1),
    });
  } catch (error) {
    turn.rejectInterrupt?.(error);
  }
}
