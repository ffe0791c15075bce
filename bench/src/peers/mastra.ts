import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  disablePeerTelemetry,
  installedVersion,
  RESOURCE_ID,
  sqliteDurability,
  THREAD_ID,
  type ThreadSystem,
  type ThreadSystemKind,
  TURN_ANSWER,
  TURN_USER,
  threadMessage,
} from './thread.js';

/** Messages per `saveMessages` call while building a thread. */
const BUILD_BATCH = 1000;

const T0 = Date.UTC(2026, 1, 3, 12);

/**
 * What a Mastra user writes for conversation memory: `new Memory({ storage: new LibSQLStore({
 * url: 'file:…' }) })`, messages saved to a thread with `saveMessages`, the thread read back with
 * `recall({ threadId, perPage: false })` (every message, as the docs show for a full history).
 */
async function openMemory(directory: string) {
  disablePeerTelemetry();
  const { Memory } = await import('@mastra/memory');
  const { LibSQLStore } = await import('@mastra/libsql');
  mkdirSync(directory, { recursive: true });
  const storage = new LibSQLStore({ id: 'bench', url: `file:${join(directory, 'mastra.db')}` });
  const memory = new Memory({ storage });
  return { storage, memory };
}

type MastraMessage = Parameters<
  Awaited<ReturnType<typeof openMemory>>['memory']['saveMessages']
>[0]['messages'][number];

function message(
  id: string,
  role: 'user' | 'assistant',
  text: string,
  createdAt: Date,
): MastraMessage {
  return {
    id,
    role,
    createdAt,
    threadId: THREAD_ID,
    resourceId: RESOURCE_ID,
    content: { format: 2, parts: [{ type: 'text', text }] },
  };
}

export const mastraThreads: ThreadSystemKind = {
  id: 'mastra',
  label: 'Mastra Memory + LibSQLStore',
  cacheKey: () =>
    `${installedVersion('@mastra/memory')}-${installedVersion('@mastra/libsql')}-${installedVersion('@mastra/core')}`,
  async build(directory, messages) {
    const { storage, memory } = await openMemory(directory);
    try {
      await memory.createThread({ threadId: THREAD_ID, resourceId: RESOURCE_ID, title: 'bench' });
      for (let first = 0; first < messages; first += BUILD_BATCH) {
        const batch: MastraMessage[] = [];
        for (let index = first; index < Math.min(messages, first + BUILD_BATCH); index++) {
          const { role, text } = threadMessage(index);
          batch.push(message(`m-${index}`, role, text, new Date(T0 + index * 1000)));
        }
        await memory.saveMessages({ messages: batch });
      }
    } finally {
      await storage.close();
    }
  },
  async open(directory): Promise<ThreadSystem> {
    const { storage, memory } = await openMemory(directory);
    let turn = 0;
    // Mastra's memory has no model turn of its own: storing a turn's messages is its turn.
    const saveTurn = async () => {
      turn += 1;
      const now = Date.now();
      await memory.saveMessages({
        messages: [
          message(`turn-${turn}-user`, 'user', TURN_USER, new Date(now)),
          message(`turn-${turn}-assistant`, 'assistant', TURN_ANSWER, new Date(now + 1)),
        ],
      });
    };
    return {
      appendTurn: saveTurn,
      saveTurn,
      async load() {
        const { messages } = await memory.recall({ threadId: THREAD_ID, perPage: false });
        return messages.length;
      },
      notes: () => [],
      async close() {
        await storage.close();
      },
    };
  },
  async durability(directory) {
    const { storage, memory } = await openMemory(directory);
    try {
      // Any call waits for the store's set-up, which applies its pragmas.
      await memory.getThreadById({ threadId: THREAD_ID });
      // The store's connection is private; its pragmas are read through it, as the store set them.
      const { client } = storage as unknown as {
        client: { execute(sql: string): Promise<{ rows: Array<Record<string, unknown>> }> };
      };
      const journal = await client.execute('PRAGMA journal_mode');
      const synchronous = await client.execute('PRAGMA synchronous');
      return sqliteDurability(
        journal.rows[0]?.journal_mode,
        synchronous.rows[0]?.synchronous,
        "LibSQLStore's libSQL connection, as the store configures it",
      );
    } finally {
      await storage.close();
    }
  },
};
