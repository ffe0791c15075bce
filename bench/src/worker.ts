// One row module (or one data set) per process: a row never inherits another row's heap, JIT
// state or open files. The parent passes options in the environment and reads the rows back
// over the IPC channel.
import { type DatasetName, ensureDataset } from './data/datasets.js';
import { createContext } from './lib/context.js';
import { MODULES } from './rows/index.js';

async function main(): Promise<void> {
  const context = createContext(process.env.EPISODIC_BENCH_QUICK === '1');
  const [first, second] = process.argv.slice(2);
  if (first === '--prepare') {
    await ensureDataset(context, second as DatasetName);
    process.send?.({ prepared: second });
    return;
  }
  const module = MODULES.find((candidate) => candidate.id === first);
  if (module === undefined) throw new Error(`no row module ${first}`);
  const rows = await module.run(context);
  process.send?.({ rows });
}

main().then(
  () => process.disconnect?.(),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
    process.disconnect?.();
  },
);
