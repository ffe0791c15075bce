// Seed 002's words mean what they mean there (issue 28, point 3): `--global` is the scope named
// `global` on every command, exactly `--scope global`, as in openclaw-mem, whose `gc --global`
// collects that one scope. Every scope is `--all-scopes`; a change across every scope lists what it
// would change with `--dry-run` and needs `--yes`. Run in-process (`runCli`) over a real SQLite file
// laid out as openclaw-mem writes it (its events table, events in the scope `global`), so a script
// moved over from openclaw-mem is checked against the data it would have erased.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_OK, EXIT_USAGE } from '../exit-codes.js';
import {
  episodesGcReceiptSchema,
  episodesQueryReceiptSchema,
  episodesRedactReceiptSchema,
  errorReceiptSchema,
} from '../receipts/index.js';
import { runCli } from '../run-cli.js';

/** Seed 002's events table, as openclaw-mem creates it (Episodic migrates it on first open). */
const SEED_TABLE = `CREATE TABLE episodic_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL,
  ts_ms INTEGER NOT NULL,
  scope TEXT NOT NULL,
  session_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  type TEXT NOT NULL,
  summary TEXT NOT NULL,
  payload_json TEXT,
  refs_json TEXT,
  redacted INTEGER NOT NULL DEFAULT 0,
  schema_version TEXT NOT NULL,
  created_at TEXT NOT NULL
)`;

const NOW = Date.UTC(2026, 0, 1);
const OLD = Date.UTC(2025, 0, 1);
/** Every row: event id, scope, session, type, time. Old tool calls are past their 30 days. */
const ROWS = [
  ['g-1', 'global', 'untagged', 'tool.call', OLD],
  ['g-2', 'global', 'untagged', 'tool.call', OLD + 1],
  ['a-1', 'a', 'shared', 'tool.call', OLD],
  ['a-2', 'a', 'shared', 'conversation.user', NOW - 1000],
  ['b-1', 'b', 'shared', 'tool.call', OLD],
  ['b-2', 'b', 'other', 'tool.result', OLD],
] as const;

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

/** A home whose database openclaw-mem laid out: the seed's table with the rows above. */
function openclawHome(): { where: string[]; db: string } {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-every-scope-'));
  directories.push(directory);
  const db = join(directory, 'openclaw-mem.sqlite');
  const database = new Database(db);
  database.exec(SEED_TABLE);
  const insert = database.prepare(
    `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, schema_version, created_at)
     VALUES (?, ?, ?, ?, 'agent', ?, ?, 'openclaw-mem.episodic.v0', '2025-01-01T00:00:00Z')`,
  );
  for (const [eventId, scope, session, type, ts] of ROWS) {
    insert.run(eventId, ts, scope, session, type, `summary of ${eventId}`);
  }
  database.close();
  return { where: ['--home', join(directory, 'home'), '--db', db], db };
}

/** Every row as `event_id scope` (redacted ones marked), read straight from the file. */
function rows(db: string): string[] {
  const database = new Database(db, { readonly: true });
  try {
    return (
      database
        .prepare('SELECT event_id, scope, redacted FROM episodic_events ORDER BY event_id')
        .all() as { event_id: string; scope: string; redacted: number }[]
    ).map((row) => `${row.event_id} ${row.scope}${row.redacted ? ' redacted' : ''}`);
  } finally {
    database.close();
  }
}

const ALL_ROWS = ['a-1 a', 'a-2 a', 'b-1 b', 'b-2 b', 'g-1 global', 'g-2 global'];

/** Runs the CLI in-process and collects what it printed. */
async function run(argv: readonly string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { TZ: 'UTC' },
  });
  return { code, stdout, stderr };
}

/** Runs with `--json` and parses the one receipt. */
async function runJson(argv: readonly string[]) {
  const result = await run([...argv, '--json']);
  return { ...result, receipt: JSON.parse(result.stdout) as unknown };
}

const gcAt = ['episodes', 'gc', '--now-ts-ms', String(NOW)];

