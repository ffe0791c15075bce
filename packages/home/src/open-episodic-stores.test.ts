import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveEpisodicLocation } from './episodic-location.js';
import { openEpisodicLedger } from './open-episodic-ledger.js';
import { openEpisodicStores } from './open-episodic-stores.js';

const directories: string[] = [];
function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-stores-'));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const header = (runId: string) => ({
  type: 'header' as const,
  schema_version: 1,
  run_id: runId,
  started_at: '2026-01-21T10:00:00.000Z',
});
const RUN_ID = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';

describe('resolveEpisodicLocation', () => {
  it('defaults to <home>/episodic.db with runs in SQLite; options win over the environment', () => {
    const env = { EPISODIC_HOME: '/srv/episodic', EPISODIC_DB: '/data/e.db', EPISODIC_STORE: 'fs' };
    expect(resolveEpisodicLocation({ env: {} }).database).toMatch(/\.episodic[/\\]episodic\.db$/);
    expect(resolveEpisodicLocation({ env: { EPISODIC_HOME: '/srv/episodic' } })).toEqual({
      home: '/srv/episodic',
      database: '/srv/episodic/episodic.db',
      databaseKind: 'sqlite',
      store: 'sqlite',
      runs: '/srv/episodic/episodic.db',
      storeSource: 'default',
    });
    expect(resolveEpisodicLocation({ env })).toEqual({
      home: '/srv/episodic',
      database: '/data/e.db',
      databaseKind: 'sqlite',
      store: 'fs',
      runs: '/srv/episodic',
      storeSource: 'environment',
    });
    expect(
      resolveEpisodicLocation({ env, home: '/other', db: '/x/y.db', store: 'sqlite' }),
    ).toEqual({
      home: '/other',
      database: '/x/y.db',
      databaseKind: 'sqlite',
      store: 'sqlite',
      runs: '/x/y.db',
      storeSource: 'option',
    });
    expect(resolveEpisodicLocation({ env: {}, home: '/h', db: ':memory:' }).database).toBe(
      ':memory:',
    );
  });

  it('reads process.env when no env is given', () => {
    const previous = process.env.EPISODIC_HOME;
    process.env.EPISODIC_HOME = '/srv/from-process-env';
    try {
      expect(resolveEpisodicLocation().home).toBe('/srv/from-process-env');
      expect(resolveEpisodicLocation({ home: '/x' }).home).toBe('/x');
    } finally {
      if (previous === undefined) delete process.env.EPISODIC_HOME;
      else process.env.EPISODIC_HOME = previous;
    }
  });

  it('names the option or variable and the fix for a bad value', () => {
    const expectInvalid = (call: () => unknown, text: RegExp) => {
      try {
        call();
        expect.unreachable();
      } catch (error) {
        expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
        expect((error as Error).message).toMatch(text);
      }
    };
    expectInvalid(
      () => resolveEpisodicLocation({ env: { EPISODIC_STORE: 'postgres' } }),
      /EPISODIC_STORE "postgres".*"sqlite".*"fs"/,
    );
    expectInvalid(
      () => resolveEpisodicLocation({ env: {}, store: 'mongo' as 'fs' }),
      /store "mongo"/,
    );
    expectInvalid(() => resolveEpisodicLocation({ env: {}, db: 'a\0b' }), /db .*NUL/);
    expectInvalid(() => resolveEpisodicLocation({ env: {}, home: '' }), /home/i);
    expectInvalid(() => resolveEpisodicLocation({ env: {}, typo: 1 } as never), /typo/);
  });
});

