// Another process on one Episodic home (files, SQLite or PostgreSQL), through its own
// EpisodicSessionStore. `append`: appends <count> entries of its own (uuid `<writer>:<index>`), each
// batch with an entry every writer also appends (uuid `shared:<index>`) and, every tenth, one
// without uuid; prints `done <count>`. `load`: prints the session's entries as JSON.
import type { RunStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createPostgresStore } from '@episodic/store-postgres';
import { schemaOfUrl } from '@episodic/store-postgres/url';
import { createSqliteStore } from '@episodic/store-sqlite';
import { EpisodicSessionStore } from '../episodic-session-store.js';

const [mode, backend, location, projectKey, sessionId, writer, countText] = process.argv.slice(2);
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

const opened = await open();
const store = new EpisodicSessionStore({ runs: opened.runs });
const key = { projectKey: projectKey as string, sessionId: sessionId as string };
try {
  if (mode === 'load') {
    process.stdout.write(`${JSON.stringify(await store.load(key))}\n`);
  } else {
    for (let index = 0; index < count; index++) {
      const batch = [
        { type: 'user', uuid: `${writer}:${index}`, writer, index },
        { type: 'assistant', uuid: `shared:${index}`, index },
      ];
      if (index % 10 === 9) batch.push({ type: 'tag', writer, index } as never);
      await store.append(key, batch);
    }
    process.stdout.write(`done ${count}\n`);
  }
} catch (error) {
  process.stdout.write(`error ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await opened.close();
}
