// Pins "scope isolation: model-based property test over all operations and 3 scopes → 0
// cross-scope results" (QUALITY.md reliability table; research/reliability.md test plan T23, after
// fast-check's `commands` / `asyncModelRun`; DESIGN.md §1 "every read names one [scope]; nothing
// falls back across scopes", §6 "bound to one scope … never returns another scope's data").
// fast-check drives random sequences of up to 50 operations over three scopes against a model:
// every ledger operation (append, batch append, query, replay, cursor paging, redaction by event
// and by session, GC) and every task-episode, artifact and MCP operation (the ten tools of servers
// bound to each scope: create, steps, complete, get, timeline, delete, list_runs, search_patterns,
// memory_episodes_query, replay_session over the ledger and over runs, plus a `scope` argument
// naming another scope). Every read
// must equal the model's view of its own scope exactly; every object of another scope must be
// NOT_FOUND exactly like one that does not exist; and no stored pattern may mix scopes. Backends:
// the real SQLite store (ledger, artifacts, runs) and, in half the runs, store-fs run files.
// 30 runs per `pnpm test`; RELIABILITY_FULL=1 runs 200 (T23). Seeds are logged and replayable.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArtifactStore, Ledger, LedgerEventType } from '@episodic/core';
import { LEDGER_EVENT_TYPES } from '@episodic/core/schemas';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzParameters } from '../__fixtures__/fuzz.js';
import { createEpisodicTools, type EpisodicTools } from '../episodic-tools.js';
import { artifactKeyPrefix } from './scoped-artifact-store.js';

const SCOPES = ['alpha', 'beta', 'gamma'] as const;
type Scope = (typeof SCOPES)[number];
const SESSIONS = ['s1', 's2'] as const;
const DAY = 86_400_000;
const T0 = Date.parse('2026-02-01T00:00:00.000Z');
const RETENTION_DAYS: Record<LedgerEventType, number | null> = {
  'conversation.user': 60,
  'conversation.assistant': 90,
  'tool.call': 20,
  'tool.result': 10,
  'ops.alert': 90,
  'ops.decision': null,
};

/** Session ids task episodes are recorded under, shared by every scope. */
const TASK_SESSIONS = [
  '1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9',
  '2c3d4e5f-6071-4829-93a4-b5c6d7e8f9a0',
] as const;

interface TaskModel {
  id: string;
  scope: Scope;
  session: string | undefined;
  steps: number;
  completed: boolean;
  deleted: boolean;
}
interface EventModel {
  id: string;
  scope: Scope;
  session: string;
  type: LedgerEventType;
  ts: number;
  redacted: boolean;
  deleted: boolean;
}
interface Model {
  tasks: TaskModel[];
  events: EventModel[];
  next: number;
  /** Results of another scope seen by any read (must stay 0). */
  crossScope: number;
}
interface Real {
  tools: Record<Scope, EpisodicTools>;
  ledger: Ledger;
  artifacts: ArtifactStore;
}

const MISSING_TASK = '00000000-0000-4000-8000-000000000000';

// biome-ignore lint/suspicious/noExplicitAny: tool bodies are inspected field by field.
async function call(real: Real, scope: Scope, name: string, args: unknown): Promise<any> {
  const result = await real.tools[scope].call(name, args);
  const body = JSON.parse(result.content[0]?.text as string);
  return { isError: result.isError === true, ...body };
}

const liveTask = (task: TaskModel | undefined) => task !== undefined && !task.deleted;

function pickTask(model: Model, pick: number): TaskModel | undefined {
  return model.tasks.length === 0 ? undefined : model.tasks[pick % model.tasks.length];
}

function pickEvent(model: Model, pick: number): EventModel | undefined {
  const live = model.events.filter((event) => !event.deleted);
  return live.length === 0 ? undefined : live[pick % live.length];
}

/** Expects the exact answer for a task this scope cannot see (or that does not exist). */
function expectTaskNotFound(body: { isError: boolean; code?: string }): void {
  expect(body.isError).toBe(true);
  expect(body.code).toBe('NOT_FOUND');
}

class Operation implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly label: string,
    readonly action: (model: Model, real: Real) => Promise<void>,
  ) {}
  check(): boolean {
    return true;
  }
  run(model: Model, real: Real): Promise<void> {
    return this.action(model, real);
  }
  toString(): string {
    return this.label;
  }
}

