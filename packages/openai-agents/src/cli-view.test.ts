// A session kept by EpisodicSession shows in the `episodic` CLI like any run: `runs list` lists
// it, `runs show` prints each item, pop and clear on one line (their summary).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { describe, expect, it } from 'vitest';
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
