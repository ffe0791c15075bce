// Child process for the optimistic-concurrency test: load, then save with the loaded revision as
// expectedRevision, retrying on CONFLICT, until `iterations` saves succeeded.
import { EpisodicError } from '@episodic/core';
import { createFsStore } from '../../index.js';

interface Arguments {
  root: string;
  sessionId: string;
  iterations: number;
  writer: number;
}

const argument = JSON.parse(process.argv[2] as string) as Arguments;
const store = createFsStore({ root: argument.root, durability: 'run' });
let successes = 0;
let conflicts = 0;
while (successes < argument.iterations) {
  const loaded = await store.sessions.load(argument.sessionId);
  const revision = loaded?.revision ?? 0;
  const writes = ((loaded?.meta?.writes as number[] | undefined) ?? []).slice();
  writes[argument.writer] = (writes[argument.writer] ?? 0) + 1;
  try {
    await store.sessions.save(
      {
        schema_version: 1,
        session_id: argument.sessionId,
        updated_at: new Date().toISOString(),
        messages: [],
        meta: { writes },
        revision: revision + 1,
      },
      { expectedRevision: loaded === null ? null : revision },
    );
    successes++;
  } catch (error) {
    if (!EpisodicError.hasCode(error, 'CONFLICT')) throw error;
    conflicts++;
  }
}
process.stdout.write(`${JSON.stringify({ successes, conflicts })}\n`);
