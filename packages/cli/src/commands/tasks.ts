import {
  createTaskLifecycle,
  EpisodicError,
  type RunReadResult,
  type TaskEpisode,
  taskFromRun,
} from '@episodic/core';
import { parseInput } from '@episodic/core/adapter';
import {
  addStepInputSchema,
  completeTaskInputSchema,
  createTaskInputSchema,
  TASK_MAX_STEPS,
  TASK_OUTCOME_TYPES,
} from '@episodic/core/schemas';
import type { EpisodicStores } from '@episodic/home';
import { scopeOfRun } from '@episodic/mcp';
import type { CommandContext, CommandHandler } from '../command-spec.js';
import { localAndRelative, localTime, relativeTime } from '../human-time.js';
import { episodeIdArgument, sessionIdOption } from '../id-arguments.js';
import { writeNotes } from '../notes.js';
import {
  flag,
  jsonObjectArgument,
  listOption,
  optionalDate,
  optionalInteger,
  optionalString,
  requiredString,
} from '../option-values.js';
import {
  createStyles,
  renderFields,
  renderTable,
  type Styles,
  sanitizeForTerminal,
} from '../output.js';
import { createProgress } from '../progress.js';
import { styleStatus } from '../run-status.js';
import type { StoreAccess } from '../store-access.js';
import { describeRunStore, notFoundWhere, otherRunStoreNotes } from '../store-notes.js';
import { withStores } from '../stores.js';
import { scopedTaskStores, taskScope } from '../task-scope.js';
import { UsageError } from '../usage-error.js';

function commandName(context: CommandContext): string {
  return `episodic ${context.path.join(' ')}`;
}

/**
 * Runs `work` with a task lifecycle over the stores of this command line, bound to the command's
 * scope (see `taskScope`): a task episode of another scope is NOT_FOUND, as it is over MCP. The
 * error then says which scope, home and store were searched, and where the task episode is.
 */
function withTasks<Result>(
  context: CommandContext,
  work: (tasks: ReturnType<typeof createTaskLifecycle>) => Promise<Result>,
  access: StoreAccess = {},
): Promise<Result> {
  const scope = taskScope(context);
  return withStores(
    context,
    async (stores) => {
      try {
        return await work(createTaskLifecycle(scopedTaskStores(stores, scope)));
      } catch (error) {
        throw await taskNotFoundWhere(error, stores, scope, context.positionals[0]);
      }
    },
    access,
  );
}

/** A task episode's NOT_FOUND, with where it was searched and the scope it belongs to, if any. */
async function taskNotFoundWhere(
  error: unknown,
  stores: EpisodicStores,
  scope: string,
  episodeId: string | undefined,
): Promise<unknown> {
  if (!EpisodicError.hasCode(error, 'NOT_FOUND')) return error;
  const notes: string[] = [];
  if (episodeId !== undefined) {
    const read = await stores.runs.read(episodeId.toLowerCase()).catch(() => null);
    const owner = read === null ? null : scopeOfRun(read);
    if (owner !== null && owner !== scope) {
      notes.push(`It belongs to scope "${owner}": add --scope ${owner}.`);
    }
  }
  return notFoundWhere(error, stores.location, { scope, notes });
}

function renderTask(task: TaskEpisode, styles: Styles): string {
  const lines = [
    renderFields(
      [
        ['episode', task.id],
        ['task', task.task_description],
        ['type', `${task.task_type} in ${task.context.domain} (${task.context.complexity})`],
        ['session', task.session_id ?? undefined],
        ['started', localAndRelative(task.start_time, Date.now())],
        ['ended', task.end_time === null ? null : localAndRelative(task.end_time, Date.now())],
        ['steps', task.steps.length],
        [
          'outcome',
          task.outcome === null
            ? null
            : `${task.outcome.type}: ${'verdict' in task.outcome ? task.outcome.verdict : task.outcome.reason}`,
        ],
        ['reward_score', task.reward_score === null ? null : task.reward_score.toFixed(3)],
        ['patterns', task.patterns.length],
      ],
      styles,
    ),
  ];
  if (task.reflection !== null) {
    for (const [title, items] of [
      ['Successes', task.reflection.successes],
      ['Improvements', task.reflection.improvements],
      ['Insights', task.reflection.insights],
    ] as const) {
      if (items.length === 0) continue;
      lines.push(
        `\n${styles.bold(`${title}:`)}\n${items.map((item) => `  - ${sanitizeForTerminal(item)}`).join('\n')}\n`,
      );
    }
  }
  return lines.join('');
}