const scopeArbitrary = fc.constantFrom(...SCOPES);
const pickArbitrary = fc.nat(1000);

const createTask = fc
  .tuple(
    scopeArbitrary,
    fc.boolean(),
    fc.option(fc.constantFrom(...TASK_SESSIONS), { nil: undefined }),
  )
  .map(
    ([scope, tagged, session]) =>
      new Operation(
        `create_episode(${scope}, ${session?.slice(0, 4) ?? '-'})`,
        async (model, real) => {
          const body = await call(real, scope, 'create_episode', {
            task_description: `task ${model.next++} of ${scope}`,
            domain: 'web-api',
            task_type: 'code_generation',
            ...(tagged ? { metadata: { tenant: scope } } : {}),
            ...(session === undefined ? {} : { session_id: session }),
          });
          expect(body.isError).toBe(false);
          model.tasks.push({
            id: body.episode_id,
            scope,
            session,
            steps: 0,
            completed: false,
            deleted: false,
          });
        },
      ),
  );

const addStep = fc.tuple(scopeArbitrary, pickArbitrary, fc.boolean()).map(
  ([scope, pick, failed]) =>
    new Operation(`add_episode_step(${scope}, #${pick})`, async (model, real) => {
      const task = pickTask(model, pick);
      const body = await call(real, scope, 'add_episode_step', {
        episode_id: task?.id ?? MISSING_TASK,
        step_number: (task?.steps ?? 0) + 1,
        tool: failed ? 'coder' : 'planner',
        action: failed ? 'Check whether redis is up' : 'Plan the change',
        result: failed
          ? { type: 'error', message: 'redis down' }
          : { type: 'success', output: 'ok' },
      });
      if (task === undefined || !liveTask(task) || task.scope !== scope) {
        if (task !== undefined && task.scope !== scope) model.crossScope += body.isError ? 0 : 1;
        return expectTaskNotFound(body);
      }
      if (task.completed) {
        expect(body.code).toBe('CONFLICT');
        return;
      }
      expect(body.isError).toBe(false);
      task.steps++;
    }),
);

const completeTask = fc.tuple(scopeArbitrary, pickArbitrary).map(
  ([scope, pick]) =>
    new Operation(`complete_episode(${scope}, #${pick})`, async (model, real) => {
      const task = pickTask(model, pick);
      const body = await call(real, scope, 'complete_episode', {
        episode_id: task?.id ?? MISSING_TASK,
        outcome_type: 'success',
        verdict: 'done',
      });
      if (task === undefined || !liveTask(task) || task.scope !== scope) {
        if (task !== undefined && task.scope !== scope) model.crossScope += body.isError ? 0 : 1;
        return expectTaskNotFound(body);
      }
      if (task.completed) {
        // The same completion again: the stored result, marked as a duplicate.
        expect(body.isError).toBe(false);
        expect(body.duplicate).toBe(true);
        return;
      }
      expect(body.isError).toBe(false);
      expect(body.duplicate).toBe(false);
      task.completed = true;
    }),
);

const readTask = fc.tuple(scopeArbitrary, pickArbitrary, fc.boolean()).map(
  ([scope, pick, timeline]) =>
    new Operation(
      `${timeline ? 'get_episode_timeline' : 'get_episode'}(${scope}, #${pick})`,
      async (model, real) => {
        const task = pickTask(model, pick);
        const body = await call(real, scope, timeline ? 'get_episode_timeline' : 'get_episode', {
          episode_id: task?.id ?? MISSING_TASK,
        });
        if (task === undefined || !liveTask(task) || task.scope !== scope) {
          if (task !== undefined && task.scope !== scope) model.crossScope += body.isError ? 0 : 1;
          return expectTaskNotFound(body);
        }
        expect(body.isError).toBe(false);
        const steps = timeline ? body.timeline : body.episode.steps;
        expect(steps).toHaveLength(task.steps);
      },
    ),
);

