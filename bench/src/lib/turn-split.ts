import type { ModelCall, Session } from '@episodic/core';
import { median, nowMicros } from './stats.js';

/** `0.412 ms`, `3.20 ms`, `41.7 ms`, `6,403 ms` */
function milliseconds(value: number): string {
  if (value >= 100) return `${Math.round(value).toLocaleString('en-US')} ms`;
  return `${value.toPrecision(3)} ms`;
}

/**
 * Times `session.runTurn` with an instant model and splits each turn at the model call: before it
 * (input validation, the working fork, the model input assembled from the history) and after it
 * (the answer's validation, the merge and the commit). Public API only: the model records when
 * it is called.
 */
export class TurnSplit {
  private calledAt = 0;
  private readonly before: number[] = [];
  private readonly after: number[] = [];
  private readonly model: ModelCall;

  constructor(answer: string) {
    this.model = () => {
      this.calledAt = nowMicros();
      return { output: [{ type: 'message', role: 'assistant', content: answer }] };
    };
  }

  /** One turn of `user` text; resolves with its result once committed. */
  async turn(session: Session, user: string): ReturnType<Session['runTurn']> {
    const start = nowMicros();
    const result = await session.runTurn(user, this.model);
    const end = nowMicros();
    this.before.push((this.calledAt - start) / 1000);
    this.after.push((end - this.calledAt) / 1000);
    return result;
  }

  /** Forgets the turns timed so far (e.g. after a warm-up). */
  reset(): void {
    this.before.length = 0;
    this.after.length = 0;
  }

  /** `label: 0.41 ms before the model call …, 3.20 ms after it …` (medians), or null. */
  note(label: string): string | null {
    if (this.before.length === 0) return null;
    return `${label}: per turn at the median, ${milliseconds(median(this.before))} before the model call (validation, fork, model input assembled from the history) and ${milliseconds(median(this.after))} after it (merge and commit), over ${this.before.length} turns`;
  }
}
