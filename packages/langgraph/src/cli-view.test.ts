// A LangGraph thread kept by EpisodicSaver shows in the `episodic` CLI like any run: `runs list`
// lists it, `runs show` prints each checkpoint and each task's writes on one line (their summary).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { EpisodicSaver, threadRunId } from './episodic-saver.js';

const bin = join(
  dirname(createRequire(import.meta.url).resolve('@episodic/cli/package.json')),
  'dist/bin/episodic.js',
);

function episodic(home: string, store: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [bin, '--home', home, '--store', store, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', EPISODIC_HOME: undefined },
    timeout: 120_000,
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

const State = Annotation.Root({
  notes: Annotation<string[]>({ reducer: (all, added) => all.concat(added), default: () => [] }),
});

describe.each(['fs', 'sqlite'] as const)('a LangGraph thread in the CLI (%s store)', (kind) => {
  it('is listed by `runs list` and its records are described by `runs show`', async () => {
    expect(existsSync(bin), `build @episodic/cli first (${bin})`).toBe(true);
    const home = mkdtempSync(join(tmpdir(), 'episodic-langgraph-cli-'));
    try {
      const store =
        kind === 'fs'
          ? createFsStore({ root: home })
          : createSqliteStore({ filename: join(home, 'episodic.db') });
      const graph = new StateGraph(State)
        .addNode('note', (state) => ({ notes: [`note ${state.notes.length + 1}`] }))
        .addEdge(START, 'note')
        .addEdge('note', END)
        .compile({ checkpointer: new EpisodicSaver({ runs: store.runs }) });
      const config = { configurable: { thread_id: 'cli-thread' } };
      await graph.invoke({ notes: ['hello'] }, config);
      await graph.invoke({ notes: ['again'] }, config);
      await store.close();

      const runId = threadRunId('cli-thread');
      expect(episodic(home, kind, 'runs', 'list')).toContain(runId);
      const shown = episodic(home, kind, 'runs', 'show', runId);
      expect(shown).toMatch(
        /x\.langgraph\.checkpoint\s+step -1 \(input\): __start__ \[checkpoint /,
      );
      expect(shown).toMatch(/x\.langgraph\.checkpoint\s+step 1 \(loop\): notes \+1 \[checkpoint /);
      expect(shown).toMatch(/x\.langgraph\.writes\s+notes, branch:to:note ← task /);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
