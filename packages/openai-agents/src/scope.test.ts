// A session with a `scope` is a run of that Episodic scope, as the MCP server's scoped run stores
// see scopes (the header's `scope`, RUN_SCOPE_FIELD): visible in its scope, missing in any other.
import { createMemoryRunStore } from '@episodic/core';
import { createScopedRunView, RUN_SCOPE_FIELD, scopeOfRun } from '@episodic/mcp';
import { expect, it } from 'vitest';
import { EpisodicSession } from './episodic-session.js';

it('stamps the scope the MCP server reads; other scopes do not see the session', async () => {
  const runs = createMemoryRunStore();
  const session = new EpisodicSession({ runs, sessionId: 'chat', scope: 'Team One' });
  await session.addItems([{ role: 'user', content: 'hello' }]);
  const read = await runs.read(session.runId);
  expect(RUN_SCOPE_FIELD).toBe('scope');
  expect(scopeOfRun(read)).toBe('team-one');
  const mine = createScopedRunView({ runs, scope: 'team-one' });
  const theirs = createScopedRunView({ runs, scope: 'team-two' });
  expect(await mine.readVisible(session.runId)).not.toBeNull();
  expect(await theirs.readVisible(session.runId)).toBeNull();
  // The same session id in another scope is another history.
  const other = new EpisodicSession({ runs, sessionId: 'chat', scope: 'team-two' });
  expect(await other.getItems()).toEqual([]);
  // A session without a scope is in the default scope.
  const unscoped = new EpisodicSession({ runs, sessionId: 'chat' });
  await unscoped.addItems([{ role: 'user', content: 'default' }]);
  expect(scopeOfRun(await runs.read(unscoped.runId))).toBe('default');
  await runs.close();
});

it('works on a scoped run view too (the view stamps the scope), with the scope option for the id', async () => {
  const runs = createMemoryRunStore();
  const view = createScopedRunView({ runs, scope: 'team-one' });
  const session = new EpisodicSession({ runs: view.runs, sessionId: 'chat', scope: 'team-one' });
  await session.addItems([{ role: 'user', content: 'via the view' }]);
  await session.popItem();
  await session.addItems([{ role: 'user', content: 'kept' }]);
  expect(scopeOfRun(await runs.read(session.runId))).toBe('team-one');
  const resumed = new EpisodicSession({ runs: view.runs, sessionId: 'chat', scope: 'team-one' });
  expect(await resumed.getItems()).toEqual([{ role: 'user', content: 'kept' }]);
  // Another scope's view cannot read it.
  const theirs = createScopedRunView({ runs, scope: 'team-two' });
  const intruder = new EpisodicSession({ runs: theirs.runs, sessionId: 'chat', scope: 'team-one' });
  await expect(intruder.getItems()).resolves.toEqual([]);
  await expect(intruder.addItems([{ role: 'user', content: 'no' }])).rejects.toThrow(
    /exists but this run store cannot read it/,
  );
  expect(await resumed.getItems()).toEqual([{ role: 'user', content: 'kept' }]);
  await runs.close();
});
