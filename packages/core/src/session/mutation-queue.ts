/**
 * Runs tasks one at a time in call order: a promise chain. A failing task does not stop the
 * queue; its caller gets the rejection and the next task runs.
 */
export class MutationQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
