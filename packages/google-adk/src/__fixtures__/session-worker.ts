// Another process on one Episodic home (files, SQLite or PostgreSQL), through its own
// EpisodicSessionService. `append`: appends <count> events of its own to the session (id
// `<writer>:<index>`, state delta `w<writer>`, `app:w<writer>` and `user:last`) and, after every
// tenth, appends the previous one again with new text (ADK replaces an event appended again with
// its id); prints `done <count>`. `load`: prints the session as JSON, with whether every event
// carries ADK's event mark.

import type { RunStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createPostgresStore } from '@episodic/store-postgres';
import { schemaOfUrl } from '@episodic/store-postgres/url';
import { createSqliteStore } from '@episodic/store-sqlite';
import { createEvent, createEventActions, type Session } from '@google/adk';
import { EpisodicSessionService } from '../episodic-session-service.js';

const [mode, backend, location, appName, userId, sessionId, writer, countText] =
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
const service = new EpisodicSessionService({ runs: opened.runs });
const key = {
  appName: appName as string,
  userId: userId as string,
  sessionId: sessionId as string,
};
try {
  const session = (await service.getSession(key)) as Session;
  if (mode === 'load') {
    const marked = session.events.every(
      (event) =>
        (event as unknown as Record<symbol, unknown>)[Symbol.for('google.adk.event')] === true,
    );
    process.stdout.write(`${JSON.stringify({ session, marked })}\n`);
  } else {
    const said = (index: number, text: string) =>
      createEvent({
        id: `${writer}:${index}`,
        author: `writer-${writer}`,
        content: { role: 'model', parts: [{ text }] },
        actions: createEventActions({
          stateDelta: {
            [`w${writer}`]: index,
            [`app:w${writer}`]: index,
            'user:last': `${writer}:${index}`,
          },
        }),
      });
    for (let index = 0; index < count; index++) {
      await service.appendEvent({ session, event: said(index, `event ${index}`) });
      if (index % 10 === 9) {
        await service.appendEvent({ session, event: said(index - 1, `again ${index - 1}`) });
        await service.appendEvent({ session, event: said(index, `event ${index}`) });
      }
    }
    process.stdout.write(`done ${count}\n`);
  }
} catch (error) {
  process.stdout.write(`error ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await opened.close();
}
