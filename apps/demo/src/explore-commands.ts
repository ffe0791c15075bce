import { DEMO_SCOPE } from './ledger-index.js';

/** One `episodic` CLI command to explore what the demo wrote. */
export interface ExploreCommand {
  /** What the command shows. */
  readonly what: string;
  /** The arguments after `episodic`. */
  readonly argv: readonly string[];
  /** The command line to paste, from the repository root. */
  readonly command: string;
}

/** The ids the commands need. */
export interface ExploreIds {
  readonly home: string;
  readonly sessionId: string;
  readonly forkId: string | null;
  readonly failedRunId: string | null;
  readonly taskId: string | null;
  /** The run of the turn recorded through the AI SDK adapter (`--ai-sdk`). */
  readonly aiSdkRunId?: string | null;
}

/** Quotes an argument for a POSIX shell when it needs it. */
export function shellQuote(argument: string): string {
  return /^[\w@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replace(/'/g, `'\\''`)}'`;
}

/**
 * The `episodic` commands to explore the demo's home. Runs and sessions are run files under the
 * home and the ledger and the learned patterns are in `<home>/episodic.db`; the CLI finds the run
 * files by itself (the database holds no runs), so no command needs `--store`. The ledger, the
 * task episode and its patterns belong to the demo's scope, so those commands name it.
 */
export function exploreCommands(ids: ExploreIds): ExploreCommand[] {
  const files = ['--home', ids.home];
  const database = files;
  const commands: Array<{ what: string; argv: string[] }> = [
    {
      what: 'the session snapshot: revision, context and newest episodes',
      argv: ['sessions', 'show', ids.sessionId, ...files],
    },
    {
      what: "the session's run files (one per turn, plus the task episode)",
      argv: ['runs', 'list', '--session-id', ids.sessionId, ...files],
    },
    {
      what: "the session's runs replayed as UI events",
      argv: ['runs', 'replay', '--session-id', ids.sessionId, ...files],
    },
  ];
  if (ids.failedRunId !== null) {
    commands.push({
      what: 'the failed turn: recorded in its run file, absent from the session',
      argv: ['runs', 'show', ids.failedRunId, ...files],
    });
  }
  if (ids.aiSdkRunId !== undefined && ids.aiSdkRunId !== null) {
    commands.push({
      what: 'the turn run through the Vercel AI SDK: every step recorded by @episodic/ai-sdk',
      argv: ['runs', 'show', ids.aiSdkRunId, ...files],
    });
  }
  if (ids.forkId !== null) {
    commands.push({
      what: 'the fork: the same history up to the fork, then its own turn',
      argv: ['sessions', 'show', ids.forkId, ...files],
    });
  }
  commands.push(
    {
      what: 'the ledger timeline of the session',
      argv: ['episodes', 'replay', ids.sessionId, '--scope', DEMO_SCOPE, ...database],
    },
    {
      what: 'alerts in the ledger: the interrupt and the failed turn',
      argv: ['episodes', 'query', '--scope', DEMO_SCOPE, '--type', 'ops.alert', ...database],
    },
  );
  if (ids.taskId !== null) {
    commands.push(
      {
        what: 'the task episode: outcome, reward, reflection, patterns',
        argv: ['tasks', 'show', ids.taskId, '--scope', DEMO_SCOPE, ...files],
      },
      {
        what: "the task episode's steps",
        argv: ['tasks', 'timeline', ids.taskId, '--scope', DEMO_SCOPE, ...files],
      },
      {
        what: 'the patterns learned from the task',
        argv: ['patterns', 'search', '--task', ids.taskId, '--scope', DEMO_SCOPE, ...database],
      },
    );
  }
  commands.push(
    {
      what: 'every scope of the home: events, sessions, task episodes, patterns',
      argv: ['scopes', 'list', ...database],
    },
    {
      what: 'verify every run file, snapshot and the database',
      argv: ['doctor', ...files],
    },
  );
  return commands.map(({ what, argv }) => ({
    what,
    argv,
    command: `pnpm episodic ${argv.map(shellQuote).join(' ')}`,
  }));
}
