// ArtifactStore.upsert under racing writers: real child processes for stores shared across
// processes (harnesses declaring `crossProcess`), concurrent writers in this process otherwise.
import { expect, it } from 'vitest';
import {
  type ConformanceChildResult,
  type ConformanceChildTask,
  raceArtifactKey,
  raceEpisode,
  runConformanceChild,
} from '../../conformance-child.js';
import type { ContractGroup } from '../contract-group.js';

const KEY = 'pattern:race';
const WRITERS = 4;
const COUNT = 15;

/** Registers the race tests of `ArtifactStore.upsert`. */
export function artifactRaceTests({ open, capabilities }: ContractGroup<'artifacts'>): void {
  it('racing writers upserting one artifact lose no association and duplicate none', async (context) => {
    const { store, harness } = await open(context);
    const { runInChild } = harness;
    // Across processes when the store is shared by processes and the harness can spawn one.
    const crossProcess =
      capabilities.crossProcess === true && store.capabilities.crossProcess && runInChild;
    const run = (task: ConformanceChildTask): Promise<ConformanceChildResult> =>
      crossProcess ? runInChild(task) : runConformanceChild({ artifacts: store }, task);
    const results = await Promise.all(
      Array.from({ length: WRITERS }, (_, writer) =>
        run({ kind: 'artifact-upsert-race', key: KEY, writer, count: COUNT }),
      ),
    );
    const shared = await store.get(KEY);
    expect(shared?.episodes).toHaveLength(WRITERS * COUNT);
    expect(new Set(shared?.episodes).size).toBe(WRITERS * COUNT);
    for (let writer = 0; writer < WRITERS; writer++) {
      const expected = Array.from({ length: COUNT }, (_, n) => raceEpisode(writer, n));
      // Each writer's associations, in the order it made them.
      expect(shared?.episodes.filter((ref) => expected.includes(ref))).toEqual(expected);
      const own = await store.get(raceArtifactKey(KEY, writer));
      expect(own?.episodes).toEqual(expected);
      expect(own?.content).toBe(COUNT - 1);
      expect(results[writer]?.acknowledged).toHaveLength(COUNT);
    }
  });
}
