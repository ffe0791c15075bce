// Child process for the run-file reliability tests: appends records to one run until told count
// is reached (or until it is killed), printing `ack <index>` after each append resolves.
import * as fs from 'node:fs';
import { createInterface } from 'node:readline';
import { createFsStore } from '../../index.js';

interface Arguments {
  root: string;
  runId: string;
  writer: number;
  count?: number;
  minSize: number;
  maxSize: number;
  durability: 'none' | 'run' | 'always';
  waitForGo?: boolean;
  /** Test hook: at this index, write half of the record and SIGKILL this process (a torn write). */
  tearAtIndex?: number;
  /** Put this text (a secret, for the redaction tests) in a `note` field of every record. */
  note?: string;
  /** Open the store with this `chain` option (chained run files). */
  chain?: boolean | 'strict';
}

const argument = JSON.parse(process.argv[2] as string) as Arguments;
const store = createFsStore({
  root: argument.root,
  durability: argument.durability,
  ...(argument.chain === undefined ? {} : { chain: argument.chain }),
});

function size(): number {
  const { minSize, maxSize } = argument;
  return Math.round(
    Math.exp(Math.log(minSize) + Math.random() * (Math.log(maxSize) - Math.log(minSize))),
  );
}

if (argument.waitForGo === true) {
  process.stdout.write('ready\n');
  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
  lines.close();
}

const pad = String.fromCharCode(97 + argument.writer);
for (let index = 0; argument.count === undefined || index < argument.count; index++) {
  const length = size();
  const record = {
    type: 'x.test.write',
    run_id: argument.runId,
    ts: new Date().toISOString(),
    writer: argument.writer,
    index,
    length,
    pad: pad.repeat(length),
    ...(argument.note === undefined ? {} : { note: argument.note }),
  };
  if (argument.tearAtIndex === index) {
    const path = (await store.locateRun(argument.runId)) as string;
    const line = `${JSON.stringify(record)}\n`;
    fs.appendFileSync(path, line.slice(0, Math.max(1, Math.floor(line.length / 2))));
    process.kill(process.pid, 'SIGKILL');
  }
  await store.runs.append(argument.runId, [record]);
  process.stdout.write(`ack ${index}\n`);
}
await store.close();
process.stdout.write('done\n');
