import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type {
  AddStepInput,
  CompleteTaskInput,
  CreateTaskInput,
  TaskEpisode,
  TaskTimeline,
} from '@episodic/core';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { DEMO_VERSION } from './version.js';

/** One step as the agent reports it (the tracker numbers the steps). */
export type TaskStepReport = Omit<AddStepInput, 'episode_id' | 'step_number'>;

/** A tool call's outcome: its JSON body, or the server's error. */
export interface ToolCallOutcome {
  readonly isError: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: MCP results are JSON read field by field.
  readonly body: any;
}

/** Tracks one task episode through the Episodic MCP server, over stdio. */
export interface TaskTracker {
  /** The task episode id (`episode_id`). */
  readonly episodeId: string;
  /** The command line of the server process. */
  readonly serverCommand: readonly string[];
  /** How many tool calls of each kind were sent. */
  readonly calls: Readonly<Record<string, number>>;
  /** Records the next step (`add_episode_step`); resolves to its step number. */
  step(step: TaskStepReport): Promise<number>;
  /** Completes the task (`complete_episode`): the server computes reward, reflection and patterns. */
  complete(
    outcome: DistributiveOmit<CompleteTaskInput, 'episode_id'>,
  ): Promise<ToolCallOutcome['body']>;
  /** `get_episode`. */
  episode(): Promise<TaskEpisode>;
  /** `get_episode_timeline`. */
  timeline(): Promise<TaskTimeline>;
  /** Calls any tool of the server, returning errors as data (for checks). */
  call(name: string, args: Record<string, unknown>): Promise<ToolCallOutcome>;
  /** Closes the connection and stops the server. */
  close(): Promise<void>;
}

type DistributiveOmit<Type, Key extends PropertyKey> = Type extends unknown
  ? Omit<Type, Key>
  : never;

/** Options of `startTaskTracker`. */
export interface TaskTrackerOptions {
  /** The Episodic home the server opens (`--home`). */
  readonly home: string;
  /** The scope the server is bound to (`--scope`). */
  readonly scope: string;
  /** The task to create (`create_episode`). */
  readonly task: CreateTaskInput;
}

/** The path of the `episodic-mcp` bin, from the `@episodic/mcp` package's `bin` field. */
export function resolveMcpBin(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@episodic/mcp/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    bin?: Record<string, string>;
  };
  const bin = manifest.bin?.['episodic-mcp'];
  if (bin === undefined) {
    throw new Error(`@episodic/mcp (${manifestPath}) declares no "episodic-mcp" bin.`);
  }
  return resolve(dirname(manifestPath), bin);
}

/**
 * Starts the Episodic MCP server as a child process (stdio, run files under the home), connects
 * the official MCP client and creates the task episode.
 */
export async function startTaskTracker(options: TaskTrackerOptions): Promise<TaskTracker> {
  const bin = resolveMcpBin();
  const args = [bin, '--home', options.home, '--scope', options.scope, '--store', 'fs'];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(chunk.toString('utf8'));
  });
  const client = new Client({ name: '@episodic/demo', version: DEMO_VERSION });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(
      `Could not start the Episodic MCP server (${process.execPath} ${args.join(' ')}): ${error instanceof Error ? error.message : String(error)}${stderr.length > 0 ? `\n${stderr.join('').trim()}` : ''}\nBuild it with: pnpm --filter @episodic/mcp build`,
    );
  }
  const calls: Record<string, number> = {};

  const call = async (
    name: string,
    toolArguments: Record<string, unknown>,
  ): Promise<ToolCallOutcome> => {
    calls[name] = (calls[name] ?? 0) + 1;
    const result = await client.callTool({ name, arguments: toolArguments });
    const block = (result.content as Array<{ type: string; text?: string }> | undefined)?.[0];
    const text = block?.type === 'text' ? (block.text ?? '') : '';
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // A plain-text body (e.g. a protocol-level message) is returned as it is.
    }
    return { isError: result.isError === true, body };
  };
  const required = async (name: string, toolArguments: Record<string, unknown>) => {
    const outcome = await call(name, toolArguments);
    if (outcome.isError) {
      const { error, code } = (outcome.body ?? {}) as { error?: string; code?: string };
      throw new Error(
        `MCP ${name} failed${code ? ` (${code})` : ''}: ${error ?? JSON.stringify(outcome.body)}`,
      );
    }
    return outcome.body;
  };

  let created: { episode_id: string };
  try {
    created = await required('create_episode', options.task as Record<string, unknown>);
  } catch (error) {
    await client.close();
    throw error;
  }
  const episodeId = created.episode_id;
  let stepNumber = 0;
  let queue: Promise<unknown> = Promise.resolve();
  // Steps are sent one at a time, in order: step numbers must increase.
  const serialized = <Result>(task: () => Promise<Result>): Promise<Result> => {
    const next = queue.then(task);
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    episodeId,
    serverCommand: [process.execPath, ...args],
    calls,
    step: (step) =>
      serialized(async () => {
        stepNumber += 1;
        await required('add_episode_step', {
          ...step,
          episode_id: episodeId,
          step_number: stepNumber,
        });
        return stepNumber;
      }),
    complete: (outcome) =>
      serialized(() => required('complete_episode', { ...outcome, episode_id: episodeId })),
    episode: async () =>
      ((await required('get_episode', { episode_id: episodeId })) as { episode: TaskEpisode })
        .episode,
    timeline: async () =>
      (await required('get_episode_timeline', { episode_id: episodeId })) as TaskTimeline,
    call,
    close: async () => {
      await queue;
      await client.close();
    },
  };
}
