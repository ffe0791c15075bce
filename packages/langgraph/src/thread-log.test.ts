import { createMemoryRunStore, EpisodicError, type RunRecord, type RunStore } from '@episodic/core';
import { describe, expect, it } from 'vitest';
import { threadRunId } from './episodic-saver.js';
import { ThreadLog, type ThreadRecords } from './thread-log.js';

const RUN = threadRunId('t');
const now = () => new Date('2026-11-24T10:00:00Z');
const note = (text: string) =>
  ({ type: 'x.test.note', run_id: RUN, ts: now().toISOString(), text }) as unknown as RunRecord;
const texts = (records: readonly RunRecord[]) =>
  records.map((record) => (record as unknown as { text: string }).text);

/** Two logs on one thread's run: `ours` appends while `theirs` keeps getting there first. */
function race(runs: RunStore, attempts: number) {
  const ours = new ThreadLog(runs, 't', RUN, now, attempts);
  const theirs = new ThreadLog(runs, 't', RUN, now);
  return { ours, theirs };
}

describe('ThreadLog.append', () => {
  it('reads what another writer appended first, hands it over and lands after it', async () => {
    const runs = createMemoryRunStore();
    const { ours, theirs } = race(runs, 10);
    await theirs.append(
      () => [note('first')],
      () => {},
    );
    let lost = 0;
    const seen: ThreadRecords[] = [];
    const stored = await ours.append(
      async () => {
        // Another writer lands twice before this append gets its turn.
        if (lost < 2) {
          lost++;
          await theirs.append(
            () => [note(`theirs ${lost}`)],
            () => {},
          );
        }
        return [note('ours')];
      },
      (found) => seen.push(found),
    );
    expect(texts(stored)).toEqual(['ours']);
    expect(seen.map((found) => texts(found.records))).toEqual([
      ['first', 'theirs 1'],
      ['theirs 2'],
    ]);
    expect(texts((await runs.read(RUN)).records.slice(1))).toEqual([
      'first',
      'theirs 1',
      'theirs 2',
      'ours',
    ]);
  });

  it('gives up with CONFLICT after its attempts, storing nothing of its write', async () => {
    const runs = createMemoryRunStore();
    const { ours, theirs } = race(runs, 4);
    await theirs.append(
      () => [note('first')],
      () => {},
    );
    let builds = 0;
    const error = await ours
      .append(
        async () => {
          builds++;
          await theirs.append(
            () => [note(`theirs ${builds}`)],
            () => {},
          );
          return [note('ours')];
        },
        () => {},
      )
      .catch((caught: unknown) => caught);
    expect(EpisodicError.hasCode(error, 'CONFLICT')).toBe(true);
    expect((error as EpisodicError).message).toContain('4 appends each lost the race');
    expect((error as EpisodicError).details).toMatchObject({ threadId: 't', attempts: 4 });
    expect(builds).toBe(4);
    expect(texts((await runs.read(RUN)).records.slice(1))).not.toContain('ours');
  });
});
