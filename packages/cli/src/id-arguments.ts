import { parseIdReference } from '@episodic/core/adapter';
import type { CommandContext } from './command-spec.js';
import { optionalString } from './option-values.js';
import { notFoundWhere } from './store-notes.js';
import { withRunStores, withStores } from './stores.js';
import { scopedTaskStores, taskScope } from './task-scope.js';

// Ids as people type them: a whole UUID, or its first 6 or more characters as tables show them
// (`7c1d7358`). The argument is checked before any store is opened; a prefix is then resolved in
// the store (an indexed range query, or a directory listing), read-only, and a task's prefix only
// among the task episodes of the command's scope.

/**
 * RUN_ID (or `subject`, e.g. `--run-id`): a whole run id (lowercase), or the one run a prefix
 * stands for.
 */
export async function runIdArgument(
  context: CommandContext,
  value = context.positionals[0],
  subject = 'RUN_ID',
) {
  const reference = parseIdReference(value, 'run', subject);
  if (reference.kind === 'id') return reference.id;
  return withRunStores(
    context,
    (stores) =>
      stores.runs.resolveRunId(reference.prefix, { subject }).catch(async (error) => {
        throw await notFoundWhere(error, stores.location);
      }),
    { readOnly: true },
  );
}

/**
 * SESSION_ID (or `subject`, e.g. `--session-id`): a whole session id (lowercase), or the one
 * session a prefix stands for.
 */
export async function sessionIdArgument(
  context: CommandContext,
  value = context.positionals[0],
  subject = 'SESSION_ID',
) {
  const reference = parseIdReference(value, 'session', subject);
  if (reference.kind === 'id') return reference.id;
  return withRunStores(
    context,
    (stores) =>
      stores.sessions.resolveSessionId(reference.prefix, { subject }).catch(async (error) => {
        throw await notFoundWhere(error, stores.location);
      }),
    { readOnly: true },
  );
}

/** `--session-id ID`, when given: a whole session id (lowercase) or a unique prefix of one. */
export async function sessionIdOption(context: CommandContext): Promise<string | undefined> {
  const value = optionalString(context.options, 'session-id');
  return value === undefined ? undefined : sessionIdArgument(context, value, '--session-id');
}

/**
 * EPISODE_ID: a whole task episode id (lowercase), or the one task episode of the command's scope
 * a prefix stands for (another scope's tasks are never resolved, named or counted).
 */
export async function episodeIdArgument(context: CommandContext, value = context.positionals[0]) {
  const reference = parseIdReference(value, 'task', 'EPISODE_ID');
  if (reference.kind === 'id') return reference.id;
  const scope = taskScope(context);
  return withStores(
    context,
    (stores) =>
      scopedTaskStores(stores, scope)
        .runs.resolveRunId(reference.prefix, { kind: 'task', subject: 'EPISODE_ID' })
        .catch(async (error) => {
          throw await notFoundWhere(error, stores.location, { scope });
        }),
    { readOnly: true },
  );
}
