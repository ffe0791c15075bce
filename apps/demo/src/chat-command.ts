import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { type AgentEvent, type DemoAgent, openDemoAgent } from './agent/demo-agent.js';
import { recreateDemoHome } from './demo-home.js';
import { DEMO_SCOPE, indexIntoLedger } from './ledger-index.js';
import type { DemoModel } from './models/demo-model.js';
import type { TurnSummary } from './report.js';
import { createSampleWorkspace } from './sample-workspace.js';
import { startTaskTracker } from './task-tracker.js';
import { buildTimeline, renderTimeline } from './timeline.js';
import { renderTurn, summarizeTurn } from './turn-summary.js';

/** Options of `runChat`. */
export interface ChatOptions {
  readonly home: string;
  readonly isDefaultHome: boolean;
  readonly model: DemoModel;
  readonly input: Readable;
  readonly output: Writable;
  /** True when a person types (prompts are shown); piped input is echoed instead. */
  readonly interactive: boolean;
}

const HELP = [
  'Type a message for the agent, or a command:',
  '  /interrupt  stop the running turn (its work so far and an interrupt boundary are committed)',
  '  /fork       continue in a fork of the session (the original keeps its history)',
  '  /timeline   the committed episodes of the current session',
  '  /help       this help',
  '  /quit       complete the task episode and leave (end of input does the same)',
  'Ctrl-C interrupts the running turn, or leaves when no turn is running.',
];

/**
 * An interactive session with the demo agent. Messages run one turn at a time, in order;
 * `/interrupt` acts at once on the running turn (or on the next one, when it is typed before
 * that turn started). Every turn is recorded as a run and tracked as steps of a task episode.
 */