const deleteTask = fc.tuple(scopeArbitrary, pickArbitrary).map(
  ([scope, pick]) =>
    new Operation(`delete_episode(${scope}, #${pick})`, async (model, real) => {
      const task = pickTask(model, pick);
      const body = await call(real, scope, 'delete_episode', {
        episode_id: task?.id ?? MISSING_TASK,
        confirm: true,
      });
      if (task === undefined || !liveTask(task) || task.scope !== scope) {
        if (task !== undefined && task.scope !== scope) model.crossScope += body.isError ? 0 : 1;
        return expectTaskNotFound(body);
      }
      expect(body.isError).toBe(false);
      task.deleted = true;
    }),
);

const listRuns = scopeArbitrary.map(
  (scope) =>
    new Operation(`list_runs(${scope})`, async (model, real) => {
      const body = await call(real, scope, 'list_runs', { limit: 100 });
      expect(body.isError).toBe(false);
      const ids: string[] = body.runs.map((run: { run_id: string }) => run.run_id);
      const byId = new Map(model.tasks.map((task) => [task.id, task]));
      model.crossScope += ids.filter((id) => byId.get(id)?.scope !== scope).length;
      const expected = model.tasks
        .filter((task) => task.scope === scope && !task.deleted)
        .map((task) => task.id);
      expect([...ids].sort()).toEqual([...expected].sort());
    }),
);

const replayRuns = fc.tuple(scopeArbitrary, fc.constantFrom(...TASK_SESSIONS)).map(
  ([scope, session]) =>
    new Operation(
      `replay_session(${scope}, runs of ${session.slice(0, 4)})`,
      async (model, real) => {
        const body = await call(real, scope, 'replay_session', {
          session_id: session,
          source: 'runs',
          max_runs: 50,
        });
        expect(body.isError).toBe(false);
        const byId = new Map(model.tasks.map((task) => [task.id, task]));
        const ids: string[] = body.run_ids;
        model.crossScope += ids.filter((id) => byId.get(id)?.scope !== scope).length;
        const expected = model.tasks
          .filter((task) => task.scope === scope && task.session === session && !task.deleted)
          .map((task) => task.id);
        expect([...ids].sort()).toEqual([...expected].sort());
      },
    ),
);

const searchPatterns = scopeArbitrary.map(
  (scope) =>
    new Operation(`search_patterns(${scope})`, async (model, real) => {
      const body = await call(real, scope, 'search_patterns', { limit: 50 });
      expect(body.isError).toBe(false);
      const mine = new Set(
        model.tasks
          .filter((task) => task.scope === scope && task.completed && !task.deleted)
          .map((task) => task.id),
      );
      for (const pattern of body.patterns as Array<{ episode_ids: string[]; key: string }>) {
        expect(pattern.key.startsWith('scope=')).toBe(false);
        for (const id of pattern.episode_ids) if (!mine.has(id)) model.crossScope++;
      }
    }),
);

const ledgerAppend = fc
  .tuple(
    scopeArbitrary,
    fc.constantFrom(...SESSIONS),
    fc.constantFrom(...LEDGER_EVENT_TYPES),
    fc.nat(60),
    fc.integer({ min: 1, max: 3 }),
  )
  .map(
    ([scope, session, type, days, size]) =>
      new Operation(
        `ledger.append(${scope}, ${session}, ${type}, ×${size})`,
        async (model, real) => {
          const events = Array.from({ length: size }, () => ({
            id: `ev-${model.next++}`,
            scope,
            session,
            type,
            ts: T0 - days * DAY,
            redacted: false,
            deleted: false,
          }));
          const input = events.map((event) => ({
            event_id: event.id,
            scope: event.scope,
            session_id: event.session,
            agent_id: 'agent',
            type: event.type,
            summary: `${event.type} in ${event.scope}`,
            ts_ms: event.ts,
            refs: { scope: event.scope },
          }));
          if (size === 1) await real.ledger.append(input[0] as (typeof input)[number]);
          else await real.ledger.appendBatch(input);
          model.events.push(...events);
        },
      ),
  );

/** Every page of a tool's event list (it pages by `next_after_id`). */
async function allToolEvents(
  real: Real,
  scope: Scope,
  name: 'memory_episodes_query' | 'replay_session',
  args: Record<string, unknown>,
): Promise<Array<{ event_id: string; redacted: boolean; session_id?: string }>> {
  const events: Array<{ event_id: string; redacted: boolean }> = [];
  let after: string | undefined;
  for (let page = 0; page < 50; page++) {
    const cursor =
      after === undefined
        ? {}
        : name === 'replay_session'
          ? { after_id: after }
          : { afterId: after };
    const body = await call(real, scope, name, { ...args, limit: 200, ...cursor });
    expect(body.isError, JSON.stringify(body)).toBe(false);
    events.push(...body.events);
    if (body.next_after_id === null) return events;
    after = body.next_after_id;
  }
  throw new Error('too many pages');
}

