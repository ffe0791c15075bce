import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { BaseMessage, RunRecord } from '@episodic/core';
import { createFsStore, type FsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { runAiSdkTurn } from './agent/ai-sdk-turn.js';
import { type DemoAgent, openDemoAgent, type TurnOptions } from './agent/demo-agent.js';
import { runChecks } from './checks.js';
import { type DemoHomeLayout, deltasPath, recreateDemoHome, snapshotPath } from './demo-home.js';
import { exploreCommands } from './explore-commands.js';
import {
  DEMO_SCOPE,
  indexIntoLedger,
  ledgerCounts,
  OTHER_SCOPE,
  projectBySource,
} from './ledger-index.js';
import type { DemoModel } from './models/demo-model.js';
import { withInterruptOnAnswer, withOutage } from './models/simulated-faults.js';
import type { DemoReport, TurnSummary } from './report.js';
import type { ResumeResult } from './resume-command.js';
import { createSampleWorkspace, LONG_LOG_PATH } from './sample-workspace.js';
import { startTaskTracker, type TaskTracker } from './task-tracker.js';
import { buildTimeline } from './timeline.js';
import { renderTurn, summarizeTurn } from './turn-summary.js';

/** One scripted turn: what the user says and what it demonstrates. */
interface ScriptedTurn {
  readonly label: string;
  readonly input: string;
  readonly shows: string;
}

/** The conversation the demo runs, in order. */
export const SCRIPT = {
  list: {
    label: 'T1',
    input: 'What files are in the workspace?',
    shows: 'a tool call and its answer',
  },
  invoice: {
    label: 'T2',
    input: 'What does the invoice add up to?',
    shows: 'two tools in one turn: read_file, then the calculator (a safe parser, no eval)',
  },
  everyFile: {
    label: 'T3',
    input: 'Read every file, one by one.',
    shows: 'the step limit: the last call is committed without an output (a dangling call)',
  },
  scan: {
    label: 'T4',
    input: 'Scan the workspace for secrets.',
    shows:
      'an interrupted turn (Ctrl-C while a tool runs): its work so far and an interrupt boundary are committed; the unfinished call has no output',
  },
  log: {
    label: 'T5',
    input: `Check whether ${LONG_LOG_PATH} has errors.`,
    shows:
      'the unfinished call healed, a tool output over 8,000 characters, a budget restart, then compaction',
  },
  recap: {
    label: 'T6',
    input: 'Recap what we did so far.',
    shows: 'the next model input starts at the checkpoint summary',
  },
  outage: {
    label: 'T7',
    input: 'Read README.md',
    shows: 'a failed turn (simulated provider outage): the session is left exactly as it was',
  },
  resume: {
    label: 'T8',
    input: 'What was the invoice total again?',
    shows: 'a resume in a fresh process, from the state snapshot',
  },
  fork: {
    label: 'T9',
    input: 'With a 10% discount, what would the invoice come to?',
    shows: 'a fork: a new session with the same history, and its own turn',
  },
} as const satisfies Record<string, ScriptedTurn>;

/** Options of `runDemo`. */
export interface DemoOptions {
  /** The demo home; recreated fresh. */
  readonly home: string;
  /** True when `home` is the default (`apps/demo/.episodic-demo`). */
  readonly isDefaultHome: boolean;
  readonly model: DemoModel;
  /** `--model` as given, passed on to the resumed process. */
  readonly modelSpec: string;
  /** The demo's own built entry, started as a fresh process to resume the session. */
  readonly entry: string;
  /** Progress lines (nothing is printed when this is a no-op, as with `--json`). */
  readonly progress: (line: string) => void;
  /** Runs T1 through the Vercel AI SDK and `@episodic/ai-sdk` (`--ai-sdk`). @default false */
  readonly aiSdk?: boolean;
}

/** The sha256 of everything stored for a session: its base file, then its deltas file if any. */
const storedSessionSha256 = (layout: DemoHomeLayout, sessionId: string) => {
  const hash = createHash('sha256').update(readFileSync(snapshotPath(layout, sessionId)));
  const deltas = deltasPath(layout, sessionId);
  if (existsSync(deltas)) hash.update(readFileSync(deltas));
  return hash.digest('hex');
};

interface ChildResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runProcess(
  command: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}

async function readRuns(store: FsStore, sessionIds: readonly string[]) {
  const runs: Array<{ id: string; records: RunRecord[]; path: string | null }> = [];
  for (const sessionId of sessionIds) {
    const { runs: listed } = await store.runs.list({ sessionId });
    for (const summary of [...listed].reverse()) {
      const read = await store.runs.read(summary.runId);
      runs.push({
        id: summary.runId,
        records: read.records,
        path: await store.locateRun(summary.runId),
      });
    }
  }
  return runs;
}

function contentText(message: BaseMessage): string {
  return typeof message.content === 'string' ? message.content : '';
}

/** What the model saw of a tool output: the tool message in the next recorded model input. */
async function modelView(store: FsStore, runId: string, callId: string): Promise<string | null> {
  const run = await store.runs.read(runId);
  for (const record of run.records) {
    if (record.type !== 'llm.request') continue;
    const messages = ((record as { input?: { messages?: BaseMessage[] } }).input?.messages ??
      []) as BaseMessage[];
    const message = messages.find(
      (candidate) => candidate.role === 'tool' && candidate.tool_call_id === callId,
    );
    if (message !== undefined) return contentText(message);
  }
  return null;
}

/**
 * Runs the whole demo: a fresh home and sample workspace, the scripted conversation (with the
 * interrupt, the failure, the resume in a fresh process and the fork), the task episode over
 * MCP, the ledger projection, and the checks. Returns the report (also saved in the home).
 */
export async function runDemo(options: DemoOptions): Promise<DemoReport> {
  const startedAt = new Date();
  const { model, progress } = options;
  const layout: DemoHomeLayout = await recreateDemoHome(options.home, {
    isDefault: options.isDefaultHome,
  });
  await createSampleWorkspace(layout.workspace);
  progress(
    `Episodic demo — a small agent with a trustworthy memory (model: ${model.label}${model.offline ? ', offline' : ''})`,
  );
  progress(`Home: ${layout.home}`);
  progress(
    `      recreated fresh for this run${options.isDefaultHome ? ' (the default; --home DIR picks another folder)' : ''}`,
  );
  progress('');

  const store = createFsStore({ root: layout.home, durability: 'run' });
  const sqlite = createSqliteStore({ filename: layout.database });
  let tracker: TaskTracker | null = null;
  try {
    const sessionId = randomUUID();
    tracker = await startTaskTracker({
      home: layout.home,
      scope: DEMO_SCOPE,
      task: {
        task_description:
          'Explore the sample workspace: list and read its files, add up the invoice, check the server log for errors, and keep going through an interrupt, a failed model call and a restart.',
        domain: 'episodic-demo',
        task_type: 'analysis',
        tags: ['demo', 'workspace', model.offline ? 'offline' : 'online'],
        complexity: 'moderate',
        metadata: { app: 'episodic-demo', model: model.label },
        session_id: sessionId,
      },
    });
    const activeTracker = tracker;
    progress(
      `Task episode ${tracker.episodeId} created over MCP (episodic-mcp --scope ${DEMO_SCOPE}, stdio).`,
    );
    progress(`Session ${sessionId}: run files and snapshots under ${layout.runs}`);
    progress('');

    let agent = await openDemoAgent({
      model,
      store,
      workspace: layout.workspace,
      sessionId,
      tracker,
      artifacts: sqlite.artifacts,
    });
    const turns: TurnSummary[] = [];
    const run = async (step: ScriptedTurn, on: DemoAgent, turnOptions: TurnOptions = {}) => {
      const record = await on.turn(step.input, {
        ...turnOptions,
        title: `${step.label}: ${step.input}`,
      });
      const summary = summarizeTurn(record, step.label, step.shows, 'main');
      turns.push(summary);
      for (const line of renderTurn(summary)) progress(line);
      return summary;
    };

    let aiSdkTurn: TurnSummary | null = null;
    if (options.aiSdk === true) {
      // T1 through the AI SDK: generateText, the model wrapped by @episodic/ai-sdk's middleware.
      const record = await runAiSdkTurn(SCRIPT.list.input, {
        session: agent.session,
        model,
        store,
        workspace: layout.workspace,
        tracker,
        title: `${SCRIPT.list.label}: ${SCRIPT.list.input}`,
      });
      aiSdkTurn = summarizeTurn(
        record,
        SCRIPT.list.label,
        `${SCRIPT.list.shows}, through the Vercel AI SDK (generateText + @episodic/ai-sdk)`,
        'main',
      );
      turns.push(aiSdkTurn);
      for (const line of renderTurn(aiSdkTurn)) progress(line);
    } else {
      await run(SCRIPT.list, agent);
    }
    await run(SCRIPT.invoice, agent);
    await run(SCRIPT.everyFile, agent);
    const interruptReason = 'The user pressed Ctrl-C while the agent was working (simulated).';
    // keep: 'partial' commits the turn's input and the model's call before the boundary, so the
    // next input shows the model exactly which call was cut off (healed with a synthetic output).
    const interrupt = () => agent.interrupt(interruptReason, { keep: 'partial' });
    await run(SCRIPT.scan, agent, {
      onToolStart: () => void interrupt(),
      model: withInterruptOnAnswer(model, interrupt),
    });
    await run(SCRIPT.log, agent);
    await run(SCRIPT.recap, agent);

    const before = storedSessionSha256(layout, sessionId);
    const failed = await run(SCRIPT.outage, agent, { model: withOutage(model) });
    const after = storedSessionSha256(layout, sessionId);

    // A fresh process continues the session from its snapshot; this process waits for it.
    const snapshot = await store.sessions.load(sessionId);
    const childArgs = [
      options.entry,
      'resume',
      '--home',
      layout.home,
      '--session',
      sessionId,
      '--input',
      SCRIPT.resume.input,
      '--json',
      ...(options.modelSpec === 'built-in' ? [] : ['--model', options.modelSpec]),
    ];
    const child = await runProcess(process.execPath, childArgs, 120_000);
    if (child.code !== 0) {
      throw new Error(
        `The resumed process (${process.execPath} ${childArgs.join(' ')}) exited with ${child.code}: ${child.stderr.trim() || child.stdout.trim()}`,
      );
    }
    const resumed = JSON.parse(child.stdout) as ResumeResult;
    const resumedTurn: TurnSummary = {
      ...resumed.turn,
      label: SCRIPT.resume.label,
      shows: SCRIPT.resume.shows,
    };
    turns.push(resumedTurn);
    for (const line of renderTurn(resumedTurn)) progress(line);
    progress(
      `      process ${resumed.pid} loaded ${resumed.episodesLoaded} episodes from snapshot revision ${resumed.snapshotRevision}; its llm.request seq continues from invoke_seq ${resumed.snapshotInvokeSeq}`,
    );
    for (const call of resumedTurn.toolCalls) {
      await activeTracker.step({
        tool: call.name,
        action: `${call.name} ${call.arguments}`,
        result: call.isError
          ? { type: 'error', message: 'see the run file' }
          : { type: 'success', output: `${call.outputChars ?? 0} chars` },
        latency_ms: call.latencyMs,
      });
    }
    await activeTracker.step({
      tool: 'agent_turn',
      action: `${SCRIPT.resume.label}: ${SCRIPT.resume.input} (resumed in process ${resumed.pid})`,
      result:
        resumedTurn.outcome === 'completed'
          ? { type: 'success', output: resumedTurn.answer ?? '' }
          : { type: 'error', message: resumedTurn.error ?? resumedTurn.outcome },
    });

    // The child committed a turn: reload the session before touching it again.
    agent = await openDemoAgent({
      model,
      store,
      workspace: layout.workspace,
      sessionId,
      resume: true,
      tracker,
      artifacts: sqlite.artifacts,
    });
    const forkedAtEpisode = agent.session.log.lastId;
    const forkAgent = agent.fork();
    progress(
      `Fork  session ${sessionId.slice(0, 8)}… forked into ${forkAgent.session.id} at episode #${forkedAtEpisode}`,
    );
    await run(SCRIPT.fork, forkAgent);
    progress('');

    const completed = turns.filter(
      (turn) => turn.outcome === 'completed' || turn.outcome === 'step-limit',
    );
    const unfinished = turns.filter(
      (turn) => turn.outcome === 'failed' || turn.outcome === 'interrupted',
    );
    await tracker.complete(
      unfinished.length === 0
        ? { outcome_type: 'success', verdict: `All ${turns.length} turns completed.` }
        : {
            outcome_type: 'partial_success',
            verdict: `${completed.length} of ${turns.length} turns completed; ${unfinished.length} ${unfinished.length === 1 ? 'was' : 'were'} interrupted or failed.`,
            completed: completed.map((turn) => `${turn.label}: ${turn.input}`),
            failed: unfinished.map((turn) => `${turn.label}: ${turn.input} (${turn.outcome})`),
          },
    );
    const episode = await tracker.episode();
    const taskTimeline = await tracker.timeline();

    // Index what happened into the SQLite ledger, each event once: every run, and what only the
    // sessions hold (the fork's history up to the fork point is the original's).
    const mainEpisodes = [...agent.session.log.read({ fromId: 0 })];
    const forkEpisodes = [...forkAgent.session.log.read({ fromId: 0 })];
    const runs = await readRuns(store, [sessionId, forkAgent.session.id]);
    const sources = {
      sessions: [
        { id: sessionId, episodes: mainEpisodes },
        { id: forkAgent.session.id, episodes: forkEpisodes, inheritedThrough: forkedAtEpisode },
      ],
      runs,
    };
    const indexed = await indexIntoLedger(sqlite.ledger, sources);
    const byType = await ledgerCounts(sqlite.ledger, DEMO_SCOPE);
    const otherScope = await sqlite.ledger.query({ scope: OTHER_SCOPE, limit: 500 });
    const projected = projectBySource(sources);
    const fromEpisodes = projected.fromSessions.length;
    const fromRuns = projected.fromRuns.length;

    const labelOfRun = new Map(turns.map((turn) => [turn.runId, turn.label]));
    const truncated = turns
      .flatMap((turn) => turn.toolCalls.map((call) => ({ turn, call })))
      .find(({ call }) => (call.outputChars ?? 0) > 8_000);
    const truncatedView =
      truncated === undefined
        ? null
        : await modelView(store, truncated.turn.runId, truncated.call.callId);
    const truncationNote = truncated?.turn.modelCalls
      .flatMap((call) => call.manifest.notes)
      .find((note) => note.kind === 'truncated-output');
    const stepLimited = turns.find(
      (turn) => turn.outcome === 'step-limit' && turn.pendingCalls.length > 0,
    );
    const pending = stepLimited?.pendingCalls[0];
    const healing =
      stepLimited === undefined
        ? undefined
        : turns
            .slice(turns.indexOf(stepLimited) + 1)
            .map((turn) => ({
              turn,
              note: turn.modelCalls
                .flatMap((call) => call.manifest.notes)
                .find((note) => note.kind === 'synthesized-output'),
            }))
            .find(({ note }) => note !== undefined);
    const interrupted = turns.find((turn) => turn.outcome === 'interrupted');
    const restart = turns
      .flatMap((turn) => turn.modelCalls.map((call) => ({ turn, call })))
      .find(
        ({ call }) =>
          call.manifest.start === 'budget-boundary' || call.manifest.start === 'budget-turn',
      );
    const compacted = turns.find(
      (turn) => turn.compaction !== null && turn.sessionId === sessionId,
    );
    const afterCompaction =
      compacted === undefined
        ? undefined
        : turns
            .slice(turns.indexOf(compacted) + 1)
            .find((turn) => turn.sessionId === sessionId && turn.modelCalls.length > 0);
    const forkTurn = turns.find((turn) => turn.label === SCRIPT.fork.label);
    const mainState = await store.sessions.load(sessionId);
    const forkState = await store.sessions.load(forkAgent.session.id);

    const report: DemoReport = {
      kind: 'episodic.demo',
      schema_version: 1,
      ok: false,
      model: model.label,
      offline: model.offline,
      pid: process.pid,
      started_at: startedAt.toISOString(),
      finished_at: '',
      home: { path: layout.home, fresh: true, isDefault: options.isDefaultHome },
      paths: {
        workspace: layout.workspace,
        database: layout.database,
        runsFolder: layout.runs,
        snapshotsFolder: layout.snapshots,
        toolOutputsFolder: layout.toolOutputs,
        report: layout.report,
        runFiles: runs.map((entry) => ({
          runId: entry.id,
          path: entry.path ?? '',
          label:
            labelOfRun.get(entry.id) ??
            (entry.id === activeTracker.episodeId ? 'task episode' : 'run'),
        })),
        snapshots: [sessionId, forkAgent.session.id].map((id) => ({
          sessionId: id,
          path: snapshotPath(layout, id),
        })),
      },
      session: { id: sessionId, revision: mainState?.revision ?? 0, episodes: mainEpisodes.length },
      fork: {
        id: forkAgent.session.id,
        forkedAtEpisode,
        revision: forkState?.revision ?? 0,
        episodes: forkEpisodes.length,
      },
      turns,
      scenarios: {
        truncation:
          truncated === undefined
            ? null
            : {
                turn: truncated.turn.label,
                runId: truncated.turn.runId,
                callId: truncated.call.callId,
                path: String(
                  (JSON.parse(truncated.call.arguments) as { path?: string }).path ?? LONG_LOG_PATH,
                ),
                fileChars: truncated.call.outputChars ?? 0,
                viewChars: truncatedView?.length ?? 0,
                omittedChars: Number(
                  /\(truncated: (\d+) chars omitted\)/.exec(truncatedView ?? '')?.[1] ?? 0,
                ),
                episodeId: truncationNote?.episode_id ?? null,
                manifestNote: truncationNote?.detail ?? null,
                cacheFile: `${layout.toolOutputs}/${truncated.call.callId.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`,
              },
        danglingCall:
          stepLimited === undefined || pending === undefined
            ? null
            : {
                turn: stepLimited.label,
                callId: pending.callId,
                name: pending.name,
                arguments: pending.arguments,
                healedIn: healing?.turn.label ?? null,
                manifestNote: healing?.note?.detail ?? null,
              },
        interrupt:
          interrupted === undefined
            ? null
            : {
                turn: interrupted.label,
                boundaryId: interrupted.interruptBoundaryId,
                reason: interrupted.error,
              },
        failedTurn:
          failed.outcome !== 'failed'
            ? null
            : {
                turn: failed.label,
                runId: failed.runId,
                turnId: failed.turnId,
                error: failed.error,
                snapshotSha256Before: before,
                snapshotSha256After: after,
                revisionBefore: failed.revisionBefore,
                revisionAfter: failed.revisionAfter,
              },
        budgetRestart:
          restart === undefined
            ? null
            : {
                turn: restart.turn.label,
                round: restart.call.round,
                seq: restart.call.seq,
                startId: restart.call.manifest.start_id,
                start: restart.call.manifest.start,
                limit: restart.call.manifest.budget?.limit ?? 0,
                lastInputTokens: restart.call.manifest.budget?.last_input_tokens ?? null,
                droppedByReason: restart.call.manifest.dropped.by_reason,
                droppedBudgetIds: restart.call.manifest.dropped.budget_ids,
              },
        compaction:
          compacted?.compaction == null
            ? null
            : {
                turn: compacted.label,
                checkpointId: compacted.compaction.checkpointId,
                covers: compacted.compaction.covers,
                artifactKey: compacted.compaction.artifactKey,
                reason: compacted.compaction.reason,
                nextTurn: afterCompaction?.label ?? null,
                nextStartId: afterCompaction?.modelCalls[0]?.manifest.start_id ?? null,
              },
        resume: {
          turn: resumedTurn.label,
          runId: resumedTurn.runId,
          pid: resumed.pid,
          parentPid: process.pid,
          snapshotRevision: snapshot?.revision ?? 0,
          snapshotInvokeSeq: snapshot?.invoke_seq ?? 0,
          firstSeq: resumedTurn.modelCalls[0]?.seq ?? null,
          episodesLoaded: resumed.episodesLoaded,
          answer: resumedTurn.answer,
          command: [process.execPath, ...childArgs],
        },
        fork:
          forkTurn === undefined
            ? null
            : { turn: forkTurn.label, forkId: forkAgent.session.id, forkedAtEpisode },
        aiSdk:
          aiSdkTurn === null
            ? null
            : {
                turn: aiSdkTurn.label,
                runId: aiSdkTurn.runId,
                turnId: aiSdkTurn.turnId,
                nextTurn: turns[turns.indexOf(aiSdkTurn) + 1]?.label ?? null,
              },
      },
      timeline: buildTimeline(
        mainEpisodes,
        turns.filter((turn) => turn.sessionId === sessionId),
      ),
      ledger: {
        scope: DEMO_SCOPE,
        database: layout.database,
        byType,
        projected: indexed.projected,
        fromEpisodes,
        fromRuns,
        appended: indexed.appended,
        duplicates: indexed.duplicates,
        otherScope: { scope: OTHER_SCOPE, events: otherScope.events.length },
      },
      task: {
        episodeId: tracker.episodeId,
        scope: DEMO_SCOPE,
        serverCommand: tracker.serverCommand,
        calls: { ...tracker.calls },
        episode,
        timeline: taskTimeline,
      },
      commands: exploreCommands({
        home: layout.home,
        sessionId,
        forkId: forkAgent.session.id,
        failedRunId: failed.outcome === 'failed' ? failed.runId : null,
        taskId: tracker.episodeId,
        aiSdkRunId: aiSdkTurn?.runId ?? null,
      }),
      checks: [],
    };
    report.checks = await runChecks({
      report,
      layout,
      store,
      ledger: sqlite.ledger,
      readTask: () => activeTracker.episode(),
      callMcp: (name, args) => activeTracker.call(name, args),
    });
    report.ok = report.checks.every((check) => check.status !== 'failed');
    report.finished_at = new Date().toISOString();
    await writeFile(layout.report, `${JSON.stringify(report, null, 2)}\n`);
    return report;
  } finally {
    await tracker?.close();
    await sqlite.close();
    await store.close();
  }
}
