// A second writer for the GC / redact rows: it opens the same database and, until it reads "stop"
// on stdin, commits a tiny IMMEDIATE transaction every 2 ms, timing how long each one waits for
// the write lock. It polls the lock every 0.2 ms itself (busy timeout 0) instead of relying on
// SQLite's busy handler, whose sleeps of 1, 2, 5, 10… ms would blur the measurement.
// With --checkpoint it also runs a PASSIVE checkpoint each tick: the connection under test then
// runs with automatic checkpoints off, so its timed transactions hold only the transaction (SQLite
// would otherwise copy the WAL inside their commit call, after releasing the lock).
// On "stop" it prints { count, p50, p99, max } (milliseconds) as one JSON line.
import Database from 'better-sqlite3';

const path = process.argv[2];
if (path === undefined) {
  process.stderr.write('usage: lock-writer <database>\n');
  process.exit(2);
}
const database = new Database(path, { timeout: 0 });
database.pragma('journal_mode = WAL');
// Checkpoints are left to the connection under test (the GC row tells its own apart by them).
database.pragma('wal_autocheckpoint = 0');
database.exec('CREATE TABLE IF NOT EXISTS bench_lock_probe (id INTEGER PRIMARY KEY, at REAL)');
const insert = database.prepare('INSERT INTO bench_lock_probe (at) VALUES (?)');
const write = database.transaction(() => insert.run(Date.now()));
const waits: number[] = [];
let stopped = false;

const pause = new Int32Array(new SharedArrayBuffer(4));

function writeWhenFree(): void {
  for (;;) {
    try {
      write.immediate();
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      Atomics.wait(pause, 0, 0, 0.2);
    }
  }
}

const checkpoints = process.argv.includes('--checkpoint');

const tick = () => {
  if (stopped) return;
  const before = performance.now();
  writeWhenFree();
  waits.push(performance.now() - before);
  if (checkpoints) database.pragma('wal_checkpoint(PASSIVE)');
  setTimeout(tick, 2);
};

process.stdin.setEncoding('utf8');
process.stdin.on('data', (text: string) => {
  if (!text.includes('stop')) return;
  stopped = true;
  const sorted = waits.slice().sort((left, right) => left - right);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  process.stdout.write(
    `${JSON.stringify({ count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 })}\n`,
  );
  database.close();
  process.exit(0);
});

writeWhenFree();
process.stdout.write('ready\n');
setTimeout(tick, 2);