function checkEvents(
  model: Model,
  scope: Scope,
  session: string | undefined,
  events: Array<{ event_id: string; redacted: boolean }>,
): void {
  const byId = new Map(model.events.map((event) => [event.id, event]));
  model.crossScope += events.filter((event) => byId.get(event.event_id)?.scope !== scope).length;
  const expected = model.events
    .filter(
      (event) =>
        event.scope === scope &&
        !event.deleted &&
        (session === undefined || event.session === session),
    )
    .map((event) => event.id);
  expect(events.map((event) => event.event_id).sort()).toEqual([...expected].sort());
  for (const event of events) expect(event.redacted).toBe(byId.get(event.event_id)?.redacted);
}

const ledgerRead = fc
  .tuple(scopeArbitrary, fc.option(fc.constantFrom(...SESSIONS), { nil: undefined }), fc.nat(2))
  .map(
    ([scope, session, how]) =>
      new Operation(`read(${scope}, ${session ?? '*'}, ${how})`, async (model, real) => {
        if (how === 0) {
          const args = session === undefined ? {} : { sessionId: session };
          checkEvents(
            model,
            scope,
            session,
            await allToolEvents(real, scope, 'memory_episodes_query', args),
          );
        } else if (how === 1 && session !== undefined) {
          const events = await allToolEvents(real, scope, 'replay_session', {
            session_id: session,
          });
          checkEvents(model, scope, session, events);
        } else {
          const page = await real.ledger.query({
            scope,
            limit: 500,
            ...(session === undefined ? {} : { sessionId: session }),
          });
          expect(page.next_after_id).toBeNull();
          for (const event of page.events) expect(event.scope).toBe(scope);
          checkEvents(model, scope, session, page.events);
        }
      }),
  );

const crossCursor = fc.tuple(scopeArbitrary, pickArbitrary).map(
  ([scope, pick]) =>
    new Operation(`cursor(${scope}, #${pick})`, async (model, real) => {
      const event = pickEvent(model, pick);
      if (event === undefined) return;
      const body = await call(real, scope, 'memory_episodes_query', { afterId: event.id });
      if (event.scope === scope) {
        expect(body.isError).toBe(false);
        return;
      }
      // A cursor from another scope says nothing about that scope: the same answer as an unknown id.
      expect(body.code).toBe('NOT_FOUND');
      const missing = await call(real, scope, 'memory_episodes_query', {
        afterId: 'no-such-event',
      });
      expect(body.error.replace(event.id, 'X')).toBe(missing.error.replace('no-such-event', 'X'));
    }),
);

const foreignScopeArgument = fc.tuple(scopeArbitrary, scopeArbitrary).map(
  ([scope, other]) =>
    new Operation(`scope argument(${scope} → ${other})`, async (_model, real) => {
      const body = await call(real, scope, 'memory_episodes_query', { scope: other });
      if (other === scope) expect(body.isError).toBe(false);
      else expect(body.code).toBe('VALIDATION_ERROR');
    }),
);

const redactEvent = fc.tuple(scopeArbitrary, pickArbitrary).map(
  ([scope, pick]) =>
    new Operation(`ledger.redact(${scope}, event #${pick})`, async (model, real) => {
      const event = pickEvent(model, pick);
      if (event === undefined) return;
      let code: string | undefined;
      try {
        await real.ledger.redact({ scope, eventId: event.id });
      } catch (error) {
        code = (error as { code?: string }).code;
      }
      if (event.scope === scope) {
        expect(code).toBeUndefined();
        event.redacted = true;
      } else expect(code).toBe('NOT_FOUND');
    }),
);

const redactSession = fc.tuple(scopeArbitrary, fc.constantFrom(...SESSIONS)).map(
  ([scope, session]) =>
    new Operation(`ledger.redact(${scope}, session ${session})`, async (model, real) => {
      const receipt = await real.ledger.redact({ scope, sessionId: session });
      const mine = model.events.filter(
        (event) => event.scope === scope && event.session === session && !event.deleted,
      );
      expect(receipt.redacted_count).toBe(mine.length);
      for (const event of mine) event.redacted = true;
    }),
);