describe('--global is the scope named global', () => {
  it('gc --global collects only the scope global and leaves scope a intact', async () => {
    const { where, db } = openclawHome();
    const result = await runJson([...where, ...gcAt, '--global']);
    expect(result.code, result.stdout).toBe(EXIT_OK);
    const receipt = episodesGcReceiptSchema.parse(result.receipt);
    expect(receipt).toMatchObject({ scope: 'global', all_scopes: false, global: false });
    expect(receipt.deleted_total).toBe(2);
    expect(receipt.by_scope).toEqual([
      expect.objectContaining({ scope: 'global', deleted_total: 2 }),
    ]);
    expect(rows(db)).toEqual(['a-1 a', 'a-2 a', 'b-1 b', 'b-2 b']);
  });

  it('is exactly --scope global on query, replay, redact and gc', async () => {
    const { where } = openclawHome();
    for (const command of [
      ['episodes', 'query'],
      ['episodes', 'replay', 'untagged'],
      ['episodes', 'redact', '--session-id', 'untagged', '--runs', 'none', '--dry-run'],
      [...gcAt, '--dry-run'],
    ]) {
      const viaFlag = await runJson([...where, ...command, '--global']);
      const viaScope = await runJson([...where, ...command, '--scope', 'global']);
      expect(viaFlag.code, viaFlag.stdout).toBe(EXIT_OK);
      const { ts: _one, ...flagReceipt } = viaFlag.receipt as Record<string, unknown>;
      const { ts: _two, ...scopeReceipt } = viaScope.receipt as Record<string, unknown>;
      expect(flagReceipt).toEqual(scopeReceipt);
      expect(flagReceipt.scope).toBe('global');
    }
    const query = episodesQueryReceiptSchema.parse(
      (await runJson([...where, 'episodes', 'query', '--global'])).receipt,
    );
    expect(query.events.map((event) => event.event_id)).toEqual(['g-1', 'g-2']);
  });

  it('redact --global redacts only the scope global', async () => {
    const { where, db } = openclawHome();
    const result = await runJson([
      ...where,
      'episodes',
      'redact',
      '--event-id',
      'a-1',
      '--global',
      '--runs',
      'none',
    ]);
    expect(result.code).not.toBe(EXIT_OK);
    expect(rows(db)).toEqual(ALL_ROWS);
    const own = await runJson([...where, 'episodes', 'redact', '--event-id', 'g-1', '--global']);
    expect(own.code, own.stdout).toBe(EXIT_OK);
    expect(episodesRedactReceiptSchema.parse(own.receipt).redacted_count).toBe(1);
    expect(rows(db)).toEqual([...ALL_ROWS.slice(0, 4), 'g-1 global redacted', 'g-2 global']);
  });

  it('accepts --global with --scope global, and refuses it with another scope or --all-scopes', async () => {
    const { where, db } = openclawHome();
    const same = await runJson([...where, 'episodes', 'query', '--global', '--scope', 'Global']);
    expect(same.code).toBe(EXIT_OK);
    for (const pair of [
      ['--global', '--scope', 'a'],
      ['--global', '--all-scopes'],
      ['--scope', 'a', '--all-scopes'],
    ]) {
      const refused = await runJson([...where, ...gcAt, ...pair, '--yes']);
      expect(refused.code).toBe(EXIT_USAGE);
      expect(errorReceiptSchema.parse(refused.receipt).error).toMatch(/not both/);
    }
    expect(rows(db)).toEqual(ALL_ROWS);
  });

  it('says how to read every scope when --global finds nothing', async () => {
    const { where } = openclawHome();
    const result = await run([...where, 'episodes', 'query', '--global', '--session-id', 'x']);
    expect(result.code).toBe(EXIT_OK);
    expect(result.stderr).toContain('--all-scopes');
  });
});

describe('help', () => {
  it('says what --global, --all-scopes and --yes mean on every command that takes them', async () => {
    for (const command of [
      ['episodes', 'query'],
      ['episodes', 'replay'],
      ['episodes', 'redact'],
      ['episodes', 'gc'],
      ['export'],
    ]) {
      const help = await run([...command, '--help', '--no-color']);
      expect(help.code).toBe(EXIT_OK);
      expect(help.stdout).toMatch(
        /--global\s+(also export their ledger events in )?the scope named/,
      );
      expect(help.stdout).toContain('--all-scopes');
      if (command[1] === 'redact' || command[1] === 'gc') {
        expect(help.stdout).toMatch(/--yes\s+confirm the change across every scope/);
      }
    }
  });
});

