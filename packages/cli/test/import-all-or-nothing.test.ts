import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importClaudeCodeReceiptSchema, sessionsShowReceiptSchema } from '../src/receipts/index.js';
import {
  episodic,
  episodicJson,
  expectError,
  ledgerRows,
  temporaryDirectory,
  temporaryHome,
} from './helpers.js';

// What a dry run says is what the import does, and a failed import leaves nothing behind: through
// the built binary, against real run-file and SQLite homes.

const TRANSCRIPTS = fileURLToPath(new URL('../../../fixtures/transcripts/', import.meta.url));
const CLAUDE = join(TRANSCRIPTS, 'claude-code', 'session.jsonl');
const CLAUDE_2_1 = join(TRANSCRIPTS, 'claude-code-2.1');

/** A folder with the fixture session, then another session whose tool call has an empty name. */
function folderWithBadSecondFile(): string {
  const folder = temporaryDirectory('episodic-transcripts-');
  copyFileSync(CLAUDE, join(folder, 'a-good.jsonl'));
  const bad = readFileSync(CLAUDE, 'utf8')
    .replaceAll('7f3c2b1a-5d4e-4c3b-9a8f-1e2d3c4b5a60', '11111111-2222-4333-8444-555555555555')
    .replaceAll('"a0000000-', '"c0000000-')
    .replaceAll('"b0000000-', '"d0000000-')
    .replace('"name": "Bash"', '"name": ""');
  writeFileSync(join(folder, 'b-bad.jsonl'), bad);
  return folder;
}

async function sessionIds(home: string, store: string): Promise<string[]> {
  const listed = (await episodicJson(['--home', home, '--store', store, 'sessions', 'list']))
    .receipt.sessions as Array<{ session_id: string }>;
  return listed.map((session) => session.session_id).sort();
}

async function runCount(home: string, store: string): Promise<number> {
  return (
    (await episodicJson(['--home', home, '--store', store, 'runs', 'list'])).receipt
      .runs as unknown[]
  ).length;
}

describe.each(['fs', 'sqlite'] as const)('all-or-nothing imports (%s store)', (store) => {
  it('import claude-code FOLDER: a refused file is left out whole, the dry run says so first', async () => {
    const folder = folderWithBadSecondFile();
    const home = temporaryHome();
    const args = ['--home', home, '--store', store, 'import', 'claude-code', folder];
    const dry = await episodicJson([...args, '--dry-run']);
    const real = await episodicJson(args);
    for (const result of [dry, real]) {
      expect(result.status, result.stderr).toBe(1);
      const receipt = importClaudeCodeReceiptSchema.parse(result.receipt);
      expect(receipt.file_results).toEqual([
        { file: join(folder, 'a-good.jsonl'), status: 'imported', conversations: 2, reason: null },
        {
          file: join(folder, 'b-bad.jsonl'),
          status: 'refused',
          conversations: 2,
          reason: expect.stringMatching(/function\.name/),
        },
      ]);
      expect(receipt.totals.sessions.created).toBe(2);
    }
    const good = (importClaudeCodeReceiptSchema.parse(real.receipt).conversations ?? [])
      .filter((conversation) => conversation.source?.endsWith('a-good.jsonl'))
      .map((conversation) => conversation.session_id)
      .sort();
    expect(await sessionIds(home, store)).toEqual(good);
    expect(await runCount(home, store)).toBe(3 + 1);
    // For people: the refused file is named.
    const human = await episodic([...args, '--dry-run']);
    expect(human.stdout).toMatch(/would not import: .*b-bad\.jsonl: .*function\.name/);
  });

  it('import FILE: a bad line in the middle fails the dry run and the import alike, and nothing is stored', async () => {
    // The source: a session and its runs, exported with the ledger.
    const source = temporaryHome();
    await episodicJson(['--home', source, '--store', 'sqlite', 'import', 'claude-code', CLAUDE]);
    const file = join(temporaryDirectory(), 'export.jsonl');
    await episodicJson([
      '--home',
      source,
      '--store',
      'sqlite',
      'export',
      '--all',
      '--global',
      '-o',
      file,
    ]);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    // A tool output of the second run names a cached output file run files cannot hold.
    const runs = [
      ...new Set(
        lines
          .map((line) => JSON.parse(line) as { type: string; run_id?: string })
          .filter((line) => line.type === 'run.record')
          .map((line) => line.run_id),
      ),
    ];
    const index = lines.findIndex((line) => {
      const value = JSON.parse(line) as { run_id?: string; record?: { type?: string } };
      return value.run_id === runs[1] && value.record?.type === 'tool.output';
    });
    expect(index).toBeGreaterThan(0);
    expect(index).toBeLessThan(lines.length - 10);
    const value = JSON.parse(lines[index] as string) as { record: Record<string, unknown> };
    value.record.output_ref = { id: 'not/a/file/name', bytes: 1, lines: 1 };
    lines[index] = JSON.stringify(value);
    const bad = join(temporaryDirectory(), 'bad-export.jsonl');
    writeFileSync(bad, `${lines.join('\n')}\n`);

    const target = temporaryHome();
    const args = ['--home', target, '--store', store, 'import', bad];
    const dry = await episodicJson([...args, '--dry-run']);
    const real = await episodicJson(args);
    if (store === 'fs') {
      // Run files refuse the id: the dry run finds it, the import writes nothing.
      for (const result of [dry, real]) {
        expect(expectError(result, 2, 'VALIDATION_ERROR')).toMatch(
          new RegExp(
            `run ${runs[1]}: Invalid run record: output_ref\\.id .*Nothing was imported\\.$`,
          ),
        );
      }
      expect(await sessionIds(target, store)).toEqual([]);
      expect(await runCount(target, store)).toBe(0);
      expect(ledgerRows(target) ?? []).toEqual([]);
    } else {
      // SQLite holds it: the dry run and the import agree that everything goes in.
      expect(dry.status).toBe(0);
      expect(real.status).toBe(0);
      expect(dry.receipt.would_write).toEqual(real.receipt.written);
      expect(await runCount(target, store)).toBe(runs.length);
    }
  });
});

describe('Claude Code 2.1 sessions', () => {
  it('imports the session and its sub-agent, which names its parent in sessions show', async () => {
    const home = temporaryHome();
    const receipt = importClaudeCodeReceiptSchema.parse(
      (await episodicJson(['--home', home, 'import', 'claude-code', CLAUDE_2_1, '--no-ledger']))
        .receipt,
    );
    expect(receipt.warnings).toEqual([]);
    expect(receipt.totals.runs.created).toBe(3 + 1);
    const [agent, main] = receipt.conversations;
    expect(agent?.parent_session_id).toBe(main?.session_id);
    expect(main?.parent_session_id).toBeNull();
    const shown = await episodicJson([
      '--home',
      home,
      'sessions',
      'show',
      agent?.session_id as string,
    ]);
    expect(sessionsShowReceiptSchema.parse(shown.receipt).state.context).toMatchObject({
      import: { parent_session_id: main?.session_id, agent_id: 'a7f3c21' },
    });
    const human = await episodic(['--home', home, 'sessions', 'show', agent?.session_id as string]);
    expect(human.stdout).toMatch(new RegExp(`parent\\s+${main?.session_id}`));
  });
});
