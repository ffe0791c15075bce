// Child process of the conformance suite's cross-process cases: opens the PostgreSQL store (its
// own pool, as another machine would) and runs one conformance task, printing the result as JSON.
import { type ConformanceChildTask, runConformanceChild } from '@episodic/core/testing/child';
import { createPostgresStore } from '../../src/postgres-store.js';

const { url, schema, task } = JSON.parse(process.argv[2] as string) as {
  url: string;
  schema: string;
  task: ConformanceChildTask;
};
const store = await createPostgresStore({ connectionString: url, schema });
const result = await runConformanceChild(
  { runs: store.runs, sessions: store.sessions, artifacts: store.artifacts },
  task,
);
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
