import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { nowMicros } from '../lib/stats.js';
import {
  disablePeerTelemetry,
  installedVersion,
  sqliteDurability,
  THREAD_ID,
  type ThreadSystem,
  type ThreadSystemKind,
  TURN_ANSWER,
  TURN_USER,
  threadMessage,
} from './thread.js';

/** The database file of a LangGraph thread data set. */
function databasePath(directory: string): string {
  return join(directory, 'langgraph.db');
}

/**
 * What a LangGraph JS user writes for a chat thread: a `StateGraph` over `MessagesAnnotation` with
 * one node that appends the assistant's message, compiled with a `SqliteSaver` checkpointer;
 * `invoke({ messages: [user] }, { configurable: { thread_id } })` per turn and `getState` to read
 * the thread. `answer.text` is what the node answers next.
 */
async function openGraph(directory: string, answer: { text: string }) {
  disablePeerTelemetry();
  const { StateGraph, MessagesAnnotation, START, END } = await import('@langchain/langgraph');
  const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
  const { AIMessage, HumanMessage } = await import('@langchain/core/messages');
  mkdirSync(directory, { recursive: true });
  const saver = SqliteSaver.fromConnString(databasePath(directory));
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('assistant', () => ({ messages: [new AIMessage(answer.text)] }))
    .addEdge(START, 'assistant')
    .addEdge('assistant', END)
    .compile({ checkpointer: saver });
  const config = { configurable: { thread_id: THREAD_ID } };
  return { saver, graph, config, AIMessage, HumanMessage };
}

/** Times every call of `saver[method]` into `totals[method]` (µs). */
function timeMethod(
  saver: object,
  method: 'put' | 'putWrites' | 'getTuple',
  totals: Record<string, number>,
): void {
  const target = saver as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = target[method]?.bind(saver);
  if (original === undefined) return;
  totals[method] = 0;
  target[method] = async (...args: unknown[]) => {
    const before = nowMicros();
    try {
      return await original(...args);
    } finally {
      totals[method] = (totals[method] ?? 0) + nowMicros() - before;
    }
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

export const langGraphThreads: ThreadSystemKind = {
  id: 'langgraph',
  label: 'LangGraph JS + SqliteSaver',
  cacheKey: () =>
    `${installedVersion('@langchain/langgraph')}-${installedVersion('@langchain/langgraph-checkpoint-sqlite')}`,
  async build(directory, messages) {
    const answer = { text: threadMessage(messages - 1).text };
    const { saver, graph, config, AIMessage, HumanMessage } = await openGraph(directory, answer);
    try {
      const input = [];
      for (let index = 0; index < messages - 1; index++) {
        const { role, text } = threadMessage(index);
        input.push(role === 'user' ? new HumanMessage(text) : new AIMessage(text));
      }
      const state = await graph.invoke({ messages: input }, config);
      if (state.messages.length !== messages) {
        throw new Error(`built ${state.messages.length} messages`);
      }
    } finally {
      saver.db.close();
    }
  },
  async open(directory): Promise<ThreadSystem> {
    const answer = { text: TURN_ANSWER };
    const { saver, graph, config, HumanMessage } = await openGraph(directory, answer);
    const totals: Record<string, number> = {};
    for (const method of ['put', 'putWrites', 'getTuple'] as const)
      timeMethod(saver, method, totals);
    const turnShares: number[] = [];
    const turnSaverMs: number[] = [];
    const loadShares: number[] = [];
    const saverTotal = () => (totals.put ?? 0) + (totals.putWrites ?? 0);
    return {
      async appendTurn() {
        const saverBefore = saverTotal();
        const before = nowMicros();
        await graph.invoke({ messages: [new HumanMessage(TURN_USER)] }, config);
        const elapsed = nowMicros() - before;
        const inSaver = saverTotal() - saverBefore;
        turnSaverMs.push(inSaver / 1000);
        turnShares.push(inSaver / elapsed);
      },
      async load() {
        const readBefore = totals.getTuple ?? 0;
        const before = nowMicros();
        const state = await graph.getState(config);
        loadShares.push(((totals.getTuple ?? 0) - readBefore) / (nowMicros() - before));
        return (state.values as { messages: unknown[] }).messages.length;
      },
      notes() {
        const notes: string[] = [];
        if (turnShares.length > 0) {
          notes.push(
            `LangGraph: saver.put + putWrites (serialize and write the checkpoint, whole message list) take ${Math.round(median(turnSaverMs)).toLocaleString('en-US')} ms of a turn at the median, ${(median(turnShares) * 100).toFixed(0)} % of invoke`,
          );
        }
        if (loadShares.length > 0) {
          notes.push(
            `LangGraph: saver.getTuple (read and deserialize the checkpoint) is ${(median(loadShares) * 100).toFixed(0)} % of getState at the median`,
          );
        }
        return notes;
      },
      async close() {
        saver.db.close();
      },
    };
  },
  async durability(directory) {
    const { saver } = await openGraph(directory, { text: TURN_ANSWER });
    try {
      return sqliteDurability(
        saver.db.pragma('journal_mode', { simple: true }),
        saver.db.pragma('synchronous', { simple: true }),
        "SqliteSaver's better-sqlite3 connection (WAL set by SqliteSaver, synchronous left at SQLite's default)",
      );
    } finally {
      saver.db.close();
    }
  },
};
