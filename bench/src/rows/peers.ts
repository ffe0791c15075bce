import { join } from 'node:path';
import { ensurePeerThread, PEER_SYSTEMS } from '../data/peer-threads.js';
import { copyStore } from '../data/sessions.js';
import { alternateSides, check, compareRow, type Measure, type Round } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatBytes, formatCount } from '../lib/context.js';
import type { CheckResult, RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { LatencyRecorder, median, nowMicros } from '../lib/stats.js';
import type { Durability, ThreadSystem, ThreadSystemKind } from '../peers/thread.js';

type Operation = 'turn' | 'save' | 'load';

const EPISODIC = ['episodic-fs', 'episodic-sqlite'];
const PEERS = ['langgraph', 'mastra'];
const OPERATIONS: readonly Operation[] = ['turn', 'save', 'load'];

/**
 * The Episodic sides of each operation. Stored turns also run on the fs store unsynced
 * (durability `'none'`): Mastra's store does not sync a write either, so that row compares the
 * work at one durability, beside the default (synced) fs row.
 */
const EPISODIC_OF: Record<Operation, readonly string[]> = {
  turn: EPISODIC,
  save: ['episodic-fs', 'episodic-fs-unsynced', 'episodic-sqlite'],
  load: EPISODIC,
};

/**
 * The peers each operation is compared with, like for like: a whole turn with LangGraph (its
 * graph runs a node and checkpoints the thread), storing a turn's messages with Mastra (its
 * memory stores messages; it runs no turn), loading a thread with both.
 */
const PEERS_OF: Record<Operation, readonly string[]> = {
  turn: ['langgraph'],
  save: ['mastra'],
  load: PEERS,
};

/** What each operation is, in a row's title. */
const OPERATION_TITLES: Record<Operation, string> = {
  turn: 'run one turn (user message → assistant message) on',
  save: "store one turn's messages (user + assistant) in",
  load: 'load',
};

/** A single operation slower than this is not run at a size (projected from the smaller sizes). */
const OPERATION_BUDGET_MS = 120_000;

/** Operations per side per round: fewer on long threads, where one can take seconds. */
function perRound(operation: Operation, messages: number): number {
  if (operation === 'turn') return messages <= 1000 ? 10 : messages <= 10_000 ? 5 : 2;
  if (operation === 'save') return 10;
  return messages <= 1000 ? 3 : 1;
}

/** `1k`, `10k`, `100k` */
function sizeLabel(messages: number): string {
  return messages >= 1000 ? `${messages / 1000}k` : String(messages);
}

function rowId(operation: Operation, messages: number, episodic: string, peer: string): string {
  return `peers.${operation}.${sizeLabel(messages)}.${episodic.replace('episodic-', '')}-vs-${peer}`;
}

/** `count` operations: the round's median time in ms, and each one's time in ms. */
async function timeOperations(count: number, operation: () => Promise<unknown>): Promise<Round> {
  const latencies = new LatencyRecorder(count);
  for (let index = 0; index < count; index++) {
    const before = nowMicros();
    await operation();
    latencies.add((nowMicros() - before) / 1000);
  }
  const values = latencies.toArray();
  return { value: median(values), latencies: values };
}

/** What was measured for one system at one operation and size. */
interface Measured {
  rounds?: Round[];
  /** Why the side was not measured (it cannot run here, or would take too long). */
  skipped?: string;
}

/**
 * The time one operation would take at `messages`, from the two largest sizes measured so far
 * (the growth exponent between them; linear growth when only one size was measured).
 */
function projectedMs(history: ReadonlyArray<[number, number]>, messages: number): number | null {
  const last = history[history.length - 1];
  if (last === undefined) return null;
  const before = history[history.length - 2];
  const exponent =
    before === undefined ? 1 : Math.log(last[1] / before[1]) / Math.log(last[0] / before[0]);
  return last[1] * (messages / last[0]) ** Math.max(1, exponent);
}

function describeHistory(history: ReadonlyArray<[number, number]>): string {
  return history
    .map(([size, ms]) => `${formatCount(size)} messages: ${(ms / 1000).toFixed(2)} s`)
    .join(', ');
}

interface Side {
  kind: ThreadSystemKind;
  /** Why it cannot run here, once known. */
  unavailable?: string;
  durability?: Durability;
  /** [messages, median ms] per operation, for projections. */
  history: Record<Operation, Array<[number, number]>>;
  notes: string[];
}

function errorText(error: unknown): string {
  return error instanceof Error
    ? (error.message.split('\n')[0]?.slice(0, 300) ?? '')
    : String(error);
}

export const peersModule: RowModule = {
  id: 'peers',
  rows: OPERATIONS.flatMap((operation) =>
    [1000, 10_000, 100_000].flatMap((messages) =>
      EPISODIC_OF[operation].flatMap((episodic) =>
        PEERS_OF[operation].map((peer) => rowId(operation, messages, episodic, peer)),
      ),
    ),
  ),
  needs: ['peer-threads'],
  async run(context: BenchContext): Promise<RowResult[]> {
    const { rounds, warmup } = context.sizes;
    const sides: Side[] = PEER_SYSTEMS.map((kind) => ({
      kind,
      history: { turn: [], save: [], load: [] },
      notes: [],
    }));
    const rows: RowResult[] = [];
    const previousRatio = new Map<string, number>();
    for (const messages of context.sizes.peerThreads) {
      const scratch = scratchDirectory(context, `peers-${messages}`);
      const open = new Map<string, ThreadSystem>();
      const sizes = new Map<string, number>();
      try {
        for (const side of sides) {
          if (side.unavailable !== undefined) continue;
          try {
            const dataset = await ensurePeerThread(context, side.kind, messages);
            const directory = join(scratch.path, side.kind.id);
            copyStore(dataset.store, directory);
            side.durability ??= await side.kind.durability(directory);
            open.set(side.kind.id, await side.kind.open(directory));
            sizes.set(side.kind.id, dataset.bytes);
          } catch (error) {
            side.unavailable = `${side.kind.label} cannot run here: ${errorText(error)}`;
            context.log(side.unavailable);
          }
        }
        const measured: Record<Operation, Record<string, Measured>> = {
          turn: {},
          save: {},
          load: {},
        };
        // Loads first, while every thread has exactly `messages` messages.
        for (const operation of ['load', 'turn', 'save'] as const) {
          const count = perRound(operation, messages);
          const measures: Record<string, Measure> = {};
          const taking = [...EPISODIC_OF[operation], ...PEERS_OF[operation]];
          for (const side of sides.filter((candidate) => taking.includes(candidate.kind.id))) {
            const system = open.get(side.kind.id);
            if (system === undefined) {
              measured[operation][side.kind.id] = { skipped: side.unavailable ?? 'not opened' };
              continue;
            }
            const projected = projectedMs(side.history[operation], messages);
            if (projected !== null && projected > OPERATION_BUDGET_MS) {
              measured[operation][side.kind.id] = {
                skipped: `${side.kind.label}: one ${operation} of ${formatCount(messages)} messages was not run: it would take about ${Math.round(projected / 60_000)} min (projected from ${describeHistory(side.history[operation])}; the bench runs no operation projected over ${OPERATION_BUDGET_MS / 1000} s)`,
              };
              continue;
            }
            const save = system.saveTurn?.bind(system);
            if (operation === 'save' && save === undefined) {
              measured[operation][side.kind.id] = {
                skipped: `${side.kind.label} has no call that stores messages alone`,
              };
              continue;
            }
            measures[side.kind.id] =
              operation === 'load'
                ? () =>
                    timeOperations(count, async () => {
                      const loaded = await system.load();
                      if (loaded < messages) throw new Error(`${side.kind.id} loaded ${loaded}`);
                    })
                : operation === 'save'
                  ? () => timeOperations(count, () => (save as () => Promise<void>)())
                  : () => timeOperations(count, () => system.appendTurn());
          }
          context.log(`${operation}s on ${formatCount(messages)}-message threads`);
          const results = await alternateSides(measures, rounds, warmup);
          for (const [id, sideRounds] of Object.entries(results)) {
            measured[operation][id] = { rounds: sideRounds };
            const side = sides.find((candidate) => candidate.kind.id === id) as Side;
            side.history[operation].push([
              messages,
              median(sideRounds.map((round) => round.value)),
            ]);
          }
        }
        for (const side of sides) {
          const system = open.get(side.kind.id);
          if (system !== undefined) {
            side.notes.push(...system.notes().map((note) => `${sizeLabel(messages)}: ${note}`));
          }
        }
        for (const operation of OPERATIONS) {
          for (const episodicId of EPISODIC_OF[operation]) {
            for (const peerId of PEERS_OF[operation]) {
              const id = rowId(operation, messages, episodicId, peerId);
              const episodic = sides.find((side) => side.kind.id === episodicId) as Side;
              const peer = sides.find((side) => side.kind.id === peerId) as Side;
              const productRounds = measured[operation][episodicId]?.rounds;
              const peerRounds = measured[operation][peerId]?.rounds;
              const spec = {
                id,
                area: 'peer comparison',
                title: `${OPERATION_TITLES[operation]} a thread of ${formatCount(messages)} messages: ${episodic.kind.label} vs ${peer.kind.label}`,
                durability:
                  operation === 'load'
                    ? 'read, page cache'
                    : `${episodic.kind.label}: ${episodic.durability?.text ?? 'n/a'}; ${peer.kind.label}: ${peer.durability?.text ?? 'n/a'}`,
                mode:
                  operation === 'load'
                    ? 'read, page cache'
                    : `${episodic.durability?.mode ?? '?'} vs ${peer.durability?.mode ?? '?'}`,
                dataset: `a ${formatCount(messages)}-message thread (~180 characters each) per system, written through its own API; ${perRound(operation, messages)} ${operation}${perRound(operation, messages) === 1 ? '' : 's'} per round${sizes.has(episodicId) && sizes.has(peerId) ? `; on disk ${formatBytes(sizes.get(episodicId) as number)} vs ${formatBytes(sizes.get(peerId) as number)}` : ''}`,
                product:
                  operation === 'turn'
                    ? `${episodic.kind.label}: session.runTurn(user text, instant model → one assistant message)`
                    : operation === 'save'
                      ? `${episodic.kind.label}: commitEpisodes(session, [user message, assistant message])`
                      : `${episodic.kind.label}: loadSession(store.sessions, id)`,
                probe:
                  peerId === 'langgraph'
                    ? operation === 'turn'
                      ? 'LangGraph: graph.invoke({ messages: [user] }, { configurable: { thread_id } }), one node appending the assistant message, SqliteSaver checkpointer'
                      : 'LangGraph: graph.getState({ configurable: { thread_id } }) (the thread messages)'
                    : operation === 'load'
                      ? 'Mastra: memory.recall({ threadId, perPage: false }) (LibSQLStore)'
                      : 'Mastra: memory.saveMessages({ messages: [user, assistant] }) (LibSQLStore)',
                metric: {
                  name: `median time per ${operation}`,
                  unit: 'ms',
                  better: 'lower' as const,
                },
                latencyUnit: 'ms',
                target: 'Episodic ahead (time ratio < 1), gap widening with N',
              };
              if (productRounds === undefined || peerRounds === undefined) {
                const reason =
                  measured[operation][episodicId]?.skipped ??
                  measured[operation][peerId]?.skipped ??
                  'not measured';
                rows.push({ ...spec, status: 'unavailable', checks: [], notes: [reason] });
                continue;
              }
              const key = `${operation}.${episodicId}.${peerId}`;
              const row = compareRow(
                spec,
                { product: productRounds, probe: peerRounds },
                (result) => {
                  const ratio = result.ratio?.median ?? Number.NaN;
                  const checks: CheckResult[] = [
                    check('Episodic/peer time < 1', ratio, '<=', 0.999),
                  ];
                  const previous = previousRatio.get(key);
                  if (previous !== undefined) {
                    checks.push(
                      check(
                        `gap widens (ratio ≤ ${previous.toPrecision(2)} of the previous size)`,
                        ratio,
                        '<=',
                        previous,
                      ),
                    );
                  }
                  previousRatio.set(key, ratio);
                  return checks;
                },
                [...episodic.notes, ...peer.notes].filter((note) =>
                  note.startsWith(`${sizeLabel(messages)}: `),
                ),
              );
              rows.push(row);
            }
          }
        }
      } finally {
        for (const system of open.values()) await system.close();
        scratch.dispose();
      }
    }
    return rows;
  },
};