/** `tasks create`. */
export const create: CommandHandler = async (context) => {
  const { options } = context;
  const command = commandName(context);
  const metadata = await jsonObjectArgument(context, 'metadata-json');
  const language = optionalString(options, 'language');
  const framework = optionalString(options, 'framework');
  const complexity = optionalString(options, 'complexity');
  const sessionId = await sessionIdOption(context);
  const tags = listOption(options, 'tag', false);
  const input = {
    task_description: requiredString(options, 'description', command),
    domain: requiredString(options, 'domain', command),
    task_type: requiredString(options, 'task-type', command),
    ...(language === undefined ? {} : { language }),
    ...(framework === undefined ? {} : { framework }),
    ...(tags === undefined ? {} : { tags }),
    ...(complexity === undefined ? {} : { complexity }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(sessionId === undefined ? {} : { session_id: sessionId }),
  };
  const checked = parseInput(createTaskInputSchema, input, 'task');
  const task = await withTasks(context, (tasks) => tasks.createTask(checked));
  return {
    receipt: { scope: taskScope(context), task },
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      if (context.globals.quiet) {
        write(`${task.id}\n`);
        return;
      }
      write(`${styles.green('Created')} task episode ${task.id}\n`);
      write(
        styles.dim(`Next: episodic tasks step ${task.id} --step 1 --tool NAME --action TEXT\n`),
      );
    },
  };
};

/** `tasks step EPISODE_ID`. */
export const step: CommandHandler = async (context) => {
  const { options } = context;
  const command = commandName(context);
  const episodeId = await episodeIdArgument(context);
  const stepNumber = optionalInteger(options, 'step', { min: 1, max: 1_000_000 });
  if (stepNumber === undefined) throw new UsageError(`Missing --step N for "${command}".`);
  const resultType = optionalString(options, 'result');
  const output = optionalString(options, 'output');
  const message = optionalString(options, 'message');
  if (output !== undefined && resultType !== 'success') {
    throw new UsageError('--output goes with --result success.');
  }
  if (message !== undefined && resultType !== 'error') {
    throw new UsageError('--message goes with --result error.');
  }
  if (resultType !== undefined && !['success', 'error', 'timeout'].includes(resultType)) {
    throw new UsageError(
      `Invalid --result ${JSON.stringify(resultType)}: use success, error or timeout.`,
      'VALIDATION_ERROR',
    );
  }
  if (resultType === 'error' && message === undefined) {
    throw new UsageError('--result error needs --message TEXT (the error message).');
  }
  const parameters = await jsonObjectArgument(context, 'parameters-json');
  const latency = optionalInteger(options, 'latency-ms', { min: 0, max: 86_400_000 });
  const result =
    resultType === undefined
      ? undefined
      : resultType === 'success'
        ? { type: 'success' as const, ...(output === undefined ? {} : { output }) }
        : resultType === 'error'
          ? { type: 'error' as const, message: message as string }
          : { type: 'timeout' as const };
  const input = {
    episode_id: episodeId,
    step_number: stepNumber,
    tool: requiredString(options, 'tool', command),
    action: requiredString(options, 'action', command),
    ...(parameters === undefined ? {} : { parameters }),
    ...(result === undefined ? {} : { result }),
    ...(latency === undefined ? {} : { latency_ms: latency }),
  };
  const checked = parseInput(addStepInputSchema, input, 'task step');
  const stored = await withTasks(context, (tasks) => tasks.addStep(checked));
  return {
    receipt: { scope: taskScope(context), episode_id: episodeId, step: stored },
    render: (write) => {
      if (context.globals.quiet) return;
      const styles = createStyles(context.globals.color, context.globals.width);
      write(
        `${styles.green('Recorded')} step ${stored.step_number} (${sanitizeForTerminal(stored.tool)}) of task episode ${episodeId}\n`,
      );
    },
  };
};

/** `tasks complete EPISODE_ID`. */
export const complete: CommandHandler = async (context) => {
  const { options } = context;
  const command = commandName(context);
  const episodeId = await episodeIdArgument(context);
  const outcome = requiredString(options, 'outcome', command);
  const verdict = optionalString(options, 'verdict');
  const reason = optionalString(options, 'reason');
  const errorDetails = optionalString(options, 'error-details');
  const artifacts = listOption(options, 'artifact', false);
  const completed = listOption(options, 'completed', false);
  const failed = listOption(options, 'failed', false);
  let input: Record<string, unknown>;
  if (outcome === 'success') {
    input = { outcome_type: outcome, verdict, ...(artifacts === undefined ? {} : { artifacts }) };
  } else if (outcome === 'partial_success') {
    input = { outcome_type: outcome, verdict, completed: completed ?? [], failed: failed ?? [] };
  } else if (outcome === 'failure') {
    input = {
      outcome_type: outcome,
      reason,
      ...(errorDetails === undefined ? {} : { error_details: errorDetails }),
    };
  } else {
    throw new UsageError(
      `Invalid --outcome ${JSON.stringify(outcome)}: use success, partial_success or failure.`,
      'VALIDATION_ERROR',
    );
  }
  const needed =
    outcome === 'failure'
      ? { option: 'reason', value: reason }
      : { option: 'verdict', value: verdict };
  if (needed.value === undefined) {
    throw new UsageError(`--outcome ${outcome} needs --${needed.option} TEXT.`);
  }
  const checked = parseInput(
    completeTaskInputSchema,
    { episode_id: episodeId, ...input },
    'task completion',
  );
  const { duplicate, ...task } = await withTasks(context, (tasks) => tasks.completeTask(checked));
  return {
    // duplicate: the task was already completed with this outcome; the stored result is shown.
    receipt: { scope: taskScope(context), task, duplicate },
    render: (write) =>
      write(renderTask(task, createStyles(context.globals.color, context.globals.width))),
  };
};

