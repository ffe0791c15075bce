import {
  addStepInputSchema,
  completeTaskInputSchema,
  createTaskInputSchema,
  createTaskLifecycle,
  parseInput,
  type TaskEpisode,
  taskIdInputSchema,
} from '@episodic/core';
import type { CommandContext, CommandHandler } from '../command-spec.js';
import {
  flag,
  jsonObjectArgument,
  listOption,
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
import { withStores } from '../stores.js';
import { scopedTaskStores, taskScope } from '../task-scope.js';
import { UsageError } from '../usage-error.js';

function commandName(context: CommandContext): string {
  return `episodic ${context.path.join(' ')}`;
}

function episodeIdArgument(context: CommandContext): string {
  return parseInput(
    taskIdInputSchema,
    { episode_id: context.positionals[0] },
    'EPISODE_ID',
  ).episode_id.toLowerCase();
}

/**
 * Runs `work` with a task lifecycle over the stores of this command line, bound to the command's
 * scope (see `taskScope`): a task episode of another scope is NOT_FOUND, as it is over MCP.
 */
function withTasks<Result>(
  context: CommandContext,
  work: (tasks: ReturnType<typeof createTaskLifecycle>) => Promise<Result>,
): Promise<Result> {
  const scope = taskScope(context);
  return withStores(context, (stores) =>
    work(createTaskLifecycle(scopedTaskStores(stores, scope))),
  );
}

function renderTask(task: TaskEpisode, styles: Styles): string {
  const lines = [
    renderFields(
      [
        ['episode', task.id],
        ['task', task.task_description],
        ['type', `${task.task_type} in ${task.context.domain} (${task.context.complexity})`],
        ['session', task.session_id ?? undefined],
        ['started', task.start_time],
        ['ended', task.end_time],
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
  const sessionId = optionalString(options, 'session-id');
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
      const styles = createStyles(context.globals.color);
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
  const episodeId = episodeIdArgument(context);
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
      const styles = createStyles(context.globals.color);
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
  const episodeId = episodeIdArgument(context);
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
  const task = await withTasks(context, (tasks) => tasks.completeTask(checked));
  return {
    receipt: { scope: taskScope(context), task },
    render: (write) => write(renderTask(task, createStyles(context.globals.color))),
  };
};

/** `tasks show EPISODE_ID`. */
export const show: CommandHandler = async (context) => {
  const episodeId = episodeIdArgument(context);
  const task = await withTasks(context, (tasks) => tasks.getTask({ episode_id: episodeId }));
  return {
    receipt: { scope: taskScope(context), task },
    render: (write) => write(renderTask(task, createStyles(context.globals.color))),
  };
};

/** `tasks timeline EPISODE_ID`. */
export const timeline: CommandHandler = async (context) => {
  const episodeId = episodeIdArgument(context);
  const result = await withTasks(context, (tasks) => tasks.getTimeline({ episode_id: episodeId }));
  return {
    receipt: { scope: taskScope(context), timeline: result },
    render: (write) => {
      const styles = createStyles(context.globals.color);
      write(
        renderFields(
          [
            ['episode', result.episode_id],
            ['task', result.task_description],
            ['started', result.start_time],
            ['ended', result.end_time],
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
              { header: 'TIME', value: (entry) => entry.timestamp, max: 24 },
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
    },
  };
};

/** `tasks delete EPISODE_ID --yes`. */
export const remove: CommandHandler = async (context) => {
  const episodeId = episodeIdArgument(context);
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
      const styles = createStyles(context.globals.color);
      write(
        `${styles.green('Deleted')} task episode ${episodeId} (${receipt.deleted_artifacts.length} artifact${receipt.deleted_artifacts.length === 1 ? '' : 's'} deleted, ${receipt.updated_artifacts.length} updated).\n`,
      );
    },
  };
};
