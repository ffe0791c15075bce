// A session kept by EpisodicSessionStore shows in the `episodic` CLI like any run: `runs list` lists
// it, `runs show` prints each transcript entry and each summary on one line (their summary);
// `doctor` finds nothing wrong with it, and `export` then `import` into another home (of the other
// store kind) carries it whole: a store there loads and lists the same session.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { describe, expect, it } from 'vitest';
import { EpisodicSessionStore } from './episodic-session-store.js';
import { projectRunId, sessionRunId } from './session-records.js';

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

it('passes doctor, and moves whole through export and import (files home into a SQLite home)', async () => {
  expect(existsSync(bin), `build @episodic/cli first (${bin})`).toBe(true);
  const from = mkdtempSync(join(tmpdir(), 'episodic-claude-sdk-export-'));
  const to = mkdtempSync(join(tmpdir(), 'episodic-claude-sdk-import-'));
  const key = { projectKey: 'moved', sessionId: 'session-2' };
  const subkey = { ...key, subpath: 'subagents/agent-1' };
  try {
    const source = createFsStore({ root: from });
    const sessions = new EpisodicSessionStore({ runs: source.runs, scope: 'team' });
    await sessions.append(key, [
      { type: 'user', uuid: 'u-1', message: { role: 'user', content: 'hello' } },
      { type: 'custom-title', customTitle: 'Moved', extra: { kept: [1, null, 'x'] } },
    ]);
    await sessions.append(subkey, [{ type: 'user', uuid: 'u-2', message: { content: 'sub' } }]);
    const expected = await sessions.load(key);
    const summaries = await sessions.listSessionSummaries('moved');
    await source.close();

    episodic(from, 'fs', 'doctor');
    const file = join(from, 'sessions.jsonl');
    const runIds = [
      sessionRunId(key, 'team'),
      sessionRunId(subkey, 'team'),
      projectRunId('moved', 'team'),
    ];
    episodic(from, 'fs', 'export', ...runIds.flatMap((id) => ['--run-id', id]), '-o', file);
    episodic(to, 'sqlite', 'import', file);

    const target = createSqliteStore({ filename: join(to, 'episodic.db') });
    try {
      const moved = new EpisodicSessionStore({ runs: target.runs, scope: 'team' });
      expect(await moved.load(key)).toStrictEqual(expected);
      expect(await moved.load(subkey)).toStrictEqual([
        { type: 'user', uuid: 'u-2', message: { content: 'sub' } },
      ]);
      expect(await moved.listSessionSummaries('moved')).toStrictEqual(summaries);
      expect(await moved.listSubkeys(key)).toEqual(['subagents/agent-1']);
      // u-1 came along as stored: sent again there, it is not stored twice.
      await moved.append(key, [
        { type: 'user', uuid: 'u-1', message: { role: 'user', content: 'hello' } },
      ]);
      expect(await moved.load(key)).toStrictEqual(expected);
    } finally {
      await target.close();
    }
    episodic(to, 'sqlite', 'doctor');
  } finally {
    rmSync(from, { recursive: true, force: true });
    rmSync(to, { recursive: true, force: true });
  }
});