/** `tasks show EPISODE_ID`. */
export const show: CommandHandler = async (context) => {
  const episodeId = await episodeIdArgument(context);
  const task = await withTasks(context, (tasks) => tasks.getTask({ episode_id: episodeId }), {
    readOnly: true,
  });
  return {
    receipt: { scope: taskScope(context), task },
    render: (write) =>
      write(renderTask(task, createStyles(context.globals.color, context.globals.width))),
  };
};

/** `tasks timeline EPISODE_ID`. */
export const timeline: CommandHandler = async (context) => {
  const episodeId = await episodeIdArgument(context);
  const offset = optionalInteger(context.options, 'offset', { min: 0 });
  const limit = optionalInteger(context.options, 'limit', { min: 1, max: TASK_MAX_STEPS });
  const page = {
    episode_id: episodeId,
    ...(offset === undefined ? {} : { offset }),
    ...(limit === undefined ? {} : { limit }),
  };
  const result = await withTasks(context, (tasks) => tasks.getTimeline(page), {
    readOnly: true,
  });
  return {
    receipt: { scope: taskScope(context), timeline: result },
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      write(
        renderFields(
          [
            ['episode', result.episode_id],
            ['task', result.task_description],
            ['started', localAndRelative(result.start_time, Date.now())],
            [
              'ended',
              result.end_time === null ? null : localAndRelative(result.end_time, Date.now()),
            ],
            ['duration', result.duration_seconds === null ? null : `${result.duration_seconds} s`],
            ['outcome', result.outcome],
          ],
          styles,
        ),
      );
      if (result.timeline.length > 0) {
        write('\n');
        write(
          renderTable(
            result.timeline,
            [
              { header: 'STEP', value: (entry) => entry.step_number, align: 'right' },
              {
                header: 'TIME',
                value: (entry) => localTime(entry.timestamp, { milliseconds: true }),
                fixed: true,
              },
              { header: 'TOOL', value: (entry) => entry.tool, max: 24 },
              { header: 'RESULT', value: (entry) => entry.result_type },
              {
                header: 'LATENCY',
                value: (entry) => (entry.latency_ms === null ? '' : `${entry.latency_ms} ms`),
                align: 'right',
              },
              { header: 'ACTION', value: (entry) => entry.action, max: 60 },
            ],
            styles,
          ),
        );
      }
      if (result.next_offset !== null) {
        write(
          `${styles.dim(`${result.timeline.length} of ${result.step_count} steps; more with --offset ${result.next_offset}`)}\n`,
        );
      }
    },
  };
};

/** `tasks delete EPISODE_ID --yes`. */
export const remove: CommandHandler = async (context) => {
  const episodeId = await episodeIdArgument(context);
  if (!flag(context.options, 'yes')) {
    throw new UsageError(
      `Deleting task episode ${episodeId} cannot be undone: add --yes to confirm. Nothing was changed.`,
      'CONFIRMATION_REQUIRED',
    );
  }
  const receipt = await withTasks(context, (tasks) =>
    tasks.deleteTask({ episode_id: episodeId, confirm: true }),
  );
  return {
    receipt: { scope: taskScope(context), ...receipt },
    render: (write) => {
      if (context.globals.quiet) return;
      const styles = createStyles(context.globals.color, context.globals.width);
      write(
        `${styles.green('Deleted')} task episode ${episodeId} (${receipt.deleted_artifacts.length} artifact${receipt.deleted_artifacts.length === 1 ? '' : 's'} deleted, ${receipt.updated_artifacts.length} updated).\n`,
      );
    },
  };
};

const OUTCOME_FILTERS = [...TASK_OUTCOME_TYPES, 'open'] as const;

