// A second (third, …) process on one LangGraph thread: opens the home (files, SQLite or
// PostgreSQL), then appends writes and checkpoints through its own EpisodicSaver. Prints `done <writes>` at the end, `error …` on failure.
import type { RunStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createPostgresStore } from '@episodic/store-postgres';
import { schemaOfUrl } from '@episodic/store-postgres/url';
import { createSqliteStore } from '@episodic/store-sqlite';
import { type CheckpointMetadata, emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { EpisodicSaver } from '../episodic-saver.js';

const [backend, location, threadId, writer, countText, sharedCheckpointId] = process.argv.slice(2);
const count = Number(countText);

async function open(): Promise<{ runs: RunStore; close(): Promise<void> }> {
  if (backend === 'files') {
    const store = createFsStore({ root: location as string, durability: 'none' });
    return { runs: store.runs, close: () => store.close() };
  }
  if (backend === 'postgres') {
    const { url, schema } = schemaOfUrl(location as string);
    const store = await createPostgresStore({ connectionString: url, schema });
    return { runs: store.runs, close: () => store.close() };
  }
  const store = createSqliteStore({ filename: location as string });
  return { runs: store.runs, close: () => store.close() };
}

const store = await open();
const saver = new EpisodicSaver({ runs: store.runs });
const channel = `log_${writer}`;
try {
  let parent = {
    configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: sharedCheckpointId },
  };
  const values: string[] = [];
  for (let index = 0; index < count; index++) {
    const entry = `${writer}:${index}`;
    await saver.putWrites(
      {
        configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: sharedCheckpointId },
      },
      [['shared', entry]],
      `task-${writer}-${index}`,
    );
    if (index % 5 === 4) {
      values.push(entry);
      const checkpoint = {
        ...emptyCheckpoint(),
        id: uuid6(-1),
        channel_values: { [channel]: [...values] },
        channel_versions: { [channel]: values.length },
      };
      parent = (await saver.put(
        parent,
        checkpoint,
        { source: 'loop', step: index, parents: {}, writer } as CheckpointMetadata,
        { [channel]: values.length },
      )) as typeof parent;
    }
  }
  process.stdout.write(`done ${count}\n`);
} catch (error) {
  process.stdout.write(`error ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await store.close();
}
