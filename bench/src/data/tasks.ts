import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTaskLifecycle, type TaskLifecycle } from '@episodic/core';
import { TASK_STEP_EVENT } from '@episodic/core/schemas';
import { type EpisodicStores, openEpisodicStores } from '@episodic/home';
import {
  bindScope,
  createEpisodicTools,
  createScopedArtifactStore,
  createScopedRunView,
  type EpisodicTools,
} from '@episodic/mcp';
import { asciiProse, createRandom } from './text.js';

/** Where the task rows keep task episodes: run files under the home, or the SQLite database. */
export type TaskBackend = 'fs' | 'sqlite';

export const TASK_BACKENDS: readonly TaskBackend[] = ['fs', 'sqlite'];

/** What each backend's rows name as their durability mode. */
export const TASK_DURABILITY: Record<TaskBackend, { mode: string; text: string }> = {
  fs: {
    mode: "fs 'run', unsynced",
    text: "run files under the home, fs store durability 'run' (the default): a step is written at once and synced when the run ends",
  },
  sqlite: {
    mode: 'WAL NORMAL',
    text: 'runs in the SQLite database, WAL with synchronous=NORMAL (the default): a step survives a process crash',
  },
};

/** The scope the task rows' tools are bound to. */
const TASK_SCOPE = 'bench';

/**
 * The Episodic MCP tools of one scope over the stores of a fresh home, exactly as `episodic-mcp
 * --home <dir>` opens them (`openEpisodicStores`, `createEpisodicTools`) minus the stdio transport.
 */
export interface TaskTools {
  readonly backend: TaskBackend;
  readonly stores: EpisodicStores;
  readonly tools: EpisodicTools;
  /**
   * The task lifecycle as the tools build theirs (the scope's run view and artifacts), for what
   * the tools do not offer: `get_episode_timeline` takes no `offset`/`limit` (the lifecycle does).
   * One instance per `TaskTools`, separate from the tools' own.
   */
  readonly lifecycle: TaskLifecycle;
  /** Calls a tool and returns its JSON body; throws with the tool's error text on `isError`. */
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * Other tools (and lifecycle) over the same open stores: a lifecycle and a scope view that have
   * seen nothing yet, like a new server process (without the cost of opening the stores).
   */
  fresh(): TaskTools;
  /** The run file of a task episode (fs homes only). */
  runFile(episodeId: string): string;
  close(): Promise<void>;
}

/** The JSON body of a tool result; throws with its text when it is an error. */
function bodyOf(
  result: Awaited<ReturnType<EpisodicTools['call']>>,
  name: string,
): Record<string, unknown> {
  const text = result.content[0]?.text ?? '';
  if (result.isError === true) throw new Error(`${name} failed: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function wrap(backend: TaskBackend, stores: EpisodicStores, home: string): TaskTools {
  const tools = createEpisodicTools({ stores, scope: TASK_SCOPE });
  const scope = bindScope(TASK_SCOPE);
  const lifecycle = createTaskLifecycle({
    runs: createScopedRunView({ runs: stores.runs, scope }).runs,
    artifacts: createScopedArtifactStore(stores.artifacts, scope),
  });
  const files = new Map<string, string>();
  return {
    backend,
    stores,
    tools,
    lifecycle,
    async call(name, args) {
      return bodyOf(await tools.call(name, args), name);
    },
    fresh: () => wrap(backend, stores, home),
    runFile(episodeId) {
      if (files.size === 0) {
        for (const entry of readdirSync(join(home, 'sessions'), { recursive: true })) {
          const path = String(entry);
          if (path.endsWith('.jsonl')) files.set(path.slice(-42, -6), join(home, 'sessions', path));
        }
      }
      const file = files.get(episodeId);
      if (file === undefined) {
        files.clear();
        throw new Error(`no run file for task ${episodeId} under ${home}`);
      }
      return file;
    },
    close: () => stores.close(),
  };
}

/** Opens the stores of `home` for `backend` as the MCP server does, and its tools. */
export async function openTaskTools(backend: TaskBackend, home: string): Promise<TaskTools> {
  // env: {} so an EPISODIC_HOME / EPISODIC_STORE of the shell cannot redirect the benchmark.
  const stores = await openEpisodicStores({ home, store: backend, env: {} });
  return wrap(backend, stores, home);
}

/** The `add_episode_step` arguments of step `stepNumber`: a tool call with its output (~0.4 KB). */
export type StepArguments = Record<string, unknown> & { step_number: number };

/**
 * Step arguments for steps `1..count`, generated before any timing (flat strings, as a client's
 * parsed JSON hands them in). `episode_id` is filled in per call.
 */
export function stepArguments(count: number, seed = 7): StepArguments[] {
  const random = createRandom(seed);
  return Array.from({ length: count }, (_, index) => ({
    step_number: index + 1,
    tool: 'read_file',
    action: asciiProse(random, 80),
    parameters: { path: `src/module-${index % 40}.ts`, lines: [1, 120] },
    result: { type: 'success', output: asciiProse(random, 220) },
    latency_ms: 5 + (index % 30),
  }));
}

/** The run record the lifecycle stores for a step: what the raw probes write. */
export function stepRecord(
  episodeId: string,
  seq: number,
  step: StepArguments,
): Record<string, unknown> {
  const { step_number, tool, action, parameters, result, latency_ms } = step;
  return {
    type: 'agent.event',
    run_id: episodeId,
    ts: new Date().toISOString(),
    seq,
    event: { type: TASK_STEP_EVENT, step_number, tool, action, parameters, result, latency_ms },
  };
}

/** `create_episode` through the tools: the new task's id. */
export async function createTask(tools: TaskTools, index: number): Promise<string> {
  const body = await tools.call('create_episode', {
    task_description: `benchmark task ${index}: read the modules and summarize them`,
    domain: 'bench',
    task_type: 'analysis',
    complexity: 'moderate',
  });
  return body.episode_id as string;
}

/** `add_episode_step` for `steps` in order (untimed set-up: the task's history). */
export async function addSteps(
  tools: TaskTools,
  episodeId: string,
  steps: readonly StepArguments[],
): Promise<void> {
  for (const step of steps)
    await tools.call('add_episode_step', { ...step, episode_id: episodeId });
}