export async function runChat(options: ChatOptions): Promise<void> {
  const write = (line = '') => options.output.write(`${line}\n`);
  const layout = await recreateDemoHome(options.home, { isDefault: options.isDefaultHome });
  await createSampleWorkspace(layout.workspace);
  const store = createFsStore({ root: layout.home, durability: 'run' });
  const sqlite = createSqliteStore({ filename: layout.database });
  const tracker = await startTaskTracker({
    home: layout.home,
    scope: DEMO_SCOPE,
    task: {
      task_description: 'Chat with the demo agent about the sample workspace.',
      domain: 'episodic-demo',
      task_type: 'analysis',
      tags: ['demo', 'chat'],
      metadata: { app: 'episodic-demo', model: options.model.label },
    },
  });
  let agent: DemoAgent = await openDemoAgent({
    model: options.model,
    store,
    workspace: layout.workspace,
    tracker,
    artifacts: sqlite.artifacts,
    // A person at a terminal sees each tool start (a slow one can then be interrupted).
    ...(options.interactive
      ? {
          onEvent: (event: AgentEvent) => {
            if (event.type === 'tool-start')
              write(`    … ${event.call.name} ${event.call.arguments}`);
          },
        }
      : {}),
  });
  const turns: TurnSummary[] = [];
  /** Every session of the chat; a fork with the last episode it inherited. */
  const sessions: Array<{ agent: DemoAgent; inheritedThrough?: number }> = [{ agent }];
  write(
    `Episodic demo chat (model: ${options.model.label}). Home: ${layout.home} (recreated fresh)`,
  );
  write(
    `Session ${agent.session.id}; task episode ${tracker.episodeId}. /help lists the commands.`,
  );

  const queue: string[] = [];
  let draining = false;
  let turnActive = false;
  let interruptNext = false;
  let quitting = false;
  let resolveDone = () => {};
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  const prompt = () => {
    if (options.interactive && !quitting) options.output.write('you> ');
  };

  const runTurn = async (text: string) => {
    const current = agent;
    const turn = current.turn(text);
    turnActive = true;
    if (interruptNext) {
      interruptNext = false;
      void current.interrupt('The user typed /interrupt.', { keep: 'partial' });
    }
    try {
      const record = await turn;
      const summary = summarizeTurn(record, `#${turns.length + 1}`, '', 'main');
      turns.push(summary);
      for (const line of renderTurn(summary)) write(line);
    } finally {
      turnActive = false;
    }
  };

  const command = async (text: string): Promise<void> => {
    const [name] = text.split(/\s+/);
    switch (name) {
      case '/help':
        for (const line of HELP) write(line);
        return;
      case '/fork': {
        const from = agent.session.id;
        const inheritedThrough = agent.session.log.lastId;
        agent = agent.fork();
        sessions.push({ agent, inheritedThrough });
        write(
          `Forked session ${from} into ${agent.session.id}: you are now talking in the fork (saved at its first turn).`,
        );
        return;
      }
      case '/timeline': {
        const episodes = agent.session.log.read({ fromId: 0 });
        write(
          `Timeline of session ${agent.session.id} (${episodes.length} episodes, revision ${agent.session.revision})`,
        );
        const entries = buildTimeline(
          episodes,
          turns.filter((turn) => turn.sessionId === agent.session.id),
        );
        for (const line of entries.length === 0 ? ['  (no episodes yet)'] : renderTimeline(entries))
          write(line);
        return;
      }
      case '/interrupt':
        write('Nothing to interrupt: no turn is running.');
        return;
      case '/quit':
        quitting = true;
        return;
      default:
        write(`Unknown command ${name}. /help lists the commands.`);
    }
  };

  const drain = async () => {
    while (queue.length > 0 && !quitting) {
      const text = queue.shift() as string;
      if (!options.interactive) write(`you> ${text}`);
      try {
        if (text.startsWith('/')) await command(text);
        else await runTurn(text);
      } catch (error) {
        write(`error: ${error instanceof Error ? error.message : String(error)}`);
      }
      prompt();
    }
    draining = false;
    if (quitting) resolveDone();
  };

  const lines = createInterface({ input: options.input, terminal: false });
  lines.on('line', (raw) => {
    const text = raw.trim();
    if (text === '' || quitting) return;
    if (text === '/interrupt' && (turnActive || queue.some((queued) => !queued.startsWith('/')))) {
      // Acts now, not in order: on the running turn, or on the next turn as soon as it starts.
      if (turnActive) void agent.interrupt('The user typed /interrupt.', { keep: 'partial' });
      else interruptNext = true;
      if (!options.interactive) write('you> /interrupt');
      return;
    }
    queue.push(text);
    if (!draining) {
      draining = true;
      void drain();
    }
  });
  lines.on('close', () => {
    queue.push('/quit');
    if (!draining) {
      draining = true;
      void drain();
    }
  });
  // Ctrl-C interrupts the running turn; with no turn running it ends the chat like /quit.
  const onSigint = () => {
    if (turnActive) {
      write('');
      void agent.interrupt('The user pressed Ctrl-C.', { keep: 'partial' });
      return;
    }
    lines.close();
  };
  if (options.interactive) process.on('SIGINT', onSigint);
  prompt();
  await done;
  process.off('SIGINT', onSigint);
  lines.close();

  const completed = turns.filter(
    (turn) => turn.outcome === 'completed' || turn.outcome === 'step-limit',
  );
  const unfinished = turns.filter(
    (turn) => turn.outcome === 'failed' || turn.outcome === 'interrupted',
  );
  try {
    const result = await tracker.complete(
      turns.length === 0
        ? { outcome_type: 'failure', reason: 'The chat ended before any turn.' }
        : unfinished.length === 0
          ? { outcome_type: 'success', verdict: `${turns.length} turns completed.` }
          : {
              outcome_type: 'partial_success',
              verdict: `${completed.length} of ${turns.length} turns completed.`,
              completed: completed.map((turn) => `${turn.label}: ${turn.input}`),
              failed: unfinished.map((turn) => `${turn.label}: ${turn.input} (${turn.outcome})`),
            },
    );
    const runs = [];
    for (const { agent: session } of sessions) {
      const { runs: listed } = await store.runs.list({ sessionId: session.session.id });
      for (const summary of listed)
        runs.push({ id: summary.runId, records: (await store.runs.read(summary.runId)).records });
    }
    const indexed = await indexIntoLedger(sqlite.ledger, {
      sessions: sessions.map(({ agent: session, inheritedThrough }) => ({
        id: session.session.id,
        episodes: [...session.session.log.read({ fromId: 0 })],
        ...(inheritedThrough === undefined ? {} : { inheritedThrough }),
      })),
      runs,
    });
    write(
      `Ledger scope "${DEMO_SCOPE}": ${indexed.appended} events indexed from ${sessions.length} session(s) and ${runs.length} run(s).`,
    );
    write(
      `Task episode ${tracker.episodeId} completed: reward_score ${Number(result.reward_score).toFixed(3)}, ${result.patterns_extracted} patterns.`,
    );
    write(`Run files and snapshots: ${layout.runs}; ledger and patterns: ${layout.database}.`);
    write(`Explore: pnpm episodic sessions show ${agent.session.id} --home ${layout.home}`);
  } finally {
    await tracker.close();
    await sqlite.close();
    await store.close();
  }
}
