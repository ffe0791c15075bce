import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EpisodicError } from '@episodic/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteDatabase } from './open-database.js';
import { createSqliteStore } from './sqlite-store.js';

describe('openSqliteDatabase', () => {
  it('sets the busy timeout, WAL, synchronous, secure_delete and mmap_size', () => {
    const directory = mkdtempSync(join(tmpdir(), 'episodic-open-'));
    const database = new Database(join(directory, 'pragmas.db'));
    openSqliteDatabase(database, { busyTimeoutMs: 1234, synchronous: 'FULL' });
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(database.pragma('busy_timeout', { simple: true })).toBe(1234);
    expect(database.pragma('synchronous', { simple: true })).toBe(2);
    expect(database.pragma('secure_delete', { simple: true })).toBe(1);
    expect(database.pragma('mmap_size', { simple: true })).toBe(0);
    database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('refuses an old SQLite with a clear UNSUPPORTED error', () => {
    const database = new Database(':memory:');
    const real = database.prepare.bind(database);
    database.prepare = ((sql: string) =>
      sql.includes('sqlite_version()')
        ? ({ get: () => ({ version: '3.45.1' }) } as unknown as Database.Statement)
        : real(sql)) as typeof database.prepare;
    try {
      openSqliteDatabase(database);
      expect.unreachable();
    } catch (error) {
      expect(EpisodicError.hasCode(error, 'UNSUPPORTED')).toBe(true);
      expect((error as Error).message).toMatch(/SQLite 3\.45\.1 is too old.*3\.51\.3/);
    }
    database.close();
  });

  it('rejects bad options and unusable paths with domain errors', () => {
    expect(() => openSqliteDatabase(':memory:', { busyTimeoutMs: -1 })).toThrow(/busyTimeoutMs/);
    expect(() => openSqliteDatabase(':memory:', { synchronous: 'OFF' as never })).toThrow(
      /synchronous/,
    );
    try {
      openSqliteDatabase('/nonexistent-directory/x/y.db');
      expect.unreachable();
    } catch (error) {
      expect(EpisodicError.hasCode(error, 'STORAGE_ERROR')).toBe(true);
    }
    expect(() => createSqliteStore({} as never)).toThrow(/exactly one of filename/);
  });

  it('exposes the native handle and leaves a handed-in connection open on close', async () => {
    const database = new Database(':memory:');
    const store = createSqliteStore({ database });
    expect(store.database).toBe(database);
    await store.close();
    expect(database.open).toBe(true);
    database.close();
  });

  it('runs every writing transaction as IMMEDIATE (static check of the sources)', () => {
    const sourceDirectory = fileURLToPath(new URL('.', import.meta.url));
    for (const file of readdirSync(sourceDirectory)) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      const text = readFileSync(`${sourceDirectory}${file}`, 'utf8');
      const names = [...text.matchAll(/const (\w+) = database\.transaction\(/g)].map(
        (match) => match[1] as string,
      );
      for (const name of names) {
        // Writing transactions are *Transaction and IMMEDIATE; read-only ones (one consistent
        // snapshot over several statements) are *Snapshot and DEFERRED, and never write.
        expect(name, `${file}: name transaction functions *Transaction or *Snapshot`).toMatch(
          /(Transaction|Snapshot)$/,
        );
        const mode = name.endsWith('Snapshot') ? '.deferred' : '.immediate';
        const calls = [...text.matchAll(new RegExp(`\\b${name}(\\.\\w+)?\\(`, 'g'))].map(
          (match) => match[1],
        );
        expect(calls.length, `${file}: ${name} is never called`).toBeGreaterThan(0);
        for (const call of calls)
          expect(call, `${file}: ${name} must be called with ${mode}()`).toBe(mode);
      }
      const inline = [
        ...text.matchAll(/database\s*\.transaction\([\s\S]*?\n\s*\}\)\s*\n?\s*\.(\w+)\(/g),
      ].map((match) => match[1]);
      for (const call of inline) expect(call, `${file}: inline transaction`).toBe('immediate');
    }
  });
});
