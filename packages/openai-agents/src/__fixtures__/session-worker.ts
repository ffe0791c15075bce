// Another process on one Episodic home (files, SQLite or PostgreSQL), through its own
// EpisodicSession. `write`: <count> times adds an item of its own ({ writer, index }); every
// fifth time pops the last item (whoever added it); every tenth applies the transaction
// `shared:<index>` that every writer applies (one item); prints the popped items as JSON.
// The writers start together: each marks itself ready in <barrier> and waits for <writers> marks.
// `load`: prints the session's items, v8-serialized as base64 (bytes stay Uint8Arrays).
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serialize } from 'node:v8';
import type { RunStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createPostgresStore } from '@episodic/store-postgres';
import { schemaOfUrl } from '@episodic/store-postgres/url';
import { createSqliteStore } from '@episodic/store-sqlite';
import type { AgentInputItem } from '@openai/agents-core';
import { EpisodicSession } from '../episodic-session.js';

const [mode, backend, location, sessionId, writer, countText, barrier, writersText] =
  process.argv.slice(2);
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
const session = new EpisodicSession({ runs: opened.runs, sessionId: sessionId as string });
try {
  if (mode === 'load') {
    process.stdout.write(`${serialize(await session.getItems()).toString('base64')}\n`);
  } else {
    await session.getItems();
    writeFileSync(join(barrier as string, `ready-${writer}`), '');
    while (readdirSync(barrier as string).length < Number(writersText)) await sleep(2);
    const popped: AgentInputItem[] = [];
    for (let index = 0; index < count; index++) {
      await session.addItems([{ role: 'user', content: `${writer}:${index}` }]);
      if (index % 5 === 4) {
        const item = await session.popItem();
        if (item !== undefined) popped.push(item);
      }
      if (index % 10 === 9) {
        await session.applyHistoryTransaction({
          operationId: `shared:${index}`,
          transaction: {
            type: 'append_items',
            items: [{ role: 'user', content: `shared:${index}` }],
          },
        });
      }
    }
    process.stdout.write(`${JSON.stringify(popped)}\n`);
  }
} catch (error) {
  process.stdout.write(`error ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await opened.close();
}
