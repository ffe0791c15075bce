// Session summaries carry seed 001's last_user_message, exactly as Codelia's own session store
// lists it for the same snapshots (test-support/seed-data/codelia, written by Codelia's code).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionState } from '@episodic/core';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite-store.js';

const SEED_DATA = fileURLToPath(
  new URL('../../../test-support/seed-data/codelia/', import.meta.url),
);

describe('sessions list on SQLite', () => {
  it("reports Codelia's last_user_message for each session", async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    const directory = join(SEED_DATA, 'sessions', 'state');
    for (const file of readdirSync(directory)) {
      await store.sessions.save(
        JSON.parse(readFileSync(join(directory, file), 'utf8')) as SessionState,
      );
    }
    const expected = JSON.parse(readFileSync(join(SEED_DATA, 'summaries.json'), 'utf8')) as Array<{
      session_id: string;
      message_count: number;
      last_user_message?: string;
    }>;
    const listed = await store.sessions.list();
    expect(listed).toHaveLength(expected.length);
    for (const summary of expected) {
      const mine = listed.find((entry) => entry.sessionId === summary.session_id);
      expect(mine, summary.session_id).toMatchObject({ messageCount: summary.message_count });
      expect(mine?.lastUserMessage, summary.session_id).toBe(summary.last_user_message);
    }
    await store.close();
  });
});