/** `tasks list`: the scope's task episodes, newest first. */
export const list: CommandHandler = async (context) => {
  const { options } = context;
  const scope = taskScope(context);
  const outcomes = listOption(options, 'outcome', true);
  for (const outcome of outcomes ?? []) {
    if (!(OUTCOME_FILTERS as readonly string[]).includes(outcome)) {
      throw new UsageError(
        `Invalid --outcome ${JSON.stringify(outcome)}: use ${OUTCOME_FILTERS.join(', ')} (open: not completed yet).`,
        'VALIDATION_ERROR',
      );
    }
  }
  const from = optionalDate(options, 'from', 'start');
  const to = optionalDate(options, 'to', 'end');
  if (from !== undefined && to !== undefined && from > to) {
    throw new UsageError(`--from ${from} is after --to ${to}: swap them.`, 'VALIDATION_ERROR');
  }
  const checkedSession = await sessionIdOption(context);
  const limit = optionalInteger(options, 'limit', { min: 1, max: 10_000 }) ?? 50;
  const wanted = outcomes === undefined ? undefined : new Set(outcomes);
  const progress = createProgress(context, 'tasks list: reading runs');
  const { tasks, location, skipped } = await withStores(
    context,
    async (stores) => {
      // The scoped store lists and reads this scope's runs only (scope filtering in the store).
      const { runs } = scopedTaskStores(stores, scope);
      const found: TaskEpisode[] = [];
      let read = 0;
      let unreadable = 0;
      const listed = await runs.list({
        ...(checkedSession === undefined ? {} : { sessionId: checkedSession }),
        ...(from === undefined ? {} : { from }),
        ...(to === undefined ? {} : { to }),
      });
      for (const summary of listed.runs) {
        if (found.length >= limit) break;
        let run: RunReadResult;
        try {
          run = await runs.read(summary.runId);
        } catch (error) {
          // Deleted since the listing (or not readable as this scope's): not one of its tasks.
          if (!EpisodicError.hasCode(error, 'NOT_FOUND')) unreadable++;
          continue;
        }
        progress.update(++read);
        let task: TaskEpisode;
        try {
          task = taskFromRun(run).task;
        } catch {
          continue; // not a task episode (or its start is damaged)
        }
        if (wanted !== undefined && !wanted.has(task.outcome?.type ?? 'open')) continue;
        found.push(task);
      }
      return { tasks: found, location: stores.location, skipped: unreadable };
    },
    { readOnly: true },
  ).finally(() => progress.finish());
  const notes: string[] = [];
  if (tasks.length === 0) {
    notes.push(
      `No task episodes found in scope "${scope}" in ${describeRunStore(location)}. "episodic scopes list" shows which scopes hold some.`,
    );
    notes.push(...(await otherRunStoreNotes(location)));
  }
  if (skipped > 0) {
    notes.push(
      `${skipped} run${skipped === 1 ? '' : 's'} could not be read and ${skipped === 1 ? 'was' : 'were'} left out (run "episodic doctor").`,
    );
  }
  const rows = tasks.map((task) => ({
    episode_id: task.id,
    task_description: task.task_description,
    task_type: task.task_type,
    domain: task.context.domain,
    session_id: task.session_id ?? null,
    start_time: task.start_time,
    end_time: task.end_time,
    steps: task.steps.length,
    outcome: task.outcome?.type ?? null,
    reward_score: task.reward_score,
    patterns: task.patterns.length,
  }));
  return {
    receipt: {
      scope,
      store: location.store,
      filters: {
        outcomes: outcomes ?? [],
        from: from ?? null,
        to: to ?? null,
        session_id: checkedSession ?? null,
        limit,
      },
      count: rows.length,
      tasks: rows,
      notes,
    },
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      const now = Date.now();
      if (rows.length > 0) {
        write(
          renderTable(
            rows,
            [
              { header: 'EPISODE', value: (row) => row.episode_id, fixed: true },
              {
                header: 'OUTCOME',
                value: (row) => row.outcome ?? 'open',
                style: (text) => styleStatus(styles, text),
                fixed: true,
              },
              { header: 'STARTED', value: (row) => relativeTime(row.start_time, now), fixed: true },
              { header: 'STEPS', value: (row) => row.steps, align: 'right', fixed: true },
              {
                header: 'REWARD',
                value: (row) => (row.reward_score === null ? '' : row.reward_score.toFixed(3)),
                align: 'right',
                fixed: true,
              },
              { header: 'TYPE', value: (row) => row.task_type, max: 20 },
              { header: 'TASK', value: (row) => row.task_description, max: 60 },
            ],
            styles,
          ),
        );
      }
      write(
        styles.dim(
          `${rows.length} task episode${rows.length === 1 ? '' : 's'} in scope ${scope}${rows.length === limit ? `; more with --limit ${limit * 2} or --to/--from` : ''}\n`,
        ),
      );
      writeNotes(context, notes);
    },
  };
};
