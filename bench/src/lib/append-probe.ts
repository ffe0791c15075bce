import { closeSync, fdatasyncSync, fstatSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { openSqliteDatabase } from '@episodic/store-sqlite';

/** A raw append of one JSON line: an open file or database and one write per append. */
export interface AppendProbe {
  readonly durability: string;
  readonly description: string;
  append(line: string): void;
  close(): void;
}

/** fs: a kept fd and one `writeSync` of the line, followed by `fdatasyncSync` when `sync`. */
export function fileAppendProbe(path: string, sync: boolean): AppendProbe {
  const fd = openSync(path, 'a');
  return {
    durability: sync ? 'fdatasync per append' : 'none (page cache)',
    description: `kept fd + writeSync(JSON.stringify(record) + "\\n")${sync ? ' + fdatasyncSync' : ''}`,
    append(line) {
      writeSync(fd, line);
      if (sync) fdatasyncSync(fd);
    },
    close: () => closeSync(fd),
  };
}

/**
 * SQLite: a database opened by the store's own `openSqliteDatabase` (WAL, synchronous=NORMAL and
 * the store's other pragmas), one prepared INSERT of the line per IMMEDIATE transaction.
 */
export function sqliteAppendProbe(path: string): AppendProbe {
  const database = openSqliteDatabase(path, { synchronous: 'NORMAL' });
  database.exec(
    'CREATE TABLE IF NOT EXISTS probe_appends (stream TEXT NOT NULL, seq INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (stream, seq))',
  );
  const insert = database.prepare('INSERT INTO probe_appends (stream, seq, json) VALUES (?, ?, ?)');
  let seq = 0;
  const commit = database.transaction((line: string) => {
    insert.run('probe', ++seq, line);
  });
  return {
    durability: 'WAL, synchronous=NORMAL (same pragmas)',
    description:
      'prepared INSERT of JSON.stringify(record) in a BEGIN IMMEDIATE transaction, same pragmas (openSqliteDatabase)',
    append: (line) => commit.immediate(line),
    close: () => database.close(),
  };
}

/**
 * fs, compare-and-append: under a lock file created with `O_EXCL` (as any process appending to
 * the file would), `fstat` checks that the file ends where this writer expects, one `writeSync`
 * of the line, then the lock file is removed. No sync.
 */
export function fileCompareAndAppendProbe(path: string): AppendProbe {
  const fd = openSync(path, 'a');
  const lockPath = `${path}.lock`;
  const token = `${process.pid}\n`;
  let end = fstatSync(fd).size;
  return {
    durability: 'none (page cache)',
    description:
      'kept fd; per append: lock file openSync(wx) + write + close, fstat (the file ends where expected), writeSync(JSON.stringify(record) + "\\n"), unlink the lock',
    append(line) {
      const lock = openSync(lockPath, 'wx');
      writeSync(lock, token);
      closeSync(lock);
      try {
        if (fstatSync(fd).size !== end) throw new Error('probe: the file changed underneath');
        end += writeSync(fd, line);
      } finally {
        unlinkSync(lockPath);
      }
    },
    close: () => closeSync(fd),
  };
}

/**
 * SQLite, compare-and-append: one IMMEDIATE transaction reads the run's record count, checks it
 * is the expected one, inserts the record and updates the count (a database opened by
 * `openSqliteDatabase`, the store's pragmas).
 */
export function sqliteCompareAndAppendProbe(path: string): AppendProbe {
  const database = openSqliteDatabase(path, { synchronous: 'NORMAL' });
  database.exec(
    `CREATE TABLE IF NOT EXISTS probe_runs (run_id TEXT PRIMARY KEY, record_count INTEGER NOT NULL);
     CREATE TABLE IF NOT EXISTS probe_run_records (run_id TEXT NOT NULL, seq INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (run_id, seq));
     INSERT OR IGNORE INTO probe_runs VALUES ('probe', 0);`,
  );
  const count = database.prepare('SELECT record_count FROM probe_runs WHERE run_id = ?').pluck();
  const bump = database.prepare(
    'UPDATE probe_runs SET record_count = record_count + 1 WHERE run_id = ?',
  );
  const insert = database.prepare(
    'INSERT INTO probe_run_records (run_id, seq, json) VALUES (?, ?, ?)',
  );
  let expected = count.get('probe') as number;
  const commit = database.transaction((line: string) => {
    if (count.get('probe') !== expected) throw new Error('probe: the run changed underneath');
    bump.run('probe');
    insert.run('probe', ++expected, line);
  });
  return {
    durability: 'WAL, synchronous=NORMAL (same pragmas)',
    description:
      'one BEGIN IMMEDIATE transaction per append: SELECT the record count, check it, INSERT the record, UPDATE the count (prepared statements, same pragmas)',
    append: (line) => commit.immediate(line),
    close: () => database.close(),
  };
}
