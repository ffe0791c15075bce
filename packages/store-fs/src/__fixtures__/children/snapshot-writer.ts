// Child process for the snapshot reliability test: saves ever newer snapshots of one session until
// killed, printing `ack <revision>` after each save resolves.
import { createFsStore } from '../../index.js';

interface Arguments {
  root: string;
  sessionId: string;
  sizes: number[];
}

const argument = JSON.parse(process.argv[2] as string) as Arguments;
const store = createFsStore({ root: argument.root, durability: 'run' });
const loaded = await store.sessions.load(argument.sessionId);
let revision = loaded?.revision ?? 0;
let exists = loaded !== null;
for (;;) {
  const next = revision + 1;
  const length = argument.sizes[next % argument.sizes.length] as number;
  await store.sessions.save(
    {
      schema_version: 1,
      session_id: argument.sessionId,
      updated_at: new Date().toISOString(),
      invoke_seq: next,
      messages: [{ role: 'user', content: 'x'.repeat(length) }],
      revision: next,
    },
    { expectedRevision: exists ? revision : null },
  );
  exists = true;
  revision = next;
  process.stdout.write(`ack ${next}\n`);
}
