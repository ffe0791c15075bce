// Child process of the conformance suite's cross-process cases: opens the fs store at `root` and
// runs one conformance task against it, printing the result as one JSON line.
import { type ConformanceChildTask, runConformanceChild } from '@episodic/core/testing/child';
import { createFsStore } from '../../index.js';

const { root, durability, chain, task } = JSON.parse(process.argv[2] as string) as {
  root: string;
  durability: 'none' | 'run' | 'always';
  chain?: boolean | 'strict';
  task: ConformanceChildTask;
};
const store = createFsStore({ root, durability, chain: chain ?? false });
const result = await runConformanceChild({ runs: store.runs, sessions: store.sessions }, task);
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
