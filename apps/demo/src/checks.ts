import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BaseMessage,
  createEpisodic,
  type Episode,
  INTERRUPTED_CALL_OUTPUT,
  type Ledger,
  type RunReadResult,
  type RunRecord,
  sessionEpisodes,
  snapshotEpisodes,
  type TaskEpisode,
} from '@episodic/core';
import { sessionStateSchema } from '@episodic/core/schemas';
import type { FsStore } from '@episodic/store-fs';
import type { ManifestSummary } from './agent/manifest-summary.js';
import { type DemoHomeLayout, snapshotPath } from './demo-home.js';
import {
  countByType,
  DEMO_SCOPE,
  ledgerCounts,
  OTHER_SCOPE,
  projectSources,
} from './ledger-index.js';
import type { CheckResult, DemoReport } from './report.js';
import { INVOICE_TOTAL } from './sample-workspace.js';
import type { ToolCallOutcome } from './task-tracker.js';

/** What the checks read: the report (ids and evidence) and the stores under the demo home. */
export interface CheckContext {
  readonly report: DemoReport;
  readonly layout: DemoHomeLayout;
  readonly store: FsStore;
  readonly ledger: Ledger;
  /** Reads the task episode (through the MCP server when it is running, else from the stores). */
  readonly readTask: () => Promise<TaskEpisode>;
  /** Calls a tool of the running MCP server; absent in `verify`, where no server runs. */
  readonly callMcp?: (name: string, args: Record<string, unknown>) => Promise<ToolCallOutcome>;
}

/** A failed check: its message says what is wrong and where. */
class CheckFailure extends Error {}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

type Outcome = string | { skipped: string };

interface LoadedRun {
  readonly read: RunReadResult;
  readonly path: string | null;
}

/** Reads everything once: runs of both sessions and both snapshots. */
class DiskView {
  private runsPromise: Promise<Map<string, LoadedRun>> | null = null;
  private readonly logs = new Map<string, Promise<Episode[]>>();

  constructor(private readonly context: CheckContext) {}

  sessionIds(): string[] {
    const { report } = this.context;
    return report.fork === null ? [report.session.id] : [report.session.id, report.fork.id];
  }

  runs(): Promise<Map<string, LoadedRun>> {
    this.runsPromise ??= (async () => {
      const runs = new Map<string, LoadedRun>();
      for (const sessionId of this.sessionIds()) {
        const listed = await this.context.store.runs.list({ sessionId });
        assert(
          listed.errors.length === 0,
          `run listing of session ${sessionId} reported ${listed.errors.length} unreadable run(s): ${listed.errors.map((error) => error.message).join('; ')}`,
        );
        for (const summary of listed.runs) {
          const read = await this.context.store.runs.read(summary.runId);
          runs.set(summary.runId, {
            read,
            path: await this.context.store.locateRun(summary.runId),
          });
        }
      }
      return runs;
    })();
    return this.runsPromise;
  }

  async run(runId: string): Promise<LoadedRun> {
    const run = (await this.runs()).get(runId);
    assert(run !== undefined, `run ${runId} is not listed under the demo home`);
    return run;
  }

  log(sessionId: string): Promise<Episode[]> {
    let loaded = this.logs.get(sessionId);
    if (loaded === undefined) {
      loaded = (async () => {
        const state = await this.context.store.sessions.load(sessionId);
        assert(state !== null, `the snapshot of session ${sessionId} is missing`);
        return createEpisodic(snapshotEpisodes(state)).read({ fromId: 0 }) as Episode[];
      })();
      this.logs.set(sessionId, loaded);
    }
    return loaded;
  }
}

const recordsOf = <Type extends string>(run: RunReadResult, type: Type) =>
  run.records.filter((record) => record.type === type) as Array<
    RunRecord & Record<string, unknown>
  >;

function requestMessages(record: Record<string, unknown>): BaseMessage[] {
  return ((record.input as { messages?: BaseMessage[] } | undefined)?.messages ??
    []) as BaseMessage[];
}

function requestManifest(record: Record<string, unknown>): ManifestSummary | undefined {
  return (record.meta as { manifest?: ManifestSummary } | undefined)?.manifest;
}

function contentText(message: BaseMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
  return '';
}

/** The `llm.request` records of the turns after `label`, in turn order. */
async function laterRequests(view: DiskView, report: DemoReport, label: string) {
  const index = report.turns.findIndex((turn) => turn.label === label);
  const requests: Array<{ turn: string; record: Record<string, unknown> }> = [];
  for (const turn of report.turns.slice(index + 1)) {
    if (turn.sessionId !== report.session.id) continue;
    const run = await view.run(turn.runId);
    for (const record of recordsOf(run.read, 'llm.request'))
      requests.push({ turn: turn.label, record });
  }
  return requests;
}

