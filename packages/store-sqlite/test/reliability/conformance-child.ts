// Child process of the conformance suite's cross-process cases: opens the SQLite store at
// `filename` and runs one conformance task against it, printing the result as one JSON line.
import { type ConformanceChildTask, runConformanceChild } from '@episodic/core/testing/child';
import { createSqliteStore } from '../../src/sqlite-store.js';

const { filename, task, chain } = JSON.parse(process.argv[2] as string) as {
  filename: string;
  task: ConformanceChildTask;
  chain?: boolean;
};
const store = createSqliteStore({ filename, chain: chain === true });
const result = await runConformanceChild(
  { runs: store.runs, sessions: store.sessions, artifacts: store.artifacts, ledger: store.ledger },
  task,
);
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
