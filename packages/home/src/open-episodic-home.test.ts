import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import { BOUND_SCOPE_MAX_LENGTH, resolveScope } from './bind-scope.js';
import { inspectDatabase } from './inspect-database.js';
import { listScopes } from './list-scopes.js';
import { openEpisodicHome } from './open-episodic-home.js';

const directories: string[] = [];
function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-home-'));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const event = (scope: string, session: string, tsMs: number) => ({
  scope,
  session_id: session,
  agent_id: 'planner',
  type: 'ops.decision' as const,
  summary: `decided at ${tsMs}`,
  ts_ms: tsMs,
});

describe('openEpisodicHome', () => {
  it('binds the scope it is given, else EPISODIC_SCOPE, else default, normalized', async () => {
    const home = join(temporaryDirectory(), 'home');
    const given = await openEpisodicHome({ home, scope: 'My Project', env: {} });
    expect(given.scope).toBe('my-project');
    await given.stores.close();
    const fromEnv = await openEpisodicHome({ home, env: { EPISODIC_SCOPE: 'Team A' } });
    expect(fromEnv.scope).toBe('team-a');
    await fromEnv.stores.close();
    const fallback = await openEpisodicHome({ home, env: { EPISODIC_SCOPE: '' } });
    expect(fallback.scope).toBe('default');
    await fallback.stores.close();
  });

  it('refuses a scope it cannot bind before opening anything: no home is created', async () => {
    const home = join(temporaryDirectory(), 'home');
    for (const scope of ['global', 'x'.repeat(BOUND_SCOPE_MAX_LENGTH + 1), '  ']) {
      const failure = await openEpisodicHome({ home, scope, env: {} }).catch((error) => error);
      expect(EpisodicError.isInstance(failure)).toBe(true);
      expect((failure as EpisodicError).code).toBe('VALIDATION_ERROR');
    }
    await expect(openEpisodicHome({ home, env: { EPISODIC_SCOPE: 'global' } })).rejects.toThrow(
      /EPISODIC_SCOPE "global"/,
    );
    expect(existsSync(home)).toBe(false);
  });

  it('names the option in the message', () => {
    expect(() => resolveScope('global', {}, '--scope')).toThrow(/Invalid --scope "global"/);
  });
});

describe('listScopes', () => {
  it('lists every scope of the ledger with its counts, by name', async () => {
    const home = join(temporaryDirectory(), 'home');
    const { stores } = await openEpisodicHome({ home, env: {} });
    try {
      expect(await listScopes(stores)).toEqual([]);
      await stores.ledger.append(event('zeta', 's1', 3_000));
      await stores.ledger.append(event('alpha', 's1', 2_000));
      await stores.ledger.append(event('alpha', 's2', 1_000));
      await stores.ledger.append(event('alpha', 's2', 5_000));
      expect(await listScopes(stores)).toEqual([
        { scope: 'alpha', events: 3, sessions: 2, first_ts_ms: 1_000, last_ts_ms: 5_000 },
        { scope: 'zeta', events: 1, sessions: 1, first_ts_ms: 3_000, last_ts_ms: 3_000 },
      ]);
    } finally {
      await stores.close();
    }
  });
});

describe('inspectDatabase', () => {
  it('finds nothing wrong in a healthy home, and counts what it holds', async () => {
    const home = join(temporaryDirectory(), 'home');
    const { stores } = await openEpisodicHome({ home, env: {} });
    try {
      await stores.ledger.append(event('alpha', 's1', 1_000));
      const runs: Array<[number, number]> = [];
      const health = await inspectDatabase(stores, (done, total) => runs.push([done, total]));
      expect(health).toEqual({ integrity: 'ok', events: 1, sessions: 0, runs: 0, problems: [] });
      expect(runs).toEqual([]);
    } finally {
      await stores.close();
    }
  });

  it('names a ledger row whose JSON column was damaged outside Episodic (sqlite3 shell)', async () => {
    const home = join(temporaryDirectory(), 'home');
    const { stores } = await openEpisodicHome({ home, env: {} });
    await stores.ledger.append({ ...event('alpha', 's1', 1_000), event_id: 'evt-damaged' });
    await stores.close();
    execFileSync('/usr/bin/sqlite3', [
      join(home, 'episodic.db'),
      "UPDATE episodic_events SET refs_json = '{not json' WHERE event_id = 'evt-damaged'",
    ]);
    const reopened = await openEpisodicHome({ home, env: {} });
    try {
      const health = await inspectDatabase(reopened.stores);
      expect(health.integrity).toBe('ok');
      expect(health.problems).toEqual([
        expect.objectContaining({
          subject: 'event evt-damaged',
          message: expect.stringMatching(/scope alpha: a JSON column .* is not valid JSON/),
        }),
      ]);
    } finally {
      await reopened.stores.close();
    }
  });
});
