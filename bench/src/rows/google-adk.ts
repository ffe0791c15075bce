import { join } from 'node:path';
import { EpisodicSessionService } from '@episodic/google-adk';
import { createSqliteStore } from '@episodic/store-sqlite';
import {
  type BaseSessionService,
  createEvent,
  createEventActions,
  DatabaseSessionService,
  type Event,
  InMemorySessionService,
} from '@google/adk';
import { BetterSqliteDriver } from '@mikro-orm/better-sqlite';
import { alternateSides, compareRow, type Round } from '../lib/compare.js';
import { type BenchContext, formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { median, nowMicros } from '../lib/stats.js';

const APP = 'bench';
const USER = 'user';

/** An event as an agent turn writes one (~300 bytes): text, a session key, now and then a user: key. */
function event(index: number): Event {
  const author = index % 2 === 0 ? 'user' : 'agent';
  return createEvent({
    author,
    invocationId: `inv-${Math.floor(index / 2)}`,
    content: {
      role: author === 'user' ? 'user' : 'model',
      parts: [
        {
          text: `Step ${index}: the agent read the next file and noted what it found there, with the line numbers.`,
        },
      ],
    },
    actions: createEventActions({
      stateDelta: index % 10 === 9 ? { step: index, 'user:steps': index } : { step: index },
    }),
  });
}

/**
 * One side: a service to append with, and one to load with: a fresh service for Episodic (which
 * keeps what it read; a fresh one reads the store cold), the same one for ADK's database service
 * (it reads the database on every call).
 */
interface Side {
  readonly writer: BaseSessionService;
  reader(): BaseSessionService;
}

/** Appends `count` events one call each, then loads the session whole through a fresh service. */
async function session(
  side: Side,
  sessionId: string,
  count: number,
): Promise<{ appendMicros: number[]; loadMicros: number }> {
  const stored = await side.writer.createSession({ appName: APP, userId: USER, sessionId });
  const appendMicros: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = nowMicros();
    await side.writer.appendEvent({ session: stored, event: event(index) });
    appendMicros.push(nowMicros() - start);
  }
  const reader = side.reader();
  const start = nowMicros();
  const loaded = await reader.getSession({ appName: APP, userId: USER, sessionId });
  const loadMicros = nowMicros() - start;
  if (loaded?.events.length !== count) {
    throw new Error(`loaded ${loaded?.events.length} of ${count} events`);
  }
  return { appendMicros, loadMicros };
}

async function closeDatabase(service: DatabaseSessionService): Promise<void> {
  await (service as unknown as { orm?: { close(): Promise<void> } }).orm?.close();
}

export const googleAdkModule: RowModule = {
  id: 'google-adk',
  rows: ['google-adk.append', 'google-adk.load'],
  needs: [],
  async run(context: BenchContext): Promise<RowResult[]> {
    const scratch = scratchDirectory(context, 'google-adk');
    const count = context.quick ? 200 : 1000;
    const { rounds, warmup } = context.sizes;
    let sessions = 0;
    let database: DatabaseSessionService | undefined;
    try {
      const home = createSqliteStore({ filename: join(scratch.path, 'episodic.db') });
      // ADK's reference database service, on SQLite through MikroORM (its own database file).
      database = new DatabaseSessionService({
        dbName: join(scratch.path, 'adk.db'),
        driver: BetterSqliteDriver,
      });
      await database.init();
      const reference = database;
      const memory = new InMemorySessionService();
      const sides: Record<string, Side> = {
        episodic: {
          writer: new EpisodicSessionService({ runs: home.runs }),
          reader: () => new EpisodicSessionService({ runs: home.runs }),
        },
        database: { writer: reference, reader: () => reference },
        // One process's memory: a fresh service would hold nothing, so it loads from itself.
        memory: { writer: memory, reader: () => memory },
      };
      const loads: Record<string, Round[]> = { episodic: [], database: [], memory: [] };
      const measure = (name: string) => async (): Promise<Round> => {
        const result = await session(sides[name] as Side, `bench-${sessions++}`, count);
        (loads[name] as Round[]).push({ value: result.loadMicros / 1000 });
        return { value: median(result.appendMicros), latencies: result.appendMicros };
      };
      const measured = await alternateSides(
        { episodic: measure('episodic'), database: measure('database'), memory: measure('memory') },
        rounds,
        warmup,
      );
      await home.close();
      const last = (name: string) =>
        (loads[name] as Round[]).slice(-(measured[name] as Round[]).length);
      const memoryAppend = median((measured.memory as Round[]).map((round) => round.value));
      const memoryLoad = median(last('memory').map((round) => round.value));
      const spec = {
        area: 'peers, same workload',
        durability:
          "Episodic: SQLite WAL, synchronous=NORMAL; ADK's DatabaseSessionService: SQLite through MikroORM (better-sqlite3, its defaults: rollback journal, a transaction per event)",
        mode: 'WAL/NORMAL vs MikroORM SQLite',
        dataset: `a session of ${formatCount(count)} events (~300 bytes each, a session state key each, a user: key every tenth), appended one per call`,
        product:
          'EpisodicSessionService on @episodic/store-sqlite (compare-and-append; user: keys to the user state run)',
        probe:
          "ADK's DatabaseSessionService on SQLite (@mikro-orm/better-sqlite); ADK's InMemorySessionService noted",
      };
      return [
        compareRow(
          {
            ...spec,
            id: 'google-adk.append',
            title: `appendEvent of one event, sessions of ${formatCount(count)} events`,
            metric: { name: 'append time', unit: 'µs', better: 'lower' },
            latencyUnit: 'µs',
            target:
              "none: a durable, multi-process store beside ADK's database service and its in-memory one",
          },
          { product: measured.episodic as Round[], probe: measured.database as Round[] },
          () => [],
          [`InMemorySessionService (no persistence): median append ${memoryAppend.toFixed(1)} µs`],
        ),
        compareRow(
          {
            ...spec,
            id: 'google-adk.load',
            title: `getSession of a session of ${formatCount(count)} events, read from the store (Episodic: a fresh service)`,
            metric: { name: 'load time', unit: 'ms', better: 'lower' },
            target: "none: shown beside ADK's database service and its in-memory one",
          },
          { product: last('episodic'), probe: last('database') },
          () => [],
          [
            `InMemorySessionService (the same service, its memory): median getSession ${memoryLoad.toFixed(2)} ms`,
          ],
        ),
      ];
    } finally {
      if (database !== undefined) await closeDatabase(database);
      scratch.dispose();
    }
  },
};
