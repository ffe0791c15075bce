// Guarantee ("many machines, simulated here"): 4 processes, each with its own connection pool,
// race compare-and-appends to one ledger session, steps on one task and turns committed to one
// session (deltas, folded every 8 by whoever commits), then race to complete the task, against one server: every acknowledged write is
// stored exactly once (0 lost, 0 duplicated), ledger positions and step numbers increase in
// storage order, the session's revision counts every acknowledged commit and revision r holds
// the turn acknowledged as r, exactly one completion
// is acknowledged, and every lost race was a CONFLICT (any other error fails the test).
// Source: issue 16 ("Many machines, simulated here"), QUALITY.md (reliability table, "several
// processes on one task … and on one database").
import { writeFileSync } from 'node:fs';
import { createTaskLifecycle } from '@episodic/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../../../../test-support/worker-process.js';
import { createPostgresStore, type PostgresStore } from '../../src/postgres-store.js';
import { FULL, useWorkers } from './worker-setup.js';

const MACHINES = 4;
const ROUNDS = FULL ? 250 : 40;
const SESSION = '0d1c2b3a-4f5e-4a6b-8c7d-9e0f1a2b3c4d';
const workers = useWorkers('machines');
const directory = temporaryDirectory();
let store: PostgresStore;
beforeAll(async () => {
  store = await createPostgresStore({ connectionString: workers.url(), schema: workers.schema });
});
afterAll(async () => {
  await store.close();
  directory.remove();
});

describe('many machines on one PostgreSQL server', () => {
  it(`${MACHINES} processes × ${ROUNDS} rounds of ledger, task-step and session races, then competing completions`, async () => {
    const lifecycle = createTaskLifecycle({ runs: store.runs, artifacts: store.artifacts });
    const task = await lifecycle.createTask({
      task_description: 'Many machines record one task',
      domain: 'reliability',
      task_type: 'testing',
    });
    await store.sessions.save({
      schema_version: 2,
      session_id: SESSION,
      updated_at: '2026-02-03T12:00:00.000Z',
      episodes: [],
      messages: [],
      revision: 0,
    });
    const goFile = `${directory.path}/go`;
    const machines = Array.from({ length: MACHINES }, (_, index) =>
      workers.worker('machine', [String(index), String(ROUNDS), task.id, SESSION, goFile]),
    );
    await Promise.all(machines.map((machine) => machine.waitFor((line) => line === 'ready')));
    writeFileSync(goFile, 'go');
    await Promise.all(
      machines.map((machine) =>
        machine
          .waitFor((line) => line === 'rounds-done')
          .catch((error) => {
            throw new Error(`${error.message}; last lines: ${machine.lines.slice(-3).join(' / ')}`);
          }),
      ),
    );
    writeFileSync(`${goFile}.complete`, 'go');
    const exits = await Promise.all(machines.map((machine) => machine.exited));
    for (const exit of exits) expect(exit.code, exit.stderr).toBe(0);
    const lines = machines.flatMap((machine) => machine.lines);
    expect(lines.filter((line) => line.startsWith('error'))).toEqual([]);

    // The ledger: every acknowledged event once, at the position its receipt named.
    const acknowledged = lines.filter((line) => line.startsWith('ledger '));
    expect(acknowledged).toHaveLength(MACHINES * ROUNDS);
    const replay: Array<{ event_id: string; position: number }> = [];
    for (let afterId: string | undefined; ; ) {
      const page = await store.ledger.replay('machines', {
        scope: 'reliability',
        limit: 500,
        ...(afterId === undefined ? {} : { afterId }),
      });
      replay.push(...page.events);
      if (page.next_after_id === null) break;
      afterId = page.next_after_id;
    }
    expect(replay.map((event) => event.position).sort((a, b) => a - b)).toEqual(
      Array.from({ length: MACHINES * ROUNDS }, (_, index) => index + 1),
    );
    const stored = new Map(replay.map((event) => [event.event_id, event.position]));
    for (const line of acknowledged) {
      const [, eventId, position] = line.split(' ');
      expect(stored.get(eventId as string), eventId).toBe(Number(position));
    }

    // The task: every acknowledged step once, numbers increasing in storage order, one completion.
    const steps = lines.filter((line) => line.startsWith('step '));
    expect(steps).toHaveLength(MACHINES * ROUNDS);
    const read = await lifecycle.getTask({ episode_id: task.id });
    expect(read.steps).toHaveLength(MACHINES * ROUNDS);
    const numbers = read.steps.map((step) => step.step_number);
    expect(
      numbers.every((number, index) => index === 0 || number > (numbers[index - 1] as number)),
    ).toBe(true);
    const storedSteps = new Set(
      read.steps.map(
        (step) =>
          `${step.tool.slice('machine-'.length)}-${step.action.slice('round '.length)} ${step.step_number}`,
      ),
    );
    for (const line of steps) expect(storedSteps.has(line.slice('step '.length)), line).toBe(true);
    expect(lines.filter((line) => line.startsWith('completed '))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith('completion-conflict '))).toHaveLength(
      MACHINES - 1,
    );
    expect(read.outcome).not.toBeNull();
    expect(read.end_time).not.toBeNull();

    // The session: one turn per acknowledged commit, each once, the r-th turn acknowledged as
    // revision r, and the revision counts them.
    const commits = lines.filter((line) => line.startsWith('session '));
    expect(commits).toHaveLength(MACHINES * ROUNDS);
    const session = await store.sessions.load(SESSION);
    expect(session?.revision).toBe(MACHINES * ROUNDS);
    const inputs = (session?.episodes ?? [])
      .filter((episode) => (episode as { meta: { source: string } }).meta.source === 'user')
      .map(
        (episode) => (episode as { payload: { item: { content: string } } }).payload.item.content,
      );
    expect(inputs).toHaveLength(MACHINES * ROUNDS);
    for (const line of commits) {
      const [, turn, revision] = line.split(' ');
      expect(inputs[Number(revision) - 1], line).toBe(turn);
    }
    const folds = (await store.sessions.read(SESSION))?.baseRevision ?? 0;
    expect(folds).toBeGreaterThan(0);

    const conflicts = lines
      .filter((line) => line.startsWith('conflicts '))
      .map((line) => JSON.parse(line.slice('conflicts '.length)));
    const total = (kind: string) => conflicts.reduce((sum, entry) => sum + entry[kind], 0);
    console.log(
      `[figures] postgres many machines: ${MACHINES} processes × ${ROUNDS} rounds, ${MACHINES * ROUNDS} ledger appends, steps and session commits each, 0 lost, 0 duplicated; CONFLICTs retried: ledger ${total('ledger')}, steps ${total('step')}, session ${total('session')}; 1 of ${MACHINES} completions acknowledged`,
    );
  }, 600_000);
});
