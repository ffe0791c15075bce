import { EpisodicError } from '../errors/episodic-error.js';

/** Settles with `work`, or rejects with the signal's reason as soon as the signal fires. */
export function raceAbort<T>(work: () => T | Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    // A model call that ignores the signal keeps running; its late result is ignored, and its
    // late rejection is handled here, so it never surfaces as an unhandled rejection.
    Promise.resolve()
      .then(work)
      .then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
  });
}

/** Throws the signal's reason when it has fired. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

/** The `ABORTED` error a turn's controller aborts with. */
export function turnAbortedError(
  sessionId: string,
  turnId: string,
  how: 'interrupted' | 'aborted',
  reason?: string,
): EpisodicError {
  return new EpisodicError({
    code: 'ABORTED',
    message: `Turn ${turnId} of session ${sessionId} was ${how}${reason ? ` (${reason})` : ''} before it finished: its episodes were discarded and the committed log is unchanged${how === 'interrupted' ? ' except for the interrupt boundary' : ''}. Run a new turn to continue.`,
    details: { sessionId, turnId, interrupted: how === 'interrupted' },
  });
}
