import * as z from 'zod';
import type { BaseMessage } from '../schema/base-message.js';
import { type RuntimeInfo, runtimeInfoSchema } from '../schema/run-record.js';
import { type SessionState, sessionStateSchema } from '../schema/session-state.js';
import { parseInput } from '../validation/parse-input.js';

/** One difference between the environment a session was saved in and the one it resumes in. */
export interface EnvironmentChange {
  /** The runtime field that changed, e.g. `cwd`. */
  field: string;
  /** The value the session last ran with (absent when it was not recorded). */
  from?: string;
  /** The value it runs with now (absent when it is no longer known). */
  to?: string;
}

/** What resuming a session from its snapshot means for the next run (seed 001 §6). */
export interface ResumePlan {
  /** The session being resumed. */
  sessionId: string;
  /** The run that saved the snapshot, when recorded. */
  fromRunId?: string;
  /** The last LLM invocation number; the next `llm.request` uses `invokeSeq + 1`. */
  invokeSeq: number;
  /** The environment the session last ran in (from the snapshot's `meta.runtime`), when known. */
  previousRuntime?: RuntimeInfo;
  /** The environment it runs in now. */
  runtime: RuntimeInfo;
  /** What differs; empty when nothing changed or the previous environment is unknown. */
  changes: EnvironmentChange[];
  /** The system message telling the model about the changes, or null when nothing changed. */
  systemMessage: BaseMessage | null;
  /** The snapshot's messages, followed by `systemMessage` when there is one: the history to continue. */
  messages: BaseMessage[];
  /**
   * The snapshot updated for the new environment: `meta.runtime` is the new runtime and `messages`
   * is `messages` above. Save it with the next commit so the next resume compares against it.
   */
  state: SessionState;
}

/** Options of `planResume`. */
export interface PlanResumeOptions {
  /** The environment the session runs in now. */
  runtime: RuntimeInfo;
  /**
   * The environment the session last ran in, when the snapshot does not record it in
   * `meta.runtime` (e.g. taken from the last run's header). @default snapshot.meta.runtime
   */
  previousRuntime?: RuntimeInfo;
  /** Stamps `message_ts` on the system message. @default () => new Date() */
  now?: () => Date;
}

const FIELD_LABELS: Record<string, string> = {
  cwd: 'working directory',
  os: 'operating system',
  arch: 'CPU architecture',
  version: 'runtime version',
};

/** The runtime a snapshot records in `meta.runtime`, when it is a valid one. */
export function snapshotRuntime(state: SessionState): RuntimeInfo | undefined {
  const candidate = (state.meta as { runtime?: unknown } | undefined)?.runtime;
  const parsed = runtimeInfoSchema.safeParse(candidate);
  return parsed.success ? parsed.data : undefined;
}

/** The string-valued fields that differ between two runtimes (known fields first, then the rest). */
export function diffRuntime(previous: RuntimeInfo, current: RuntimeInfo): EnvironmentChange[] {
  const fields = [
    ...new Set([
      ...Object.keys(FIELD_LABELS),
      ...Object.keys(previous).sort(),
      ...Object.keys(current).sort(),
    ]),
  ];
  const changes: EnvironmentChange[] = [];
  for (const field of fields) {
    const from = previous[field];
    const to = current[field];
    if (typeof from !== 'string' && typeof to !== 'string') continue;
    if (from === to) continue;
    // A field only the new runtime reports is not a change the model must hear about.
    if (typeof from !== 'string') continue;
    const change: EnvironmentChange = { field, from };
    if (typeof to === 'string') change.to = to;
    changes.push(change);
  }
  return changes;
}

/** The text of the system message that tells the model its environment changed. */
export function describeEnvironmentChanges(changes: readonly EnvironmentChange[]): string {
  const lines = changes.map((change) => {
    const label = FIELD_LABELS[change.field] ?? change.field;
    return change.to === undefined
      ? `- ${label}: was ${change.from}, now unknown`
      : `- ${label}: was ${change.from}, now ${change.to}`;
  });
  return [
    'This session was resumed in a different environment than the one it last ran in:',
    ...lines,
    'Earlier messages, paths and command outputs refer to the previous environment; check them again before relying on them.',
  ].join('\n');
}

const planOptionsSchema = z.strictObject({
  runtime: runtimeInfoSchema,
  previousRuntime: runtimeInfoSchema.optional(),
  now: z
    .custom<() => Date>((value) => typeof value === 'function', 'must be a function')
    .optional(),
});

/**
 * Plans the resume of a session from its snapshot (seed 001 §6): compares the environment the
 * session last ran in with the current one and, when they differ, produces the system message to
 * inject and the updated snapshot. Pure: nothing is written.
 */
export function planResume(snapshot: SessionState, options: PlanResumeOptions): ResumePlan {
  const state = parseInput(sessionStateSchema, snapshot, 'session snapshot');
  const checked = parseInput(planOptionsSchema, options, 'resume options');
  const now = checked.now ?? (() => new Date());
  const previousRuntime = checked.previousRuntime ?? snapshotRuntime(state);
  const changes =
    previousRuntime === undefined ? [] : diffRuntime(previousRuntime, checked.runtime);
  const systemMessage: BaseMessage | null =
    changes.length === 0
      ? null
      : {
          role: 'system',
          content: describeEnvironmentChanges(changes),
          message_ts: now().toISOString(),
        };
  const messages =
    systemMessage === null ? [...state.messages] : [...state.messages, systemMessage];
  const plan: ResumePlan = {
    sessionId: state.session_id,
    invokeSeq: state.invoke_seq ?? 0,
    runtime: checked.runtime,
    changes,
    systemMessage,
    messages,
    state: { ...state, messages, meta: { ...state.meta, runtime: checked.runtime } },
  };
  if (state.run_id !== undefined) plan.fromRunId = state.run_id;
  if (previousRuntime !== undefined) plan.previousRuntime = previousRuntime;
  return plan;
}
