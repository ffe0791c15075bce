import { EpisodicError } from '@episodic/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { assertSqliteVersion, isSqliteVersionSupported } from './sqlite-version.js';

describe('SQLite version check', () => {
  it('accepts the linked SQLite (better-sqlite3 bundles a recent one)', () => {
    const database = new Database(':memory:');
    const { version } = database.prepare('select sqlite_version() as version').get() as {
      version: string;
    };
    database.close();
    expect(() => assertSqliteVersion(version)).not.toThrow();
  });

  it('compares versions numerically, part by part', () => {
    expect(isSqliteVersionSupported('3.51.3')).toBe(true);
    expect(isSqliteVersionSupported('3.51.10')).toBe(true);
    expect(isSqliteVersionSupported('3.52')).toBe(true);
    expect(isSqliteVersionSupported('3.51.2')).toBe(false);
    expect(isSqliteVersionSupported('3.9.0')).toBe(false);
  });

  it('rejects an old SQLite with UNSUPPORTED and says what to do', () => {
    try {
      assertSqliteVersion('3.45.1');
      expect.unreachable();
    } catch (error) {
      expect(EpisodicError.hasCode(error, 'UNSUPPORTED')).toBe(true);
      expect((error as Error).message).toContain('3.51.3');
    }
  });
});
