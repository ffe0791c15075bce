/**
 * A FIFO, a directory or a socket where the store expects a regular file is reported as
 * `CORRUPT_DATA` (or as one listing error), never opened in a way that blocks. Each case runs the
 * BUILT store (`dist`) in a child process under a kill timer, so a read that blocks fails the test
 * saying so instead of hanging the worker.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';

const DIST = new URL('../dist/index.js', import.meta.url).href;
const RUN_ID = '0f0e0d0c-0b0a-4908-8706-000000000001';
const SESSION_ID = '4d5e6f70-8192-4a3b-8c4d-5e6f708192a3';
const KILL_AFTER_MS = 30_000;

const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function root(): string {
  const directory = temporaryDirectory();
  cleanups.push(() => directory.remove());
  return directory.path;
}

function mkfifo(path: string): void {
  const result = spawnSync('/usr/bin/mkfifo', [path]);
  expect(result.status, String(result.stderr)).toBe(0);
}

/**
 * Runs `body` (an async function body with `store` in scope) against the store at `home` in a
 * child process; returns what it printed as JSON.
 */
function inChild(home: string, body: string): Record<string, unknown> {
  const script = `
import { createFsStore } from ${JSON.stringify(DIST)};
const store = createFsStore({ root: ${JSON.stringify(home)}, durability: 'none' });
const attempt = async (call) => {
  try { return { ok: await call() }; } catch (error) { return { code: error.code, message: error.message }; }
};
const result = await (async () => { ${body} })();
await store.close();
process.stdout.write(JSON.stringify(result));
`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: KILL_AFTER_MS,
    killSignal: 'SIGKILL',
    cwd: fileURLToPath(new URL('..', import.meta.url)),
  });
  expect(child.signal, `the store call did not return by itself: ${body}`).toBeNull();
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout) as Record<string, unknown>;
}

describe('non-regular files in place of store files', () => {
  it('a FIFO run file: read, readAfter, tail and append are CORRUPT_DATA; list reports one error', () => {
    const home = root();
    const day = join(home, 'sessions', '2026', '02', '03');
    fs.mkdirSync(day, { recursive: true });
    mkfifo(join(day, `${RUN_ID}.jsonl`));
    const result = inChild(
      home,
      `return {
        read: await attempt(() => store.runs.read(${JSON.stringify(RUN_ID)})),
        readAfter: await attempt(() => store.runs.readAfter(${JSON.stringify(RUN_ID)}, 0)),
        tail: await attempt(() => store.runs.tail(${JSON.stringify(RUN_ID)}, { count: 5 })),
        append: await attempt(() => store.runs.append(${JSON.stringify(RUN_ID)}, [{ type: 'agent.event', run_id: ${JSON.stringify(RUN_ID)}, ts: '2026-02-03T12:00:01.000Z', seq: 1, event: { type: 'text', content: 'x' } }])),
        list: await attempt(() => store.runs.list()),
      };`,
    );
    for (const call of ['read', 'readAfter', 'tail', 'append']) {
      expect(result[call], call).toMatchObject({
        code: 'CORRUPT_DATA',
        message: expect.stringContaining('FIFO (named pipe)'),
      });
    }
    expect(result.list).toMatchObject({
      ok: { runs: [], errors: [expect.objectContaining({ runId: RUN_ID })] },
    });
  });

  it('a FIFO or a directory as a session base or its deltas: load and commit are CORRUPT_DATA', () => {
    const cases = [
      { name: `${SESSION_ID}.json`, make: mkfifo, type: 'FIFO' },
      { name: `${SESSION_ID}.deltas.jsonl`, make: mkfifo, type: 'FIFO' },
      {
        name: `${SESSION_ID}.deltas.jsonl`,
        make: (path: string) => fs.mkdirSync(path),
        type: 'directory',
      },
    ];
    for (const { name, make, type } of cases) {
      const home = root();
      const state = join(home, 'sessions', 'state');
      fs.mkdirSync(state, { recursive: true });
      fs.writeFileSync(
        join(state, `${SESSION_ID}.json`),
        `${JSON.stringify({ schema_version: 1, session_id: SESSION_ID, updated_at: '2026-02-03T12:00:00.000Z', messages: [], revision: 1 })}\n`,
      );
      fs.rmSync(join(state, name), { force: true });
      make(join(state, name));
      const result = inChild(
        home,
        `return {
          load: await attempt(() => store.sessions.load(${JSON.stringify(SESSION_ID)})),
          commit: await attempt(() => store.sessions.save({ schema_version: 1, session_id: ${JSON.stringify(SESSION_ID)}, updated_at: '2026-02-03T12:00:01.000Z', messages: [], revision: 2 }, { expectedRevision: 1 })),
        };`,
      );
      expect(result.load, `${name} as a ${type}`).toMatchObject({
        code: 'CORRUPT_DATA',
        message: expect.stringContaining(type),
      });
      expect(result.commit, `${name} as a ${type}`).toMatchObject({ code: expect.any(String) });
      expect((result.commit as { code: string }).code).not.toBe('INTERNAL_ERROR');
    }
  });

  it('a FIFO in place of a cached tool output is CORRUPT_DATA', () => {
    const home = root();
    const outputs = join(home, 'cache', 'tool-output');
    fs.mkdirSync(outputs, { recursive: true });
    mkfifo(join(outputs, 'out-1.txt'));
    const result = inChild(home, `return await attempt(() => store.readToolOutput('out-1'));`);
    expect(result).toMatchObject({ code: 'CORRUPT_DATA' });
  });
});
