// A session kept by EpisodicSessionStore shows in the `episodic` CLI like any run: `runs list` lists
// it, `runs show` prints each transcript entry and each summary on one line (their summary).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { describe, expect, it } from 'vitest';
import { EpisodicSessionStore } from './episodic-session-store.js';
import { sessionRunId } from './session-records.js';

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
  'a Claude Agent SDK session in the CLI (%s store)',
  (kind) => {
    it('is listed by `runs list` and its entries are described by `runs show`', async () => {
      expect(existsSync(bin), `build @episodic/cli first (${bin})`).toBe(true);
      const home = mkdtempSync(join(tmpdir(), 'episodic-claude-sdk-cli-'));
      try {
        const store =
          kind === 'fs'
            ? createFsStore({ root: home })
            : createSqliteStore({ filename: join(home, 'episodic.db') });
        const sessions = new EpisodicSessionStore({ runs: store.runs });
        const key = { projectKey: 'cli', sessionId: 'session-1' };
        await sessions.append(key, [
          {
            type: 'user',
            uuid: '0f1e2d3c-aaaa',
            message: { role: 'user', content: 'Fix the build' },
          },
          {
            type: 'assistant',
            uuid: '9a8b7c6d-bbbb',
            message: {
              role: 'assistant',
              content: [
                { type: 'text', text: 'Looking.' },
                { type: 'tool_use', name: 'Bash' },
              ],
            },
          },
        ]);
        await store.close();

        const runId = sessionRunId(key);
        expect(episodic(home, kind, 'runs', 'list')).toContain(runId);
        const shown = episodic(home, kind, 'runs', 'show', runId);
        expect(shown).toMatch(/x\.claude_agent_sdk\.entry\s+user: Fix the build \[0f1e2d3c\]/);
        expect(shown).toMatch(
          /x\.claude_agent_sdk\.entry\s+assistant: Looking\. \[tool_use Bash\] \[9a8b7c6d\]/,
        );
        expect(shown).toMatch(/x\.claude_agent_sdk\.summary\s+summary after 2 entries/);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  },
);