describe('--all-scopes', () => {
  it('reads every scope without confirmation', async () => {
    const { where } = openclawHome();
    const result = await runJson([...where, 'episodes', 'query', '--all-scopes']);
    expect(result.code, result.stdout).toBe(EXIT_OK);
    const receipt = episodesQueryReceiptSchema.parse(result.receipt);
    expect(receipt).toMatchObject({ scope: null, all_scopes: true, global: true, count: 6 });
  });

  it('gc without --yes changes nothing and names the flag to add', async () => {
    const { where, db } = openclawHome();
    const result = await runJson([...where, ...gcAt, '--all-scopes']);
    expect(result.code).toBe(EXIT_USAGE);
    const error = errorReceiptSchema.parse(result.receipt);
    expect(error.code).toBe('CONFIRMATION_REQUIRED');
    expect(error.error).toContain('--yes');
    expect(error.error).toContain('--dry-run');
    expect(error.error).toContain('Nothing was changed');
    const human = await run([...where, ...gcAt, '--all-scopes']);
    expect(human.code).toBe(EXIT_USAGE);
    expect(human.stderr).toContain('add --yes');
    expect(rows(db)).toEqual(ALL_ROWS);
  });

  it('gc --dry-run lists what each scope would lose and deletes nothing', async () => {
    const { where, db } = openclawHome();
    const result = await runJson([...where, ...gcAt, '--all-scopes', '--dry-run']);
    expect(result.code, result.stdout).toBe(EXIT_OK);
    const receipt = episodesGcReceiptSchema.parse(result.receipt);
    expect(receipt).toMatchObject({ scope: null, all_scopes: true, dry_run: true });
    expect(receipt.by_scope.map((entry) => [entry.scope, entry.deleted_total])).toEqual([
      ['a', 1],
      ['b', 2],
      ['global', 2],
    ]);
    expect(receipt.by_scope[1]?.deleted_by_type).toMatchObject({
      'tool.call': 1,
      'tool.result': 1,
    });
    expect(receipt.deleted_total).toBe(5);
    const human = await run([...where, ...gcAt, '--all-scopes', '--dry-run']);
    expect(human.code).toBe(EXIT_OK);
    expect(human.stdout).toMatch(/Dry run: 5 events would be deleted in 3 scopes/);
    expect(human.stdout).toMatch(/SCOPE\s+WOULD DELETE\na\s+1\nb\s+2\nglobal\s+2\n/);
    expect(rows(db)).toEqual(ALL_ROWS);
  });

  it('gc --yes collects every scope', async () => {
    const { where, db } = openclawHome();
    const result = await runJson([...where, ...gcAt, '--all-scopes', '--yes']);
    expect(result.code, result.stdout).toBe(EXIT_OK);
    const receipt = episodesGcReceiptSchema.parse(result.receipt);
    expect(receipt).toMatchObject({ all_scopes: true, dry_run: false, deleted_total: 5 });
    expect(rows(db)).toEqual(['a-2 a']);
  });

  it('redact without --yes changes nothing; --dry-run lists per scope; --yes redacts', async () => {
    const { where, db } = openclawHome();
    const redact = [...where, 'episodes', 'redact', '--session-id', 'shared', '--all-scopes'];
    const refused = await runJson(redact);
    expect(refused.code).toBe(EXIT_USAGE);
    const error = errorReceiptSchema.parse(refused.receipt);
    expect(error.code).toBe('CONFIRMATION_REQUIRED');
    expect(error.error).toContain('--yes');
    expect(rows(db)).toEqual(ALL_ROWS);

    const dry = await runJson([...redact, '--dry-run']);
    expect(dry.code, dry.stdout).toBe(EXIT_OK);
    const planned = episodesRedactReceiptSchema.parse(dry.receipt);
    expect(planned).toMatchObject({ all_scopes: true, dry_run: true, redacted_count: 0 });
    expect(planned.would_redact?.by_scope).toEqual([
      { scope: 'a', events: 2 },
      { scope: 'b', events: 1 },
    ]);
    const human = await run([...redact, '--dry-run']);
    expect(human.stdout).toMatch(/SCOPE\s+WOULD REDACT\na\s+2\nb\s+1\n/);
    expect(rows(db)).toEqual(ALL_ROWS);

    const done = await runJson([...redact, '--yes']);
    expect(done.code, done.stdout).toBe(EXIT_OK);
    expect(episodesRedactReceiptSchema.parse(done.receipt)).toMatchObject({
      dry_run: false,
      redacted_count: 3,
    });
    expect(rows(db)).toEqual([
      'a-1 a redacted',
      'a-2 a redacted',
      'b-1 b redacted',
      'b-2 b',
      'g-1 global',
      'g-2 global',
    ]);
  });
});
