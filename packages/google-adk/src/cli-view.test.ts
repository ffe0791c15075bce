// An ADK session kept by EpisodicSessionService shows in the `episodic` CLI like any run: `runs list`
// lists it, `runs show` prints each event on one line (author, text or calls, state keys written),
// `doctor` finds nothing wrong, and `export` then `import` into an empty home of the other kind
// carries the session, its user state and its app state over: it resumes there deep-equal.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { createEvent, createEventActions } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { EpisodicSessionService } from './episodic-session-service.js';
import { appRunId, sessionRunId, userRunId } from './session-records.js';

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

describe.each(['fs', 'sqlite'] as const)('an ADK session in the CLI (%s store)', (kind) => {
  it('is listed and shown by `runs`, passes `doctor`, and moves to another home by `export`/`import`', async () => {
    expect(existsSync(bin), `build @episodic/cli first (${bin})`).toBe(true);
    const home = mkdtempSync(join(tmpdir(), 'episodic-google-adk-cli-'));
    const other = mkdtempSync(join(tmpdir(), 'episodic-google-adk-import-'));
    try {
      const store =
        kind === 'fs'
          ? createFsStore({ root: home })
          : createSqliteStore({ filename: join(home, 'episodic.db') });
      const service = new EpisodicSessionService({ runs: store.runs });
      const key = { appName: 'weather', userId: 'ada', sessionId: 'session-1' };
      const session = await service.createSession(key);
      await service.appendEvent({
        session,
        event: createEvent({
          author: 'user',
          content: { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        }),
      });
      await service.appendEvent({
        session,
        event: createEvent({
          author: 'forecaster',
          content: {
            role: 'model',
            parts: [{ text: 'Checking.' }, { functionCall: { name: 'get_weather', args: {} } }],
          },
          actions: createEventActions({ stateDelta: { city: 'Paris', 'user:home': 'Lyon' } }),
        }),
      });
      const written = await service.getSession(key);
      await store.close();

      const runId = sessionRunId(key.appName, key.userId, key.sessionId);
      const listed = episodic(home, kind, 'runs', 'list');
      expect(listed).toContain(runId);
      expect(listed).toContain(userRunId(key.appName, key.userId));
      const shown = episodic(home, kind, 'runs', 'show', runId);
      expect(shown).toMatch(/x\.google_adk\.session\s+session session-1 of ada in weather/);
      expect(shown).toMatch(/x\.google_adk\.event\s+user: Weather in Paris\?/);
      expect(shown).toMatch(
        /x\.google_adk\.event\s+forecaster: Checking\. \[call get_weather\] \{city, user:home\}/,
      );
      episodic(home, kind, 'doctor');

      const file = join(other, 'export.jsonl');
      const runIds = [runId, userRunId(key.appName, key.userId), appRunId(key.appName)];
      episodic(home, kind, 'export', ...runIds.flatMap((id) => ['--run-id', id]), '-o', file);
      const otherKind = kind === 'fs' ? 'sqlite' : 'fs';
      episodic(other, otherKind, 'import', file);
      const imported =
        otherKind === 'fs'
          ? createFsStore({ root: other })
          : createSqliteStore({ filename: join(other, 'episodic.db') });
      try {
        const resumed = await new EpisodicSessionService({ runs: imported.runs }).getSession(key);
        expect(resumed).toEqual(written);
        expect(resumed?.state).toEqual({ city: 'Paris', 'user:home': 'Lyon' });
      } finally {
        await imported.close();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(other, { recursive: true, force: true });
    }
  });
});