const scenarioMissing = (report: DemoReport, what: string): Outcome => {
  if (report.offline)
    throw new CheckFailure(`${what} did not happen, although the built-in model always does it`);
  return {
    skipped: `${what} did not happen with ${report.model} (it depends on what the model chose)`,
  };
};

async function checkRunFiles(context: CheckContext, view: DiskView): Promise<Outcome> {
  const runs = await view.runs();
  for (const turn of context.report.turns) {
    assert(runs.has(turn.runId), `the run of ${turn.label} (${turn.runId}) has no run file`);
  }
  let records = 0;
  // The cache keeps the latest output under each id (ids can repeat across runs).
  const latest = new Map<string, { ts: string; raw: string; where: string }>();
  for (const [runId, run] of runs) {
    const where = run.path ?? runId;
    assert(run.path !== null && existsSync(run.path), `run ${runId}: no file at ${where}`);
    const firstError = run.read.errors[0];
    assert(
      firstError === undefined,
      `run file ${where} has ${run.read.errors.length} damaged line(s); first: line ${firstError?.line ?? '?'}: ${firstError?.message}`,
    );
    assert(
      !run.read.bestEffort,
      `run file ${where} is only readable best-effort: ${run.read.bestEffortReason}`,
    );
    assert(run.read.ended, `run file ${where} has no run.end record (the run did not finish)`);
    for (const output of recordsOf(run.read, 'tool.output')) {
      const ref = output.output_ref as { id?: string } | undefined;
      const seen = ref?.id === undefined ? undefined : latest.get(ref.id);
      if (ref?.id !== undefined && (seen === undefined || seen.ts <= String(output.ts))) {
        latest.set(ref.id, { ts: String(output.ts), raw: String(output.result_raw), where });
      }
    }
    records += run.read.records.length;
  }
  for (const [id, { raw, where }] of latest) {
    const cached = await context.store.readToolOutput(id);
    assert(
      cached === raw,
      `the tool-output cache file ${id}.txt does not hold the full output recorded in ${where}`,
    );
  }
  return `${runs.size} run files, ${records} records, no damaged line, every run ended, every cached tool output complete`;
}

