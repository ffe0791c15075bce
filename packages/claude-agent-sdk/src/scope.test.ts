// A store with a `scope` keeps its sessions as runs of that Episodic scope, as the MCP server's
// scoped run stores see scopes (the header's `scope`, RUN_SCOPE_FIELD): visible in its scope,
// missing in any other. Without a scope, the run ids and headers are those of earlier versions.
import { createMemoryRunStore, EpisodicError } from '@episodic/core';
import { createScopedRunView, RUN_SCOPE_FIELD, scopeOfRun } from '@episodic/mcp';
import { expect, it } from 'vitest';
import { EpisodicSessionStore } from './episodic-session-store.js';
import { projectRunId, sessionRunId } from './session-records.js';

const key = { projectKey: 'proj', sessionId: 'chat' };
const entry = (uuid: string, text: string) => ({
  type: 'user',
  uuid,
  message: { role: 'user', content: text },
});

it('stamps the scope the MCP server reads on the session and project runs; other scopes do not see them', async () => {
  const runs = createMemoryRunStore();
  const store = new EpisodicSessionStore({ runs, scope: 'Team One' });
  await store.append(key, [entry('u1', 'hello')]);
  await store.append({ ...key, subpath: 'subagents/agent-1' }, [entry('s1', 'sub')]);
  expect(RUN_SCOPE_FIELD).toBe('scope');
  const sessionRun = sessionRunId(key, 'team-one');
  const subRun = sessionRunId({ ...key, subpath: 'subagents/agent-1' }, 'team-one');
  const projectRun = projectRunId(key.projectKey, 'team-one');
  for (const runId of [sessionRun, subRun, projectRun]) {
    expect(scopeOfRun(await runs.read(runId))).toBe('team-one');
  }
  const mine = createScopedRunView({ runs, scope: 'team-one' });
  const theirs = createScopedRunView({ runs, scope: 'team-two' });
  for (const runId of [sessionRun, subRun, projectRun]) {
    expect(await mine.readVisible(runId)).not.toBeNull();
    expect(await theirs.readVisible(runId)).toBeNull();
  }
  // The same key in another scope is another history, with other run ids.
  const other = new EpisodicSessionStore({ runs, scope: 'team-two' });
  expect(await other.load(key)).toBeNull();
  expect(await other.listSessions(key.projectKey)).toEqual([]);
  await other.append(key, [entry('u2', 'elsewhere')]);
  expect((await other.load(key))?.map((stored) => stored.uuid)).toEqual(['u2']);
  expect((await store.load(key))?.map((stored) => stored.uuid)).toEqual(['u1']);
  expect(await store.listSubkeys(key)).toEqual(['subagents/agent-1']);
  expect(await other.listSubkeys(key)).toEqual([]);
  await runs.close();
});

it('gives one key different run ids in two scopes, and the unscoped ids of earlier versions without one', () => {
  const ids = new Set([
    sessionRunId(key),
    sessionRunId(key, 'team-one'),
    sessionRunId(key, 'team-two'),
    projectRunId(key.projectKey),
    projectRunId(key.projectKey, 'team-one'),
    projectRunId(key.projectKey, 'team-two'),
  ]);
  expect(ids.size).toBe(6);
  // The ids an existing home holds (computed by the version before the scope option).
  expect(sessionRunId(key)).toBe('99b490c7-10d9-5b90-9e12-7c0690c95e29');
  expect(projectRunId(key.projectKey)).toBe('4d3ca7bb-3651-5f02-ae6d-cabaaf5b95ca');
});

it('keeps a store without a scope in the default scope, with no scope in its headers', async () => {
  const runs = createMemoryRunStore();
  const store = new EpisodicSessionStore({ runs });
  await store.append(key, [entry('u1', 'default')]);
  const session = await runs.read(sessionRunId(key));
  const project = await runs.read(projectRunId(key.projectKey));
  expect(session.header).not.toHaveProperty('scope');
  expect(project.header).not.toHaveProperty('scope');
  expect(scopeOfRun(session)).toBe('default');
  expect(scopeOfRun(project)).toBe('default');
  await runs.close();
});

it('works on a scoped run view too (the view stamps the scope), with the scope option for the ids', async () => {
  const runs = createMemoryRunStore();
  const view = createScopedRunView({ runs, scope: 'team-one' });
  const store = new EpisodicSessionStore({ runs: view.runs, scope: 'team-one' });
  await store.append(key, [entry('u1', 'via the view')]);
  expect(scopeOfRun(await runs.read(sessionRunId(key, 'team-one')))).toBe('team-one');
  const resumed = new EpisodicSessionStore({ runs: view.runs, scope: 'team-one' });
  expect((await resumed.load(key))?.map((stored) => stored.uuid)).toEqual(['u1']);
  expect((await resumed.listSessions(key.projectKey)).map((s) => s.sessionId)).toEqual(['chat']);
  // Another scope's view cannot read it.
  const theirs = createScopedRunView({ runs, scope: 'team-two' });
  const intruder = new EpisodicSessionStore({ runs: theirs.runs, scope: 'team-one' });
  expect(await intruder.load(key)).toBeNull();
  expect(await intruder.listSessions(key.projectKey)).toEqual([]);
  await runs.close();
});

it('normalizes the scope and rejects one that normalizes to nothing, naming the field', () => {
  const runs = createMemoryRunStore();
  expect(() => new EpisodicSessionStore({ runs, scope: '' })).toThrow(/scope/);
  let error: unknown;
  try {
    new EpisodicSessionStore({ runs, scope: '  ---  ' });
  } catch (caught) {
    error = caught;
  }
  expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
  expect(String((error as Error).message)).toMatch(/scope/i);
  expect(() => new EpisodicSessionStore({ runs, scope: 42 as unknown as string })).toThrow(/scope/);
});
