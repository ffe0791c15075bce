/**
 * How many times, in this process, a session load read a session again because its base was
 * replaced while it was read (see `READ_ATTEMPTS` in session-store.ts). Not public: the
 * conformance child reports it, so the suite can check that a backend which reads a base and its
 * deltas in one snapshot never needs a second read.
 */
let rereads = 0;

/** Counts one more read of a session whose first read lost the race to a fold or a save. */
export function countSessionReread(): void {
  rereads += 1;
}

/** The reads counted so far in this process. */
export function sessionRereads(): number {
  return rereads;
}
