// A session kept by EpisodicSession shows in the `episodic` CLI like any run: `runs list` lists
// it, `runs show` prints each item, pop and clear on one line (their summary); `doctor` finds
// nothing wrong with it, and `export` then `import` into another home (of the other store kind)
// carries it whole: a session there resumes the same history.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { describe, expect, it } from 'vitest';
import { EVERY_KIND } from './__fixtures__/items.js';
import { EpisodicSession } from './episodic-session.js';

const bin = join(
  dirname(createRequire(import.meta.url).resolve('@episodic/cli/package.json')),
  'dist/bin/episodic.js',
);

function episodic(home: string, store: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [bin, '--home', home, '--store', store, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', EPISODIC_HOME: undefined },
    timeout: 60_000,
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

describe.each(['fs', 'sqlite'] as const)(
  'an OpenAI Agents session in the CLI (%s store)',
  (kind) => {
    it('is listed by `runs list` and its records are described by `runs show`', async () => {
      expect(existsSync(bin), `build @episodic/cli first (${bin})`).toBe(true);
      const home = mkdtempSync(join(tmpdir(), 'episodic-openai-agents-cli-'));
      try {
        const store =
          kind === 'fs'
            ? createFsStore({ root: home })
            : createSqliteStore({ filename: join(home, 'episodic.db') });
        const session = new EpisodicSession({ runs: store.runs, sessionId: 'cli-session' });
        await session.addItems([
          { role: 'user', content: 'What is the weather in Oslo?' },
          {
            type: 'function_call',
            callId: 'call_1',
            name: 'get_weather',
            arguments: '{"city":"Oslo"}',
          },
          { role: 'user', content: 'typo' },
        ]);
        await session.popItem();
        await session.clearSession();
        await store.close();

        expect(episodic(home, kind, 'runs', 'list')).toContain(session.runId);
        const shown = episodic(home, kind, 'runs', 'show', session.runId);
        expect(shown).toMatch(/x\.openai_agents\.item\s+user: What is the weather in Oslo\?/);
        expect(shown).toMatch(
          /x\.openai_agents\.item\s+function_call get_weather \[call_1\]: \{"city":"Oslo"\}/,
        );
        expect(shown).toMatch(/x\.openai_agents\.pop\s+pop user: typo/);
        expect(shown).toMatch(/x\.openai_agents\.clear\s+clear 2 items/);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  },
);

it('passes doctor, and moves whole through export and import (files home into a SQLite home)', async () => {
  expect(existsSync(bin), `build @episodic/cli first (${bin})`).toBe(true);
  const from = mkdtempSync(join(tmpdir(), 'episodic-openai-agents-export-'));
  const to = mkdtempSync(join(tmpdir(), 'episodic-openai-agents-import-'));
  try {
    const source = createFsStore({ root: from });
    const session = new EpisodicSession({ runs: source.runs, sessionId: 'moved', scope: 'team' });
    await session.addItems(EVERY_KIND);
    await session.popItem();
    await session.applyHistoryTransaction({
      operationId: 'op-1',
      transaction: { type: 'append_items', items: [{ role: 'user', content: 'after' }] },
    });
    const expected = await session.getItems();
    await source.close();

    episodic(from, 'fs', 'doctor');
    const file = join(from, 'session.jsonl');
    episodic(from, 'fs', 'export', '--run-id', session.runId, '-o', file);
    episodic(to, 'sqlite', 'import', file);

    const target = createSqliteStore({ filename: join(to, 'episodic.db') });
    try {
      const resumed = new EpisodicSession({ runs: target.runs, sessionId: 'moved', scope: 'team' });
      expect(await resumed.getItems()).toStrictEqual(expected);
      // The operation id came along: a retry of the transaction is still a no-op there.
      await resumed.applyHistoryTransaction({
        operationId: 'op-1',
        transaction: { type: 'append_items', items: [{ role: 'user', content: 'after' }] },
      });
      expect(await resumed.getItems()).toStrictEqual(expected);
    } finally {
      await target.close();
    }
    episodic(to, 'sqlite', 'doctor');
  } finally {
    rmSync(from, { recursive: true, force: true });
    rmSync(to, { recursive: true, force: true });
  }
});
