import {
  mkdirSync,
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
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveEpisodicLocation } from './episodic-location.js';
import { HOME_CONFIG_FILE, readHomeConfig } from './home-config.js';
import { openEpisodicLedger } from './open-episodic-ledger.js';
import { openEpisodicRunStores } from './open-episodic-run-stores.js';
import { openEpisodicStores } from './open-episodic-stores.js';

// A home knows what it holds: the CLI and the MCP server find runs where they are (a config written
// when the home is created, else what the home holds), and readers never create or change a file.

const directories: string[] = [];
function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-home-detect-'));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const RUN_ID = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
const OTHER_RUN_ID = '0f0e0d0c-0b0a-4908-8706-000000000003';
const header = (runId: string) => ({
  type: 'header' as const,
  schema_version: 1,
  run_id: runId,
  started_at: '2026-01-21T10:00:00.000Z',
});
const event = {
  scope: 'p',
  session_id: 's',
  agent_id: 'a',
  type: 'ops.decision' as const,
  summary: 'x',
};

/** Every path under `root` with its size and modification time. */
function snapshot(root: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[]).sort().map((path) => {
    const stat = statSync(join(root, path));
    return `${path} ${stat.isDirectory() ? 'dir' : stat.size} ${stat.mtimeMs}`;
  });
}

/**
 * A home as an agent that records runs with `@episodic/store-fs` leaves it (the demo does this):
 * run files under sessions/, the ledger in episodic.db, no config.
 */
async function legacyFsHome(): Promise<string> {
  const home = temporaryDirectory();
  const files = createFsStore({ root: home, durability: 'none' });
  await files.runs.append(RUN_ID, [header(RUN_ID)]);
  await files.close();
  const sqlite = createSqliteStore({ filename: join(home, 'episodic.db') });
  await sqlite.ledger.append(event);
  await sqlite.close();
  return home;
}

describe('the home config', () => {
  it('is written when a home is created and says where runs live from then on', async () => {
    const home = join(temporaryDirectory(), 'new');
    const stores = await openEpisodicStores({ home, store: 'fs', env: {} });
    await stores.close();
    expect(readHomeConfig(home)).toMatchObject({ format: 'episodic.home.v1', store: 'fs' });
    expect(statSync(join(home, HOME_CONFIG_FILE)).mode & 0o777).toBe(0o600);
    // Without --store, the config decides, even before anything was recorded.
    expect(resolveEpisodicLocation({ home, env: {} })).toMatchObject({
      store: 'fs',
      storeSource: 'home-config',
    });
    // An explicit choice still wins, and never rewrites the config.
    expect(resolveEpisodicLocation({ home, env: { EPISODIC_STORE: 'sqlite' } }).store).toBe(
      'sqlite',
    );
    const again = await openEpisodicStores({ home, store: 'sqlite', env: {} });
    await again.close();
    expect(readHomeConfig(home)?.store).toBe('fs');
  });

  it('is written for an empty folder too, but never added to a home that holds data', async () => {
    const empty = temporaryDirectory();
    openEpisodicLedger({ home: empty, env: {} }).close();
    expect(readHomeConfig(empty)?.store).toBe('sqlite');

    const home = await legacyFsHome();
    const stores = await openEpisodicStores({ home, env: {} });
    await stores.close();
    expect(readdirSync(home)).not.toContain(HOME_CONFIG_FILE);
  });

  it('refuses a damaged config with CORRUPT_DATA naming the file and the fix', () => {
    const home = temporaryDirectory();
    for (const text of ['{"format":"episodic.home.v1","store":"postgres"}', '{not json', '[]']) {
      writeFileSync(join(home, HOME_CONFIG_FILE), text);
      try {
        resolveEpisodicLocation({ home, env: {} });
        expect.unreachable();
      } catch (error) {
        expect(EpisodicError.hasCode(error, 'CORRUPT_DATA')).toBe(true);
        expect((error as Error).message).toContain(join(home, HOME_CONFIG_FILE));
        expect((error as Error).message).toMatch(/--store sqlite\|fs/);
      }
    }
    // An explicit store does not need the config.
    expect(resolveEpisodicLocation({ home, store: 'fs', env: {} }).store).toBe('fs');
  });

  it('keeps fields a newer version added', () => {
    const home = temporaryDirectory();
    writeFileSync(
      join(home, HOME_CONFIG_FILE),
      JSON.stringify({ format: 'episodic.home.v1', store: 'fs', future: { x: 1 } }),
    );
    expect(readHomeConfig(home)).toMatchObject({ store: 'fs', future: { x: 1 } });
  });
});

