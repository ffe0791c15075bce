// A child process for the reliability tests: it opens the PostgreSQL store with a pool of its own
// (as another machine would), drives it, and reports each acknowledged operation as one line on
// stdout. Bundled by `build-worker.ts` before the tests run.
import { existsSync } from 'node:fs';
import {
  createSession,
  createTaskLifecycle,
  EpisodicError,
  loadSession,
  type ModelCall,
  type Session,
  type SessionStore,
} from '@episodic/core';
import { ledgerWorkerSteps } from '../../../../test-support/ledger-worker-steps.js';
import { commitForever, type SessionApi } from '../../../../test-support/session-commit-steps.js';
import { createPostgresStore } from '../../src/postgres-store.js';

const [mode = '', url = '', schema = '', ...rest] = process.argv.slice(2);
// Sessions fold often (every few deltas), so folds race commits and kills land in folds too.
const foldEvery = mode === 'session-commit' ? Number(rest[1] ?? 3) : 8;
const store = await createPostgresStore({
  connectionString: url,
  schema,
  poolSize: 2,
  // Tests wait for a killed worker's connections to end by this name (see worker-setup.ts).
  applicationName: `reliability-${process.pid}`,
  fold: { currentUpToBytes: 0, deltas: foldEvery, minBytes: 0 },
});
const ledger = store.ledger;
const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const base = {
  scope: 'reliability',
  agent_id: `worker-${process.pid}`,
  type: 'ops.decision' as const,
};
const codeOf = (error: unknown) => (EpisodicError.isInstance(error) ? error.code : 'NOT_EPISODIC');

const steps = ledgerWorkerSteps(ledger, say, codeOf);
const waitForGo = (goFile: string) => steps.waitForGo(goFile);

/**
 * One "machine" of the many-machines test: rounds of a compare-and-append to a shared ledger
 * session, a step on a shared task, and a turn committed to a shared session (a delta; folds race
 * the commits), each retried after
 * a CONFLICT with what the conflict says or a fresh read; then one attempt to complete the task.
 * Every acknowledged write is printed; any error other than CONFLICT is printed as `error`.
 */
async function machine(
  writer: string,
  rounds: number,
  taskId: string,
  sessionId: string,
  goFile: string,
): Promise<void> {
  const lifecycle = createTaskLifecycle({ runs: store.runs, artifacts: store.artifacts });
  const conflicts = { ledger: 0, step: 0, session: 0 };
  let position = 0;
  let step = 0;
  let session: Session | null = null;
  const echo: ModelCall = async () => ({
    output: [{ type: 'message', role: 'assistant', content: `noted by machine ${writer}` }],
  });
  await waitForGo(goFile);
  const attempt = async (
    kind: keyof typeof conflicts,
    work: () => Promise<void>,
    reread: (error: EpisodicError) => Promise<void>,
  ) => {
    for (;;) {
      try {
        await work();
        return;
      } catch (error) {
        if (!EpisodicError.hasCode(error, 'CONFLICT')) throw error;
        conflicts[kind]++;
        await reread(error);
      }
    }
  };
  for (let round = 0; round < rounds; round++) {
    const eventId = `m${writer}-${round}`;
    await attempt(
      'ledger',
      async () => {
        const receipt = await ledger.append(
          {
            ...base,
            session_id: 'machines',
            summary: `machine ${writer} round ${round}`,
            event_id: eventId,
          },
          { expectedPosition: position },
        );
        position = receipt.event.position;
        say(`ledger ${eventId} ${position}`);
      },
      async (error) => {
        position = Number(error.details.currentPosition);
      },
    );
    await attempt(
      'step',
      async () => {
        const stored = await lifecycle.addStep({
          episode_id: taskId,
          step_number: step + 1,
          tool: `machine-${writer}`,
          action: `round ${round}`,
          parameters: { writer, round },
        });
        step = stored.step_number;
        say(`step ${writer}-${round} ${step}`);
      },
      async () => {
        const task = await lifecycle.getTask({ episode_id: taskId });
        step = Math.max(step, ...task.steps.map((stored) => stored.step_number));
      },
    );
    await attempt(
      'session',
      async () => {
        session ??= await loadSession(store.sessions, sessionId);
        const { revision } = await session.runTurn(`${writer}-${round}`, echo);
        say(`session ${writer}-${round} ${revision}`);
      },
      async () => {
        session = await loadSession(store.sessions, sessionId);
      },
    );
  }
  // Every machine completes only once all have finished their steps (the parent says when), so
  // the completions race each other, not the steps.
  say('rounds-done');
  while (!existsSync(`${goFile}.complete`)) await sleep(2);
  try {
    await lifecycle.completeTask({
      episode_id: taskId,
      outcome_type: 'success',
      verdict: `completed by machine ${writer}`,
    });
    say(`completed ${writer}`);
  } catch (error) {
    say(
      EpisodicError.hasCode(error, 'CONFLICT')
        ? `completion-conflict ${writer}`
        : `error complete ${codeOf(error)} ${(error as Error).message}`,
    );
  }
  say(`conflicts ${JSON.stringify(conflicts)}`);
}

/**
 * Appends `e<n>` events until `stopFile` exists, retrying an append that failed with
 * STORAGE_ERROR (the server is restarting) with the same event id until it is acknowledged.
 */
async function restartWriter(prefix: string, stopFile: string): Promise<void> {
  say('ready');
  for (let index = 0; !existsSync(stopFile); index++) {
    const eventId = `${prefix}-${index}`;
    for (;;) {
      try {
        const receipt = await ledger.append({
          ...base,
          session_id: 'restart',
          summary: `event ${index}`,
          event_id: eventId,
        });
        say(`ack ${eventId} ${receipt.duplicate ? 'duplicate' : 'new'}`);
        break;
      } catch (error) {
        if (!EpisodicError.hasCode(error, 'STORAGE_ERROR')) throw error;
        say(`storage-error ${JSON.stringify((error as Error).message)}`);
        await sleep(100);
      }
    }
  }
}

const main: Record<string, () => Promise<void>> = {
  writers: () => steps.writers(Number(rest[0]), rest[1] ?? '0'),
  race: () => steps.race(Number(rest[0]), rest[1] ?? ''),
  crash: () => steps.appendThenCrash(rest[0] ?? 'retry-1', true),
  kill: () => steps.killLoop(Number(rest[0] ?? 20), rest[1] ?? 'k'),
  machine: () =>
    machine(rest[0] ?? '0', Number(rest[1]), rest[2] ?? '', rest[3] ?? '', rest[4] ?? ''),
  restart: () => restartWriter(rest[0] ?? 'e', rest[1] ?? ''),
  // Turns on one session until killed, `ack <revision>` after each commit (session kill -9 test).
  'session-commit': () =>
    commitForever(
      { createSession, loadSession } as unknown as SessionApi<SessionStore>,
      store.sessions,
      rest[0] ?? '',
      say,
    ),
  // Opening the store migrated its schema (the concurrent-migration test).
  open: async () => {
    say('opened');
  },
};
const run = main[mode];
if (run === undefined) throw new Error(`unknown mode ${mode}`);
try {
  await run();
} catch (error) {
  say(`error fatal ${codeOf(error)} ${(error as Error).message}`);
  process.exitCode = 1;
}
await store.close();
