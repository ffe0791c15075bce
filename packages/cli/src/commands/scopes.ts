import { taskFromRun } from '@episodic/core';
import { listScopes } from '@episodic/home';
import { scopeOfRun } from '@episodic/mcp';
import { artifactScopes } from '../artifact-scopes.js';
import type { CommandHandler } from '../command-spec.js';
import { relativeTime } from '../human-time.js';
import { describeLedger, writeNotes } from '../notes.js';
import { flag } from '../option-values.js';
import { createStyles, renderTable } from '../output.js';
import { createProgress } from '../progress.js';

import { describeRunStore } from '../store-notes.js';
import { withStores } from '../stores.js';

/** One scope as `scopes list` shows it. */
interface ScopeRow {
  scope: string;
  events: number;
  sessions: number;
  first_ts_ms: number | null;
  last_ts_ms: number | null;
  tasks: number | null;
  artifacts: Record<string, number>;
}

/** `scopes list`: every scope of the home with what it holds. */
export const list: CommandHandler = async (context) => {
  const countTasks = !flag(context.options, 'no-tasks');
  const progress = createProgress(context, 'scopes list: reading runs');
  const { rows, location } = await withStores(
    context,
    async (stores) => {
      const byScope = new Map<string, ScopeRow>();
      const row = (scope: string): ScopeRow => {
        let found = byScope.get(scope);
        if (found === undefined) {
          found = {
            scope,
            events: 0,
            sessions: 0,
            first_ts_ms: null,
            last_ts_ms: null,
            tasks: countTasks ? 0 : null,
            artifacts: {},
          };
          byScope.set(scope, found);
        }
        return found;
      };
      for (const entry of await listScopes(stores)) Object.assign(row(entry.scope), entry);
      for (const [scope, counts] of await artifactScopes(stores.artifacts)) {
        row(scope).artifacts = counts;
      }
      if (countTasks) {
        // Task episodes are runs whose header names their scope: each run is read once.
        const listed = await stores.runs.list();
        for (const [index, summary] of listed.runs.entries()) {
          progress.update(index, listed.runs.length);
          const read = await stores.runs.read(summary.runId).catch(() => null);
          if (read === null) continue;
          try {
            taskFromRun(read);
          } catch {
            continue;
          }
          const entry = row(scopeOfRun(read));
          entry.tasks = (entry.tasks ?? 0) + 1;
        }
      }
      const sorted = [...byScope.values()].sort((left, right) =>
        left.scope < right.scope ? -1 : left.scope > right.scope ? 1 : 0,
      );
      return { rows: sorted, location: stores.location };
    },
    { readOnly: true },
  ).finally(() => progress.finish());
  const notes =
    rows.length === 0
      ? [
          `No scope holds anything: looked in ${describeLedger(location)} and ${describeRunStore(location)}.`,
        ]
      : [];
  return {
    receipt: { store: location.store, count: rows.length, scopes: rows, notes },
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      const now = Date.now();
      if (rows.length > 0) {
        write(
          renderTable(
            rows,
            [
              { header: 'SCOPE', value: (row) => row.scope, max: 40 },
              { header: 'EVENTS', value: (row) => row.events, align: 'right', fixed: true },
              { header: 'SESSIONS', value: (row) => row.sessions, align: 'right', fixed: true },
              {
                header: 'LAST EVENT',
                value: (row) => (row.last_ts_ms === null ? '' : relativeTime(row.last_ts_ms, now)),
                fixed: true,
              },
              ...(countTasks
                ? [
                    {
                      header: 'TASKS',
                      value: (row: ScopeRow) => row.tasks,
                      align: 'right' as const,
                      fixed: true,
                    },
                  ]
                : []),
              {
                header: 'PATTERNS',
                value: (row) => row.artifacts.pattern ?? 0,
                align: 'right',
                fixed: true,
              },
              {
                header: 'OTHER ARTIFACTS',
                value: (row) =>
                  Object.entries(row.artifacts)
                    .filter(([kind]) => kind !== 'pattern')
                    .map(([kind, count]) => `${count} ${kind}${count === 1 ? '' : 's'}`)
                    .join(', '),
                max: 40,
              },
            ],
            styles,
          ),
        );
      }
      write(styles.dim(`${rows.length} scope${rows.length === 1 ? '' : 's'}\n`));
      writeNotes(context, notes);
    },
  };
};