describe('detection for a home without a config', () => {
  it('finds run files when the database holds only the ledger', async () => {
    const home = await legacyFsHome();
    const before = snapshot(home);
    expect(resolveEpisodicLocation({ home, env: {} })).toMatchObject({
      store: 'fs',
      storeSource: 'detected',
      runs: home,
    });
    const stores = await openEpisodicStores({ home, env: {}, readOnly: true });
    try {
      expect((await stores.runs.list()).runs.map((run) => run.runId)).toEqual([RUN_ID]);
      expect((await stores.ledger.query({ scope: 'p' })).events).toHaveLength(1);
    } finally {
      await stores.close();
    }
    expect(snapshot(home)).toEqual(before);
  });

  it('keeps runs in the database when it holds some, even with run files beside it', async () => {
    const home = await legacyFsHome();
    const sqlite = createSqliteStore({ filename: join(home, 'episodic.db') });
    await sqlite.runs.append(OTHER_RUN_ID, [header(OTHER_RUN_ID)]);
    await sqlite.close();
    expect(resolveEpisodicLocation({ home, env: {} })).toMatchObject({
      store: 'sqlite',
      storeSource: 'detected',
    });
  });

  it('uses run files without a database, and the default for a home that holds nothing', async () => {
    const home = temporaryDirectory();
    const files = createFsStore({ root: home, durability: 'none' });
    await files.runs.append(RUN_ID, [header(RUN_ID)]);
    await files.close();
    expect(resolveEpisodicLocation({ home, env: {} }).store).toBe('fs');
    expect(resolveEpisodicLocation({ home: temporaryDirectory(), env: {} })).toMatchObject({
      store: 'sqlite',
      storeSource: 'default',
    });
  });
});

describe('readOnly', () => {
  it('creates nothing for a home that does not exist, or an empty folder, and reads as empty', async () => {
    const parent = temporaryDirectory();
    const missing = join(parent, 'missing');
    const empty = join(parent, 'empty');
    mkdirSync(empty);
    for (const home of [missing, empty]) {
      for (const store of ['sqlite', 'fs'] as const) {
        const stores = await openEpisodicStores({ home, store, env: {}, readOnly: true });
        expect((await stores.runs.list()).runs).toEqual([]);
        expect(await stores.sessions.list()).toEqual([]);
        expect((await stores.ledger.query({ global: true })).events).toEqual([]);
        expect((await stores.artifacts.list()).artifacts).toEqual([]);
        await stores.close();
        const runStores = openEpisodicRunStores({ home, store, env: {}, readOnly: true });
        expect((await runStores.runs.list()).runs).toEqual([]);
        await runStores.close();
      }
      const ledger = openEpisodicLedger({ home, env: {}, readOnly: true });
      expect((await ledger.ledger.query({ global: true })).events).toEqual([]);
      await ledger.close();
    }
    expect(readdirSync(parent)).toEqual(['empty']);
    expect(readdirSync(empty)).toEqual([]);
  });

  it('reads a home that holds data without changing a byte, and refuses to write', async () => {
    const home = await legacyFsHome();
    const before = snapshot(home);
    const stores = await openEpisodicStores({ home, store: 'sqlite', env: {}, readOnly: true });
    const refused = await stores.ledger.append(event).catch((error: unknown) => error);
    expect(EpisodicError.isInstance(refused)).toBe(true);
    await stores.close();
    const ledger = openEpisodicLedger({ home, env: {}, readOnly: true });
    expect((await ledger.ledger.query({ scope: 'p' })).events).toHaveLength(1);
    await ledger.close();
    expect(snapshot(home)).toEqual(before);
  });
});

describe('openEpisodicRunStores', () => {
  it('opens run files without touching the database, and the database runs otherwise', async () => {
    const home = await legacyFsHome();
    // A database path that cannot be opened: the fs run stores must not try.
    const db = join(home, 'not-a-database');
    mkdirSync(db);
    const files = openEpisodicRunStores({ home, db, store: 'fs', env: {} });
    expect((await files.runs.list()).runs.map((run) => run.runId)).toEqual([RUN_ID]);
    await files.close();
    expect(readdirSync(db)).toEqual([]);

    const sqlite = openEpisodicRunStores({ home, store: 'sqlite', env: {} });
    await sqlite.runs.append(OTHER_RUN_ID, [header(OTHER_RUN_ID)]);
    expect((await sqlite.runs.list()).runs.map((run) => run.runId)).toEqual([OTHER_RUN_ID]);
    await sqlite.close();
    expect(readFileSync(join(home, 'episodic.db')).length).toBeGreaterThan(0);
  });
});
