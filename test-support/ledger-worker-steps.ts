// What the ledger reliability children and checks of store-sqlite and store-postgres share: the
// writers, the kill loop, the expected-position race, the append-then-crash of the idempotent
// retry (`ledger-race-check.ts` judges the race). Structural types: no core import, no vitest.
import { existsSync } from 'node:fs';

/** The event fields every worker append shares. */
interface WorkerEvent {
  scope: string;
  agent_id: string;
  type: 'ops.decision';
  session_id: string;
  summary: string;
  event_id: string;
  ts_ms?: number;
}

/** The part of a ledger the steps use. */
interface WorkerLedger {
  append(
    event: WorkerEvent,
    options?: { expectedPosition?: number },
  ): Promise<{ event: { created_at: string } }>;
  appendBatch(events: WorkerEvent[]): Promise<unknown>;
}

/**
 * The event the idempotent-retry test appends twice: once in a child that is killed right after
 * the commit, once again by the test with the same id (`agentPid`: the child's pid).
 */
export function retriedEvent(eventId: string, agentPid: number | undefined): WorkerEvent {
  return {
    scope: 'reliability',
    session_id: 'retry',
    agent_id: `worker-${agentPid}`,
    type: 'ops.decision',
    event_id: eventId,
    summary: 'retried event',
    ts_ms: 1_767_225_600_000,
  };
}

/** The steps a worker process runs, printing each acknowledged operation as one line. */
export function ledgerWorkerSteps(
  ledger: WorkerLedger,
  say: (line: string) => void,
  codeOf: (error: unknown) => string,
) {
  const base = { scope: 'reliability', agent_id: `worker-${process.pid}`, type: 'ops.decision' };
  const sleep = (milliseconds: number) =>
    new Promise((resolve) => setTimeout(resolve, milliseconds));
  return {
    /** Prints `ready`, then waits for `goFile` to exist. */
    async waitForGo(goFile: string): Promise<void> {
      say('ready');
      while (!existsSync(goFile)) await sleep(2);
    },
    /** `count` appends to the shared session; `done <errors>` at the end. */
    async writers(count: number, writer: string): Promise<void> {
      let errors = 0;
      for (let index = 0; index < count; index++) {
        try {
          await ledger.append({
            ...base,
            type: 'ops.decision',
            session_id: 'shared',
            summary: `${writer} #${index}`,
            event_id: `w${writer}-${index}`,
          });
        } catch (error) {
          errors++;
          say(`error ${(error as Error).message}`);
        }
      }
      say(`done ${errors}`);
    },
    /** Batches of `size` appended until the process is killed; `ack <batch>` after each. */
    async killLoop(size: number, prefix: string): Promise<never> {
      say('ready');
      for (let batch = 0; ; batch++) {
        await ledger.appendBatch(
          Array.from({ length: size }, (_, index) => ({
            ...base,
            type: 'ops.decision' as const,
            session_id: 'killed',
            event_id: `${prefix}-b${batch}-${index}`,
            summary: `batch ${batch} event ${index} ${'x'.repeat(200)}`,
          })),
        );
        say(`ack ${batch}`);
      }
    },
    /** `count` rounds of a compare-and-append at position 0: `win`, `conflict` or `error` each. */
    async race(count: number, goFile: string): Promise<void> {
      await this.waitForGo(goFile);
      for (let round = 0; round < count; round++) {
        try {
          await ledger.append(
            {
              ...base,
              type: 'ops.decision',
              session_id: `race-${round}`,
              summary: `round ${round}`,
              event_id: `r${round}-${process.pid}`,
            },
            { expectedPosition: 0 },
          );
          say(`win ${round}`);
        } catch (error) {
          const code = codeOf(error);
          say(
            code === 'CONFLICT'
              ? `conflict ${round}`
              : `error ${round} ${code} ${(error as Error).message}`,
          );
        }
      }
    },
    /** Appends `retriedEvent(eventId)`, prints `committed <created_at>`, then maybe crashes. */
    async appendThenCrash(eventId: string, crash: boolean): Promise<void> {
      const receipt = await ledger.append(retriedEvent(eventId, process.pid));
      say(`committed ${receipt.event.created_at}`);
      // Named crash point: after the commit, before the caller could see an acknowledgement.
      if (crash) process.kill(process.pid, 'SIGKILL');
    },
  };
}