async function checkSnapshots(context: CheckContext, view: DiskView): Promise<Outcome> {
  const parts: string[] = [];
  for (const sessionId of view.sessionIds()) {
    // The base file alone is a seed 001 SessionState (as of its revision) for other readers.
    const path = snapshotPath(context.layout, sessionId);
    assert(existsSync(path), `the snapshot ${path} is missing`);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new CheckFailure(
        `the snapshot ${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const parsed = sessionStateSchema.safeParse(json);
    assert(
      parsed.success,
      `the snapshot ${path} is not a session state: ${parsed.error?.issues[0]?.message}`,
    );
    // The session as stored: the base and the commits since, restored into a log.
    const stored = await context.store.sessions.read(sessionId);
    assert(stored !== null, `the session ${sessionId} cannot be read back from the store`);
    const log = createEpisodic(sessionEpisodes(stored));
    const parseErrors = log
      .read({ fromId: 0 })
      .filter((episode) => episode.type === 'meta' && episode.payload.event === 'error.parse');
    assert(
      parseErrors.length === 0,
      `the episodic log of session ${sessionId} has damaged lines: ${JSON.stringify(parseErrors[0]?.payload)}`,
    );
    assert(log.size > 0, `the session ${sessionId} holds an empty log`);
    parts.push(
      `${sessionId.slice(0, 8)}: revision ${stored.state.revision}, ${log.size} episodes (base revision ${stored.baseRevision} + ${stored.deltas.length} commits)`,
    );
  }
  assert(existsSync(context.layout.database), `the database ${context.layout.database} is missing`);
  return `snapshots parse and restore (${parts.join('; ')}); the database exists`;
}

async function checkPairing(view: DiskView): Promise<Outcome> {
  let requests = 0;
  let calls = 0;
  for (const [runId, run] of await view.runs()) {
    for (const request of recordsOf(run.read, 'llm.request')) {
      requests++;
      const open = new Set<string>();
      const answered = new Set<string>();
      for (const message of requestMessages(request)) {
        for (const call of message.tool_calls ?? []) {
          assert(
            !open.has(call.id) && !answered.has(call.id),
            `run ${runId} llm.request ${request.seq}: call ${call.id} appears twice`,
          );
          open.add(call.id);
          calls++;
        }
        if (message.role === 'tool') {
          const id = String(message.tool_call_id);
          assert(
            open.has(id),
            `run ${runId} llm.request ${request.seq}: tool output ${id} has no call before it`,
          );
          open.delete(id);
          answered.add(id);
        }
      }
      assert(
        open.size === 0,
        `run ${runId} llm.request ${request.seq}: call(s) ${[...open].join(', ')} sent without an output`,
      );
    }
  }
  return `${requests} model inputs, ${calls} tool calls, each paired with exactly one output`;
}

async function checkTruncation(context: CheckContext, view: DiskView): Promise<Outcome> {
  const scenario = context.report.scenarios.truncation;
  if (scenario === null)
    return scenarioMissing(context.report, 'a tool output over 8,000 characters');
  const run = await view.run(scenario.runId);
  const output = recordsOf(run.read, 'tool.output').find(
    (record) => record.tool_call_id === scenario.callId,
  );
  assert(output !== undefined, `run ${scenario.runId} has no tool.output for ${scenario.callId}`);
  const raw = String(output.result_raw);
  const file = readFileSync(join(context.layout.workspace, scenario.path), 'utf8');
  assert(
    raw === file,
    `the run file does not hold ${scenario.path} completely (${raw.length} of ${file.length} chars)`,
  );
  assert(raw.length > 8_000, `${scenario.path} is only ${raw.length} chars: not a long output`);
  const ref = output.output_ref as { id: string; byte_size: number } | undefined;
  assert(
    ref !== undefined && ref.byte_size === Buffer.byteLength(file),
    `output_ref of ${scenario.callId} does not give the full size`,
  );
  assert(
    (await context.store.readToolOutput(ref.id)) === file,
    `the cache file ${ref.id}.txt is not the full output`,
  );
  const views = recordsOf(run.read, 'llm.request').flatMap((request) =>
    requestMessages(request).filter(
      (message) => message.role === 'tool' && message.tool_call_id === scenario.callId,
    ),
  );
  assert(
    views.length > 0,
    `no model input of run ${scenario.runId} holds the output of ${scenario.callId}`,
  );
  for (const message of views) {
    const text = contentText(message);
    const marker = /\(truncated: (\d+) chars omitted\)/.exec(text);
    assert(
      marker !== null && text.length < raw.length,
      `the model saw the full ${raw.length} chars of ${scenario.path}: it was not truncated`,
    );
    assert(
      Number(marker[1]) === raw.length - 8_000,
      `the truncation marker says ${marker[1]} chars omitted, expected ${raw.length - 8_000}`,
    );
  }
  return `${scenario.path}: ${raw.length.toLocaleString('en-US')} chars complete in the run file and cache/tool-output/${ref.id}.txt; the model saw ${views[0] ? contentText(views[0]).length.toLocaleString('en-US') : '?'} (${scenario.omittedChars.toLocaleString('en-US')} omitted)`;
}

async function checkInterrupt(context: CheckContext, view: DiskView): Promise<Outcome> {
  const { report } = context;
  const turn = report.turns.find((candidate) => candidate.outcome === 'interrupted');
  if (turn === undefined) return scenarioMissing(report, 'an interrupted turn');
  const run = await view.run(turn.runId);
  const end = recordsOf(run.read, 'run.end')[0];
  assert(
    end?.outcome === 'cancelled',
    `the run of the interrupted turn ${turn.label} ended "${String(end?.outcome)}", not "cancelled"`,
  );
  const log = await view.log(turn.sessionId);
  const ofTurn = log.filter((episode) => episode.meta.turnId === turn.turnId);
  const boundary = ofTurn[ofTurn.length - 1];
  assert(
    boundary?.type === 'boundary' && boundary.payload.reason === 'interrupt',
    `the session should end ${turn.label} with its interrupt boundary; it holds ${ofTurn.map((episode) => episode.type).join(', ') || 'none'}`,
  );
  // keep: 'partial': the turn's input and the call it was running are committed before the boundary.
  const answered = new Set(
    ofTurn.flatMap((episode) =>
      episode.type === 'item' && episode.payload.item.type === 'function_call_output'
        ? [String(episode.payload.item.call_id)]
        : [],
    ),
  );
  const unfinished = ofTurn.flatMap((episode) =>
    episode.type === 'item' &&
    episode.payload.item.type === 'function_call' &&
    !answered.has(String(episode.payload.item.call_id))
      ? [
          {
            id: episode.id,
            callId: String(episode.payload.item.call_id),
            name: String(episode.payload.item.name),
          },
        ]
      : [],
  );
  assert(
    ofTurn[0]?.type === 'item' && ofTurn[0].meta.source === 'user',
    `${turn.label}'s input was not kept before its interrupt boundary`,
  );
  assert(
    unfinished.length > 0,
    `${turn.label} was interrupted while a tool ran, but no call of it is left without an output`,
  );
  const content = String((boundary?.payload as { content?: string } | undefined)?.content);
  const later = await laterRequests(view, report, turn.label);
  const seen = later.find(({ record }) =>
    requestMessages(record).some(
      (message) =>
        message.role === 'user' &&
        contentText(message).startsWith('<interrupt>') &&
        contentText(message).includes(content),
    ),
  );
  assert(seen !== undefined, `no later model input shows the <interrupt> message of ${turn.label}`);
  const cut = unfinished[0] as { id: number; callId: string; name: string };
  const healed = later.find(({ record }) =>
    requestMessages(record).some(
      (message) =>
        message.role === 'tool' &&
        message.tool_call_id === cut.callId &&
        contentText(message) === INTERRUPTED_CALL_OUTPUT,
    ),
  );
  assert(
    healed !== undefined,
    `no later model input pairs ${turn.label}'s unfinished call ${cut.callId} with a synthesized output`,
  );
  return `${turn.label} kept up to the interrupt (run cancelled): ${cut.name} call #${cut.id} left without an output, boundary #${boundary.id} committed; ${seen.turn}'s model input showed the boundary and healed the call`;
}

async function checkDanglingCall(context: CheckContext, view: DiskView): Promise<Outcome> {
  const { report } = context;
  const scenario = report.scenarios.danglingCall;
  if (scenario === null)
    return scenarioMissing(report, 'a call left without an output (step limit)');
  const log = await view.log(report.session.id);
  const call = log.find(
    (episode) =>
      episode.type === 'item' &&
      episode.payload.item.type === 'function_call' &&
      episode.payload.item.call_id === scenario.callId,
  );
  assert(call !== undefined, `the session has no call ${scenario.callId}`);
  const output = log.find(
    (episode) =>
      episode.type === 'item' &&
      episode.payload.item.type === 'function_call_output' &&
      episode.payload.item.call_id === scenario.callId,
  );
  assert(
    output === undefined,
    `call ${scenario.callId} has an output in the log: it is not dangling`,
  );
  const later = await laterRequests(view, report, scenario.turn);
  assert(later.length > 0, `no model input after ${scenario.turn}`);
  const healed = later.find(({ record }) =>
    requestMessages(record).some(
      (message) =>
        message.role === 'tool' &&
        message.tool_call_id === scenario.callId &&
        contentText(message) === INTERRUPTED_CALL_OUTPUT,
    ),
  );
  assert(
    healed !== undefined,
    `no later model input pairs ${scenario.callId} with a synthesized output`,
  );
  return `call ${scenario.callId} (${scenario.name}) has no output in the log (#${call.id}); ${healed.turn}'s input paired it with a synthesized output, the log unchanged`;
}

async function checkFailedTurn(context: CheckContext, view: DiskView): Promise<Outcome> {
  const { report } = context;
  const scenario = report.scenarios.failedTurn;
  if (scenario === null) return scenarioMissing(report, 'a failed turn');
  assert(
    scenario.snapshotSha256Before === scenario.snapshotSha256After,
    `the snapshot changed during the failed turn ${scenario.turn} (sha256 ${scenario.snapshotSha256Before.slice(0, 12)} → ${scenario.snapshotSha256After.slice(0, 12)})`,
  );
  assert(
    scenario.revisionBefore === scenario.revisionAfter,
    `the revision moved during the failed turn (${scenario.revisionBefore} → ${scenario.revisionAfter})`,
  );
  const run = await view.run(scenario.runId);
  assert(
    recordsOf(run.read, 'run.error').length === 1,
    `the failed turn's run has no run.error record`,
  );
  assert(
    recordsOf(run.read, 'run.end')[0]?.outcome === 'error',
    `the failed turn's run did not end with outcome "error"`,
  );
  const log = await view.log(report.session.id);
  const leaked = log.filter((episode) => episode.meta.turnId === scenario.turnId);
  assert(
    leaked.length === 0,
    `the session holds ${leaked.length} episode(s) of the failed turn ${scenario.turn}`,
  );
  return `${scenario.turn} failed ("${scenario.error}"); snapshot byte-identical before and after (sha256 ${scenario.snapshotSha256Before.slice(0, 12)}…), revision ${scenario.revisionBefore}, no episode of it in the log; its run file keeps run.error`;
}

async function checkBudgetAndCheckpoint(context: CheckContext, view: DiskView): Promise<Outcome> {
  const { report } = context;
  const restart = report.scenarios.budgetRestart;
  const compaction = report.scenarios.compaction;
  if (restart === null) return scenarioMissing(report, 'a budget restart');
  if (compaction === null) return scenarioMissing(report, 'a compaction checkpoint');
  const turn = report.turns.find((candidate) => candidate.label === restart.turn);
  assert(turn !== undefined, `no turn ${restart.turn}`);
  const run = await view.run(turn.runId);
  const request = recordsOf(run.read, 'llm.request').find((record) => record.seq === restart.seq);
  const manifest = request === undefined ? undefined : requestManifest(request);
  assert(
    manifest !== undefined,
    `llm.request ${restart.seq} of ${restart.turn} records no manifest`,
  );
  assert(
    manifest.budget?.exceeded === true,
    `the manifest of llm.request ${restart.seq} does not say the budget was exceeded`,
  );
  assert(
    manifest.start === 'budget-boundary' || manifest.start === 'budget-turn',
    `llm.request ${restart.seq} started at "${manifest.start}", not a budget restart`,
  );
  assert(
    manifest.dropped.budget_ids.length > 0,
    `the budget restart of llm.request ${restart.seq} dropped nothing`,
  );
  const log = await view.log(report.session.id);
  const checkpoint = log.find((episode) => episode.id === compaction.checkpointId);
  assert(
    checkpoint?.type === 'boundary' && checkpoint.payload.reason === 'checkpoint',
    `episode #${compaction.checkpointId} is not a checkpoint boundary`,
  );
  const covers = (checkpoint.payload as { covers?: { fromId: number; toId: number } }).covers;
  assert(
    covers !== undefined && covers.toId === compaction.checkpointId - 1,
    `checkpoint #${compaction.checkpointId} does not cover the episodes before it`,
  );
  const compactedIn = report.turns.find((candidate) => candidate.label === compaction.turn);
  assert(compactedIn !== undefined, `no turn ${compaction.turn}`);
  const compactionRun = await view.run(compactedIn.runId);
  const events = recordsOf(compactionRun.read, 'agent.event').map(
    (record) => (record.event as { type: string }).type,
  );
  assert(
    events.includes('compaction_start') && events.includes('compaction_complete'),
    `the run of ${compaction.turn} has no compaction_start / compaction_complete events`,
  );
  const next = (await laterRequests(view, report, compaction.turn))[0];
  assert(next !== undefined, `no model input after the compaction`);
  const nextManifest = requestManifest(next.record);
  assert(
    nextManifest?.start_id === compaction.checkpointId,
    `${next.turn}'s input started at #${nextManifest?.start_id}, not at checkpoint #${compaction.checkpointId}`,
  );
  const first = requestMessages(next.record)[1];
  assert(
    first !== undefined && contentText(first).startsWith('<checkpoint>'),
    `${next.turn}'s input does not begin with the checkpoint summary`,
  );
  return `${restart.turn} llm.request ${restart.seq} restarted at #${manifest.start_id} (${manifest.start}: last input ${manifest.budget.last_input_tokens} > ${manifest.budget.limit} tokens), dropping ${manifest.dropped.budget_ids.length} episodes; checkpoint #${compaction.checkpointId} covers #${covers.fromId}–#${covers.toId}; ${next.turn} starts at it`;
}

async function checkInvocationSeq(view: DiskView): Promise<Outcome> {
  let requests = 0;
  for (const [runId, run] of await view.runs()) {
    const header = run.read.header as { meta?: { resume?: { invoke_seq?: number } } } | null;
    const base = header?.meta?.resume?.invoke_seq ?? 0;
    const seqs = recordsOf(run.read, 'llm.request').map((record) => Number(record.seq));
    seqs.forEach((seq, index) => {
      assert(
        seq === base + index + 1,
        `run ${runId}: llm.request ${index + 1} has seq ${seq}, expected ${base + index + 1} (continuing from invoke_seq ${base})`,
      );
    });
    const responses = recordsOf(run.read, 'llm.response').map((record) => Number(record.seq));
    for (const seq of responses)
      assert(seqs.includes(seq), `run ${runId}: llm.response ${seq} answers no llm.request`);
    requests += seqs.length;
  }
  return `${requests} llm.request records; each run continues the invocation count of the snapshot it resumed, responses match requests`;
}

async function checkResume(context: CheckContext, view: DiskView): Promise<Outcome> {
  const { report } = context;
  const scenario = report.scenarios.resume;
  assert(scenario !== null, 'the demo did not resume the session in a fresh process');
  assert(
    scenario.pid !== scenario.parentPid,
    `the resumed turn ran in the demo's own process (pid ${scenario.pid})`,
  );
  const run = await view.run(scenario.runId);
  const start = recordsOf(run.read, 'run.start')[0];
  assert(
    (start?.meta as { pid?: number } | undefined)?.pid === scenario.pid,
    `the run of ${scenario.turn} does not record the child's pid ${scenario.pid}`,
  );
  const header = run.read.header as {
    meta?: { resume?: { invoke_seq?: number; from_run_id?: string } };
  } | null;
  assert(
    header?.meta?.resume?.invoke_seq === scenario.snapshotInvokeSeq,
    `the resumed run does not continue from the snapshot's invoke_seq ${scenario.snapshotInvokeSeq}`,
  );
  const first = recordsOf(run.read, 'llm.request')[0];
  assert(first !== undefined, `the resumed run made no model call`);
  assert(
    Number(first.seq) === scenario.snapshotInvokeSeq + 1,
    `the resumed run's first llm.request is seq ${String(first.seq)}, expected ${scenario.snapshotInvokeSeq + 1}`,
  );
  const messages = requestMessages(first);
  const earlier =
    messages.some((message) => contentText(message).startsWith('<checkpoint>')) ||
    messages.filter((message) => message.role === 'user').length > 1;
  assert(earlier, `the resumed process's first model input holds no earlier history`);
  if (report.offline) {
    assert(
      scenario.answer?.includes(INVOICE_TOTAL.toFixed(2)) === true,
      `the resumed process did not recall the invoice total (answered "${scenario.answer}")`,
    );
  }
  return `pid ${scenario.pid} (demo: ${scenario.parentPid}) loaded ${scenario.episodesLoaded} episodes at revision ${scenario.snapshotRevision}; its first llm.request is seq ${String(first.seq)} (snapshot invoke_seq ${scenario.snapshotInvokeSeq}) and holds the earlier history${report.offline ? '; it recalled the invoice total' : ''}`;
}

async function checkFork(context: CheckContext, view: DiskView): Promise<Outcome> {
  const { report } = context;
  const fork = report.fork;
  const scenario = report.scenarios.fork;
  assert(fork !== null && scenario !== null, 'the demo did not fork the session');
  const original = await view.log(report.session.id);
  const forked = await view.log(fork.id);
  const shared = original.filter((episode) => episode.id <= fork.forkedAtEpisode);
  assert(
    shared.length === fork.forkedAtEpisode,
    `the original log has ${shared.length} episodes up to the fork point #${fork.forkedAtEpisode}`,
  );
  for (const episode of shared) {
    const copy = forked.find((candidate) => candidate.id === episode.id);
    assert(
      copy !== undefined && JSON.stringify(copy.payload) === JSON.stringify(episode.payload),
      `the fork's episode #${episode.id} differs from the original's`,
    );
  }
  const forkTurn = report.turns.find((turn) => turn.label === scenario.turn);
  assert(forkTurn !== undefined, `no turn ${scenario.turn}`);
  assert(forkTurn.sessionId === fork.id, `${scenario.turn} did not run on the fork`);
  const inFork = forked.filter((episode) => episode.meta.turnId === forkTurn.turnId);
  const inOriginal = original.filter((episode) => episode.meta.turnId === forkTurn.turnId);
  assert(inFork.length > 0, `the fork holds no episode of ${scenario.turn}`);
  assert(
    inOriginal.length === 0,
    `the original session holds ${inOriginal.length} episode(s) of the fork's turn`,
  );
  return `fork ${fork.id.slice(0, 8)} shares #1–#${fork.forkedAtEpisode} with ${report.session.id.slice(0, 8)}; ${scenario.turn} added ${inFork.length} episodes to the fork only`;
}

async function projectedCounts(report: DemoReport, view: DiskView) {
  const sessions = [];
  for (const id of view.sessionIds()) {
    const fork = report.fork?.id === id ? report.fork : null;
    sessions.push({
      id,
      episodes: await view.log(id),
      ...(fork === null ? {} : { inheritedThrough: fork.forkedAtEpisode }),
    });
  }
  const runs = [...(await view.runs()).values()].map((run) => ({
    id: run.read.runId,
    records: run.read.records,
  }));
  return countByType(projectSources({ sessions, runs }, DEMO_SCOPE));
}

async function checkLedger(context: CheckContext, view: DiskView): Promise<Outcome> {
  const expected = await projectedCounts(context.report, view);
  const actual = await ledgerCounts(context.ledger, DEMO_SCOPE);
  const wrong = Object.keys(expected).filter(
    (type) => expected[type as keyof typeof expected] !== actual[type as keyof typeof actual],
  );
  assert(
    wrong.length === 0,
    `ledger counts differ from the projection of the files: ${wrong.map((type) => `${type} ${actual[type as keyof typeof actual]} (expected ${expected[type as keyof typeof expected]})`).join(', ')}`,
  );
  const total = Object.values(actual).reduce((sum, count) => sum + count, 0);
  assert(total > 0, 'the ledger is empty');
  return `${total} events in scope "${DEMO_SCOPE}", per type equal to projecting the snapshots and run files again (${Object.entries(
    actual,
  )
    .map(([type, count]) => `${type} ${count}`)
    .join(', ')})`;
}

async function checkScopeIsolation(context: CheckContext): Promise<Outcome> {
  const sessionId = context.report.session.id;
  const query = await context.ledger.query({ scope: OTHER_SCOPE, limit: 500 });
  assert(
    query.events.length === 0,
    `scope "${OTHER_SCOPE}" returned ${query.events.length} events`,
  );
  const replay = await context.ledger.replay(sessionId, { scope: OTHER_SCOPE });
  assert(
    replay.events.length === 0,
    `replaying session ${sessionId} in scope "${OTHER_SCOPE}" returned ${replay.events.length} events`,
  );
  const own = await context.ledger.replay(sessionId, { scope: DEMO_SCOPE, limit: 1 });
  assert(
    own.events.length === 1,
    `replaying session ${sessionId} in its own scope returned nothing`,
  );
  if (context.callMcp === undefined) {
    return `ledger queries in "${OTHER_SCOPE}" return nothing for this session (the MCP part runs during the demo only)`;
  }
  const served = await context.callMcp('memory_episodes_query', { sessionId, limit: 5 });
  assert(
    !served.isError && served.body?.events?.length > 0,
    `the MCP server (scope "${DEMO_SCOPE}") did not return the session's events: ${JSON.stringify(served.body).slice(0, 200)}`,
  );
  const refused = await context.callMcp('memory_episodes_query', {
    scope: OTHER_SCOPE,
    sessionId,
    limit: 5,
  });
  assert(
    refused.isError,
    `the MCP server bound to "${DEMO_SCOPE}" answered a query for scope "${OTHER_SCOPE}"`,
  );
  return `"${OTHER_SCOPE}" holds nothing of this session (query and replay); the MCP server bound to "${DEMO_SCOPE}" serves its events and refuses "${OTHER_SCOPE}" (${refused.body?.code ?? 'error'})`;
}

async function checkTask(context: CheckContext): Promise<Outcome> {
  const task = context.report.task;
  assert(task !== null, 'the demo did not track a task episode');
  const episode = await context.readTask();
  assert(
    episode.outcome !== null && episode.end_time !== null,
    `task episode ${task.episodeId} is not completed`,
  );
  const steps = task.calls.add_episode_step ?? 0;
  assert(
    episode.steps.length === steps,
    `task episode ${task.episodeId} has ${episode.steps.length} steps, ${steps} were sent`,
  );
  assert(
    episode.reward_score !== null && episode.reward_score >= 0 && episode.reward_score <= 1,
    `reward_score ${episode.reward_score} is not in [0, 1]`,
  );
  const reflection = episode.reflection;
  assert(
    reflection !== null &&
      reflection.successes.length + reflection.improvements.length + reflection.insights.length > 0,
    'the reflection is empty',
  );
  assert(episode.patterns.length > 0, 'no pattern was learned');
  return `task ${task.episodeId.slice(0, 8)}: ${episode.outcome.type}, ${episode.steps.length} steps, reward_score ${episode.reward_score.toFixed(3)}, ${episode.patterns.length} patterns (${[...new Set(episode.patterns.map((pattern) => pattern.type))].join(', ')})`;
}

async function checkAiSdkTurn(context: CheckContext, view: DiskView): Promise<Outcome> {
  const { report } = context;
  const scenario = report.scenarios.aiSdk;
  assert(scenario !== null, 'the report has no AI SDK turn, although the demo ran with --ai-sdk');
  const { read } = await view.run(scenario.runId);
  const client = (read.header?.client as { name?: string } | undefined)?.name;
  assert(
    client === '@episodic/ai-sdk',
    `run ${scenario.runId} was written by ${String(client)}, not @episodic/ai-sdk`,
  );
  const requests = recordsOf(read, 'llm.request').map((record) => Number(record.seq));
  const responses = recordsOf(read, 'llm.response').map((record) => Number(record.seq));
  assert(
    requests.length > 1 && JSON.stringify(requests) === JSON.stringify(responses),
    `run ${scenario.runId}: llm.request seqs ${requests.join(', ')} are not answered one to one (llm.response ${responses.join(', ')})`,
  );
  const outputs = recordsOf(read, 'tool.output');
  assert(outputs.length > 0, `run ${scenario.runId} has no tool.output`);
  const end = recordsOf(read, 'run.end')[0];
  assert(end?.outcome === 'completed', `run ${scenario.runId} ended "${String(end?.outcome)}"`);

  const log = await view.log(report.session.id);
  const ofTurn = log.filter((episode) => episode.meta.turnId === scenario.turnId);
  const kinds = ofTurn.map((episode) =>
    episode.type === 'item'
      ? `${episode.meta.source}:${String((episode.payload.item as { type: string }).type)}`
      : `${episode.meta.source}:${episode.type}`,
  );
  const calls = ofTurn.flatMap((episode) =>
    episode.type === 'item' && episode.payload.item.type === 'function_call'
      ? [String(episode.payload.item.call_id)]
      : [],
  );
  const answered = ofTurn.flatMap((episode) =>
    episode.type === 'item' && episode.payload.item.type === 'function_call_output'
      ? [String(episode.payload.item.call_id)]
      : [],
  );
  assert(
    kinds[0] === 'user:message' &&
      kinds.at(-2) === 'model:message' &&
      kinds.at(-1) === 'runtime:meta',
    `the session holds ${scenario.turn} as ${kinds.join(', ') || 'nothing'}: expected the user's message first and the model's answer and its usage last`,
  );
  assert(
    calls.length === outputs.length && calls.every((call) => answered.includes(call)),
    `the session holds ${scenario.turn}'s calls ${calls.join(', ')} with outputs ${answered.join(', ')}: each call needs its output`,
  );
  // The next turn, run by the session itself, is sent the AI SDK turn as history.
  const next = report.turns.find((turn) => turn.label === scenario.nextTurn);
  assert(next !== undefined, `the turn after ${scenario.turn} is missing from the report`);
  const nextRequest = recordsOf((await view.run(next.runId)).read, 'llm.request')[0];
  const sent = nextRequest === undefined ? [] : requestMessages(nextRequest);
  assert(
    calls.every((call) =>
      sent.some((message) => message.role === 'tool' && message.tool_call_id === call),
    ),
    `the first model input of ${next.label} does not hold ${scenario.turn}'s tool outputs`,
  );
  return `${scenario.turn} ran through the AI SDK: run ${scenario.runId.slice(0, 8)}… by @episodic/ai-sdk (${requests.length} model calls, ${outputs.length} tool outputs, completed); ${ofTurn.length} episodes of one turn in the session (${kinds.join(', ')}); ${next.label}'s input holds them`;
}

/** The checks, in the order they run and print. */
const CHECKS: ReadonlyArray<
  readonly [string, (context: CheckContext, view: DiskView) => Promise<Outcome>]
> = [
  ['run-files', checkRunFiles],
  ['snapshots', checkSnapshots],
  ['tool-calls-paired', (_context, view) => checkPairing(view)],
  ['long-output-complete-on-disk', checkTruncation],
  ['interrupt-boundary', checkInterrupt],
  ['dangling-call-healed', checkDanglingCall],
  ['failed-turn-changed-nothing', checkFailedTurn],
  ['budget-restart-and-checkpoint', checkBudgetAndCheckpoint],
  ['invocation-seq-continues', (_context, view) => checkInvocationSeq(view)],
  ['resume-in-fresh-process', checkResume],
  ['fork-isolated', checkFork],
  ['ledger-counts-match', checkLedger],
  ['scope-isolation', (context) => checkScopeIsolation(context)],
  ['task-episode-learned', (context) => checkTask(context)],
];

/** The names of the checks, in order. */
export const CHECK_NAMES: readonly string[] = CHECKS.map(([name]) => name);

/** The check a demo run with `--ai-sdk` adds (after the others). */
export const AI_SDK_CHECK = 'ai-sdk-turn';

/** Runs every check; one failing never stops the others. */
export async function runChecks(context: CheckContext): Promise<CheckResult[]> {
  const view = new DiskView(context);
  const results: CheckResult[] = [];
  const checks =
    context.report.scenarios.aiSdk === undefined || context.report.scenarios.aiSdk === null
      ? CHECKS
      : [...CHECKS, [AI_SDK_CHECK, checkAiSdkTurn] as const];
  for (const [name, check] of checks) {
    try {
      const outcome = await check(context, view);
      results.push(
        typeof outcome === 'string'
          ? { name, status: 'passed', detail: outcome }
          : { name, status: 'skipped', detail: outcome.skipped },
      );
    } catch (error) {
      results.push({
        name,
        status: 'failed',
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return results;
}