const gc = fc.tuple(scopeArbitrary, fc.boolean()).map(
  ([scope, dryRun]) =>
    new Operation(`ledger.gc(${scope}${dryRun ? ', dry run' : ''})`, async (model, real) => {
      const receipt = await real.ledger.gc({
        scope,
        nowMs: T0,
        dryRun,
        policy: { 'tool.call': 20, 'tool.result': 10 },
      });
      const expired = model.events.filter((event) => {
        const days = RETENTION_DAYS[event.type];
        return (
          event.scope === scope && !event.deleted && days !== null && event.ts < T0 - days * DAY
        );
      });
      expect(receipt.deleted_total).toBe(expired.length);
      if (!dryRun) for (const event of expired) event.deleted = true;
    }),
);

const commands = fc.commands(
  [
    createTask,
    createTask,
    addStep,
    addStep,
    completeTask,
    readTask,
    deleteTask,
    listRuns,
    replayRuns,
    searchPatterns,
    ledgerAppend,
    ledgerAppend,
    ledgerRead,
    crossCursor,
    foreignScopeArgument,
    redactEvent,
    redactSession,
    gc,
  ],
  { maxCommands: 50, size: 'large' },
);

/** Every stored artifact: its episodes all come from one scope, and its key carries that scope. */
async function checkArtifacts(model: Model, artifacts: ArtifactStore): Promise<void> {
  const scopeOf = new Map(model.tasks.map((task) => [`task:${task.id}`, task.scope]));
  let afterKey: string | undefined;
  for (;;) {
    const page = await artifacts.list({
      limit: 500,
      ...(afterKey === undefined ? {} : { afterKey }),
    });
    for (const artifact of page.artifacts) {
      const scopes = new Set(artifact.episodes.map((episode) => scopeOf.get(episode)));
      expect(scopes.size, artifact.key).toBe(1);
      const [scope] = [...scopes] as [Scope];
      expect(artifact.key.startsWith(artifactKeyPrefix(scope)), artifact.key).toBe(true);
    }
    if (page.nextKey === null) return;
    afterKey = page.nextKey;
  }
}

describe('scope isolation (model-based, three scopes)', () => {
  it('never returns, changes or reveals another scope’s data over any sequence of operations', async () => {
    const parameters = fuzzParameters('scope isolation', 100, 500);
    let operations = 0;
    const counts = { tasks: 0, completed: 0, events: 0 };
    await fc.assert(
      fc.asyncProperty(commands, fc.boolean(), async (sequence, fsRuns) => {
        const sqlite = createSqliteStore({ filename: ':memory:' });
        const directory = fsRuns ? mkdtempSync(join(tmpdir(), 'episodic-scope-')) : undefined;
        const fs =
          directory === undefined
            ? undefined
            : createFsStore({ root: directory, durability: 'none' });
        try {
          const stores = {
            ledger: sqlite.ledger,
            runs: fs?.runs ?? sqlite.runs,
            artifacts: sqlite.artifacts,
          };
          const tools = Object.fromEntries(
            SCOPES.map((scope) => [scope, createEpisodicTools({ stores, scope })]),
          ) as Record<Scope, EpisodicTools>;
          const model: Model = { tasks: [], events: [], next: 0, crossScope: 0 };
          const real: Real = { tools, ledger: sqlite.ledger, artifacts: sqlite.artifacts };
          await fc.asyncModelRun(() => ({ model, real }), sequence);
          operations += [...sequence].length;
          counts.tasks += model.tasks.length;
          counts.completed += model.tasks.filter((task) => task.completed).length;
          counts.events += model.events.length;
          expect(model.crossScope).toBe(0);
          await checkArtifacts(model, sqlite.artifacts);
        } finally {
          await fs?.close();
          await sqlite.close();
          if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
        }
      }),
      parameters,
    );
    if (parameters.path === undefined) {
      console.log(`[scope isolation] ${operations} operations, ${JSON.stringify(counts)}`);
      expect(operations).toBeGreaterThan(parameters.numRuns * 10);
      expect(counts.completed).toBeGreaterThan(0);
    }
  }, 900_000);
});
