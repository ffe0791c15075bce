import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  appendArgs,
  episodicBinary as episodic,
  episodicBinaryJson as episodicJson,
  expectError,
  temporaryHome,
} from './helpers.js';

describe('episodes append while another process holds the write lock', () => {
  it('says another process holds the write lock and how long it waited, not "check free space"', () => {
    const home = temporaryHome();
    expect(episodic(appendArgs(home, {}, ['--quiet'])).status).toBe(0);
    // This test process is the "other process": it holds an IMMEDIATE transaction on the file
    // while the built binary tries to append (and waits its 5 s busy timeout).
    const holder = new Database(join(home, 'episodic.db'));
    holder.exec('BEGIN IMMEDIATE');
    try {
      const result = episodicJson(appendArgs(home, { summary: 'blocked' }));
      const message = expectError(result, 1, 'STORAGE_ERROR');
      expect(message).toContain('another process holds its write lock');
      expect(message).toContain('5000 ms for it (busy_timeout)');
      expect(message).toContain('Run the command again once the other writer has finished');
      expect(message).not.toContain('free space');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(episodic(appendArgs(home, { summary: 'after' }, ['--quiet'])).status).toBe(0);
  });
});
