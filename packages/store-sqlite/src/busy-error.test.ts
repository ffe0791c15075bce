import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite-store.js';

// The lock is really held: a second connection to the same file opens an IMMEDIATE transaction
// and keeps it open, exactly as another process writing would.
describe('a write that finds the database locked', () => {
  let directory: string;
  let filename: string;
  let holder: Database.Database;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'episodic-busy-'));
    filename = join(directory, 'episodic.db');
    createSqliteStore({ filename }).close();
    holder = new Database(filename);
    holder.exec('BEGIN IMMEDIATE');
  });

  afterEach(() => {
    if (holder.inTransaction) holder.exec('ROLLBACK');
    holder.close();
    rmSync(directory, { recursive: true, force: true });
  });

  function lockedError(error: unknown): EpisodicError {
    expect(EpisodicError.hasCode(error, 'STORAGE_ERROR')).toBe(true);
    return error as EpisodicError;
  }

  it('says another process holds the write lock and how long it waited, not "check free space"', async () => {
    const store = createSqliteStore({ filename, busyTimeoutMs: 50 });
    const error = lockedError(
      await store.ledger
        .append({
          scope: 'team',
          session_id: 's-1',
          agent_id: 'a',
          type: 'ops.decision',
          summary: 'blocked',
        })
        .catch((caught: unknown) => caught),
    );
    expect(error.message).toContain('another process holds its write lock');
    expect(error.message).toContain('waiting 50 ms for it (busy_timeout)');
    expect(error.message).toContain(filename);
    expect(error.message).not.toContain('free space');
    expect(error.details).toMatchObject({ backendCode: 'SQLITE_BUSY', busyTimeoutMs: 50 });
    holder.exec('ROLLBACK');
    // Once the other writer is done, the same store writes normally: nothing was half-done.
    const receipt = await store.ledger.append({
      scope: 'team',
      session_id: 's-1',
      agent_id: 'a',
      type: 'ops.decision',
      summary: 'after',
    });
    expect(receipt.event.position).toBe(1);
    await store.close();
  });

  it('reports the same for session, run and artifact writes', async () => {
    const store = createSqliteStore({ filename, busyTimeoutMs: 20 });
    const sessionError = lockedError(
      await store.sessions
        .save({
          schema_version: 1,
          session_id: '6f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a',
          updated_at: '2026-01-01T00:00:00.000Z',
          messages: [],
        })
        .catch((caught: unknown) => caught),
    );
    expect(sessionError.message).toContain('another process holds its write lock');
    const artifactError = lockedError(
      await store.artifacts
        .setEpisodeMetadata('ledger:e-1', { source: 'crm' })
        .catch((caught: unknown) => caught),
    );
    expect(artifactError.details.busyTimeoutMs).toBe(20);
    await store.close();
  });
});