describe('openEpisodicStores', () => {
  it('creates the home (0700) and keeps every store in one SQLite file by default', async () => {
    const home = join(temporaryDirectory(), 'home');
    const stores = await openEpisodicStores({ env: { EPISODIC_HOME: home } });
    try {
      expect(stores.location).toMatchObject({ home, store: 'sqlite' });
      expect(statSync(home).mode & 0o777).toBe(0o700);
      await stores.runs.append(RUN_ID, [header(RUN_ID)]);
      await stores.ledger.append({
        scope: 'p',
        session_id: 's',
        agent_id: 'a',
        type: 'ops.decision',
        summary: 'x',
      });
      await stores.artifacts.setEpisodeMetadata(`task:${RUN_ID}`, { tenant: 'acme' });
      const tables = stores.sqlite?.database
        .prepare('SELECT count(*) FROM episodic_runs')
        .pluck()
        .get();
      expect(tables).toBe(1);
      expect(readdirSync(home)).not.toContain('sessions');
    } finally {
      await stores.close();
      await stores.close();
    }
    const again = await openEpisodicStores({ home, env: {} });
    try {
      expect((await again.runs.list()).runs.map((run) => run.runId)).toEqual([RUN_ID]);
      expect(await again.artifacts.getEpisodeMetadata(`task:${RUN_ID}`)).toEqual({
        tenant: 'acme',
      });
    } finally {
      await again.close();
    }
  });

  it('keeps runs and sessions as files under the home with store "fs" (EPISODIC_STORE=fs)', async () => {
    const home = temporaryDirectory();
    const database = join(temporaryDirectory(), 'nested', 'ledger.db');
    const stores = await openEpisodicStores({
      env: { EPISODIC_HOME: home, EPISODIC_STORE: 'fs', EPISODIC_DB: database },
    });
    try {
      expect(stores.location).toEqual({
        home,
        database,
        databaseKind: 'sqlite',
        store: 'fs',
        runs: home,
        storeSource: 'environment',
      });
      await stores.runs.append(RUN_ID, [header(RUN_ID)]);
      expect(existsSync(join(home, 'sessions', '2026', '01', '21', `${RUN_ID}.jsonl`))).toBe(true);
      expect(existsSync(database)).toBe(true);
      expect(
        stores.sqlite?.database.prepare('SELECT count(*) FROM episodic_runs').pluck().get(),
      ).toBe(0);
    } finally {
      await stores.close();
    }
  });

  it('chains the run files and the ledger of a home whose config says "chain" (off without it; an invalid value is CORRUPT_DATA)', async () => {
    const home = temporaryDirectory();
    const config = (chain: unknown) =>
      writeFileSync(
        join(home, 'episodic-home.json'),
        JSON.stringify({ format: 'episodic.home.v1', store: 'fs', chain }),
      );
    config(true);
    const stores = await openEpisodicStores({ home, env: {} });
    try {
      expect(stores.runs.capabilities.chain).toBe(true);
      await stores.runs.append(RUN_ID, [header(RUN_ID)]);
      const file = join(home, 'sessions', '2026', '01', '21', `${RUN_ID}.jsonl`);
      expect(readFileSync(file, 'utf8')).toMatch(/,"chain":\{"n":1,"k":"/);
      expect((await stores.runs.read(RUN_ID)).header).toEqual(header(RUN_ID));
      // The SQLite ledger of the home chains too.
      expect(stores.ledger.capabilities.chain).toBe(true);
      await stores.ledger.append({
        scope: 'proj',
        session_id: 's1',
        agent_id: 'a',
        type: 'ops.decision',
        summary: 'chained',
      });
    } finally {
      await stores.close();
    }
    const ledgerOnly = openEpisodicLedger({ home, env: {} });
    try {
      expect(ledgerOnly.ledger.capabilities.chain).toBe(true);
      const row = ledgerOnly.database
        .prepare('SELECT chain_c FROM episodic_events WHERE summary = ?')
        .get('chained') as { chain_c: unknown };
      expect(row.chain_c).not.toBeNull();
    } finally {
      await ledgerOnly.close();
    }
    config(false);
    const unchained = await openEpisodicStores({ home, env: {} });
    expect(unchained.runs.capabilities.chain).toBeUndefined();
    expect(unchained.ledger.capabilities.chain).not.toBe(true);
    await unchained.close();
    const unchainedLedger = openEpisodicLedger({ home, env: {} });
    expect(unchainedLedger.ledger.capabilities.chain).not.toBe(true);
    await unchainedLedger.close();
    config('maybe');
    const error = await openEpisodicStores({ home, env: {} }).catch((caught: unknown) => caught);
    expect(EpisodicError.hasCode(error, 'CORRUPT_DATA')).toBe(true);
  });

  it('reports a database it cannot open as STORAGE_ERROR', async () => {
    const home = temporaryDirectory();
    const error = await openEpisodicStores({ home, db: home, env: {} }).catch(
      (caught: unknown) => caught,
    );
    expect(EpisodicError.hasCode(error, 'STORAGE_ERROR')).toBe(true);
  });
});

describe('openEpisodicLedger', () => {
  const event = {
    scope: 'my-project',
    session_id: 'sess-1',
    agent_id: 'planner',
    type: 'conversation.user' as const,
    summary: 'Asked for status',
  };

  it('opens the same ledger as openEpisodicStores, with its rules, and nothing else', async () => {
    const home = temporaryDirectory();
    const alone = openEpisodicLedger({ home, env: {}, ledger: { caps: { summaryBytes: 64 } } });
    expect(alone.location).toEqual({
      ...resolveEpisodicLocation({ home, env: {} }),
      storeSource: 'default',
    });
    expect(statSync(home).mode & 0o777).toBe(0o700);
    const { event: first } = await alone.ledger.append(event);
    const error = await alone.ledger
      .append({ ...event, summary: 'x'.repeat(65) })
      .catch((caught: unknown) => caught);
    expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
    await alone.close();
    await alone.close();
    expect(alone.database.open).toBe(false);

    const stores = await openEpisodicStores({ home, env: {} });
    try {
      const page = await stores.ledger.query({ scope: 'my-project', sessionId: 'sess-1' });
      expect(page.events.map((stored) => [stored.event_id, stored.position])).toEqual([
        [first.event_id, 1],
      ]);
      const { event: second } = await stores.ledger.append(event, { expectedPosition: 1 });
      expect(second.position).toBe(2);
    } finally {
      await stores.close();
    }
    const again = openEpisodicLedger({ home, env: {} });
    try {
      const conflict = await again.ledger
        .append(event, { expectedPosition: 1 })
        .catch((caught: unknown) => caught);
      expect(EpisodicError.hasCode(conflict, 'CONFLICT')).toBe(true);
    } finally {
      await again.close();
    }
  });

  it('refuses bad options and an unopenable database like openEpisodicStores', () => {
    const home = temporaryDirectory();
    expect(() => openEpisodicLedger({ home, env: { EPISODIC_STORE: 'postgres' } })).toThrow(
      /EPISODIC_STORE/,
    );
    let error: unknown;
    try {
      openEpisodicLedger({ home, db: home, env: {} });
    } catch (caught) {
      error = caught;
    }
    expect(EpisodicError.hasCode(error, 'STORAGE_ERROR')).toBe(true);
  });
});
