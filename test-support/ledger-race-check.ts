// The verdict of the expected-position race of store-sqlite and store-postgres (the racers run
// `ledgerWorkerSteps(...).race`).
import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { Worker } from './worker-process.js';

/**
 * Starts two racers (ready, then `goFile` written), waits for them, and checks that each of
 * `races` rounds had exactly one winner and one CONFLICT.
 */
export async function expectOneWinnerPerRace(
  racers: Worker[],
  goFile: string,
  races: number,
): Promise<void> {
  await Promise.all(racers.map((racer) => racer.waitFor((line) => line === 'ready')));
  writeFileSync(goFile, 'go');
  const exits = await Promise.all(racers.map((racer) => racer.exited));
  for (const exit of exits) expect(exit.code, exit.stderr).toBe(0);
  const outcomes = new Map<number, string[]>();
  for (const racer of racers) {
    for (const line of racer.lines) {
      const [outcome, round] = line.split(' ');
      if (outcome === 'ready') continue;
      const list = outcomes.get(Number(round)) ?? [];
      list.push(outcome as string);
      outcomes.set(Number(round), list);
    }
  }
  expect(outcomes.size).toBe(races);
  for (const [round, list] of outcomes)
    expect(list.sort(), `round ${round}`).toEqual(['conflict', 'win']);
}
