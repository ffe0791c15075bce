import { join } from 'node:path';
import type { TaskTimeline } from '@episodic/core';
import { openSqliteDatabase } from '@episodic/store-sqlite';
import {
  addSteps,
  createTask,
  openTaskTools,
  type StepArguments,
  stepArguments,
  stepRecord,
  TASK_BACKENDS,
  TASK_DURABILITY,
  type TaskBackend,
  type TaskTools,
} from '../data/tasks.js';
import {
  type AppendProbe,
  fileAppendProbe,
  fileCompareAndAppendProbe,
  sqliteAppendProbe,
  sqliteCompareAndAppendProbe,
} from '../lib/append-probe.js';
import { alternate, alternateSides, check, compareRow, type Round } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import { probeTail } from '../lib/jsonl-probe.js';
import { formatRatio } from '../lib/report.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { LatencyRecorder, median, nowMicros } from '../lib/stats.js';

/** The step the long tasks reach: the lifecycle's limit (`TASK_MAX_STEPS`). */
const LATE_STEP = 1000;
/** Timeline page size, and the steps of the short task whose first page is compared. */
const PAGE = 50;
/** The page near step 1,000: steps 951–1,000. */
const LATE_OFFSET = LATE_STEP - PAGE;
/** Tasks measured cold (a new lifecycle's first call), for the notes. */
const COLD_TASKS = 3;
/** Why paging is measured on the lifecycle rather than through the MCP tool. */
const PAGING_NOTE =
  'paged through the task lifecycle the episodic-mcp tools run on (scoped run view and artifacts, as createEpisodicTools builds it): the get_episode_timeline tool accepts only episode_id (its input schema is taskIdInputSchema), so an MCP client cannot ask for a page although the result carries next_offset';
/** Records before the first step in a task's run: header, run.start, run.status. */
const RECORDS_BEFORE_STEPS = 3;

function ms(micros: number): string {
  return micros >= 10_000 ? `${(micros / 1000).toFixed(0)} ms` : `${(micros / 1000).toFixed(2)} ms`;
}

/** Times one tool call in µs; the body is returned for checks made after the timing. */
async function timed(
  tools: TaskTools,
  name: string,
  args: Record<string, unknown>,
): Promise<{ micros: number; body: Record<string, unknown> }> {
  const start = nowMicros();
  const result = await tools.tools.call(name, args);
  const micros = nowMicros() - start;
  if (result.isError === true) throw new Error(`${name} failed: ${result.content[0]?.text}`);
  return { micros, body: JSON.parse(result.content[0]?.text ?? '{}') as Record<string, unknown> };
}

/** Hands out prepared tasks in order; throws when a round asks for more than were built. */
function queueOf(ids: readonly string[], what: string): () => string {
  let next = 0;
  return () => {
    const id = ids[next++];
    if (id === undefined) throw new Error(`ran out of prepared ${what} tasks`);
    return id;
  };
}

interface Built {
  /** Tasks holding steps 1–999: step 1,000 is the measured call. */
  late: string[];
  /** Tasks just created: step 1 is the measured call. */
  early: string[];
  /** Tasks a round of `task.step` appends its steps to, from step 1. */
  runs: string[];
  /** A task of 1,000 steps and one of 50 (the timeline pages). */
  long: string;
  short: string;
  seconds: number;
}

async function build(
  context: BenchContext,
  tools: TaskTools,
  steps: readonly StepArguments[],
  perRound: number,
): Promise<Built> {
  const { rounds, warmup } = context.sizes;
  const started = nowMicros();
  const lateCount = (rounds + warmup) * perRound + COLD_TASKS;
  let index = 0;
  const late: string[] = [];
  for (let task = 0; task < lateCount; task++) {
    const id = await createTask(tools, index++);
    await addSteps(tools, id, steps.slice(0, LATE_STEP - 1));
    late.push(id);
    if ((task + 1) % 10 === 0)
      context.log(`  ${task + 1} of ${lateCount} tasks at step ${LATE_STEP - 1} built`);
  }
  const early: string[] = [];
  for (let task = 0; task < lateCount; task++) early.push(await createTask(tools, index++));
  const runs: string[] = [];
  for (let task = 0; task < rounds + warmup; task++) runs.push(await createTask(tools, index++));
  const long = await createTask(tools, index++);
  await addSteps(tools, long, steps.slice(0, LATE_STEP));
  const short = await createTask(tools, index++);
  await addSteps(tools, short, steps.slice(0, PAGE));
  return { late, early, runs, long, short, seconds: (nowMicros() - started) / 1e6 };
}

/** `count` measured `add_episode_step` calls of `stepNumber`, each on the next prepared task. */
function stepCalls(
  tools: TaskTools,
  next: () => string,
  step: StepArguments,
  count: number,
): () => Promise<Round> {
  return async () => {
    const latencies = new LatencyRecorder(count);
    for (let index = 0; index < count; index++) {
      const episodeId = next();
      const { micros, body } = await timed(tools, 'add_episode_step', {
        ...step,
        episode_id: episodeId,
      });
      if (body.step_number !== step.step_number) throw new Error('the step was not acknowledged');
      latencies.add(micros);
    }
    const values = latencies.toArray();
    return { value: median(values), latencies: values };
  };
}

/** The first call of a new lifecycle (another process) on each task: `stepNumber` added. */
async function coldSteps(
  tools: TaskTools,
  ids: readonly string[],
  step: StepArguments,
): Promise<number> {
  const times: number[] = [];
  for (const episodeId of ids) {
    const { micros } = await timed(tools.fresh(), 'add_episode_step', {
      ...step,
      episode_id: episodeId,
    });
    times.push(micros);
  }
  return median(times);
}

async function stepIndependenceRow(
  context: BenchContext,
  tools: TaskTools,
  built: Built,
  steps: readonly StepArguments[],
  perRound: number,
): Promise<RowResult> {
  const { backend } = tools;
  const { rounds, warmup } = context.sizes;
  const lateStep = steps[LATE_STEP - 1] as StepArguments;
  const firstStep = steps[0] as StepArguments;
  const measured = await alternate({
    rounds,
    warmup,
    product: stepCalls(tools, queueOf(built.late, 'late'), lateStep, perRound),
    probe: stepCalls(tools, queueOf(built.early, 'early'), firstStep, perRound),
  });
  const coldLate = await coldSteps(tools, built.late.slice(-COLD_TASKS), lateStep);
  const coldFirst = await coldSteps(tools, built.early.slice(-COLD_TASKS), firstStep);
  return compareRow(
    {
      id: `task.step.size-independence.${backend}`,
      area: 'growth with history',
      title: `add_episode_step: step ${formatCount(LATE_STEP)} vs step 1 of a task (${backend})`,
      durability: TASK_DURABILITY[backend].text,
      mode: TASK_DURABILITY[backend].mode,
      dataset: `${perRound} tasks per round holding ${formatCount(LATE_STEP - 1)} steps (~0.4 KB each), ${perRound} just created; every task written through the same tools`,
      product: `tools.call("add_episode_step", step ${formatCount(LATE_STEP)}) on a task of ${formatCount(LATE_STEP - 1)} steps`,
      probe: 'the same call adding step 1 to a new task (the product against itself)',
      metric: { name: 'median time per step', unit: 'µs', better: 'lower' },
      latencyUnit: 'µs',
      target: `step ${formatCount(LATE_STEP)} / step 1 ≤ 1.5×`,
    },
    measured,
    (row) => [check('time ratio ≤ 1.5', row.ratio?.median ?? Number.NaN, '<=', 1.5)],
    [
      "product path: openEpisodicStores({ home, store }) + createEpisodicTools({ scope }), the episodic-mcp server without its stdio transport (argument validation, scope check, the task lifecycle's compare-and-append, JSON result)",
      `the tools wrote every step of these tasks, so their lifecycle knows each task up to its end and reads only what follows (nothing, unless another writer appended)`,
      `cold, for reference (not the target): the first call of a new lifecycle over the same stores, as from a new process, reads the whole run twice (the scope view's visibility check reads it, then the lifecycle folds it): step ${formatCount(LATE_STEP)} ${ms(coldLate)}, step 1 ${ms(coldFirst)} (median of ${COLD_TASKS})`,
    ],
  );
}

/** `count` raw appends of the step records through `probe`: steps/s and each append's µs. */
function probeAppends(
  probe: AppendProbe,
  episodeId: string,
  steps: readonly StepArguments[],
  count: number,
): () => Round {
  let seq = 0;
  return () => {
    const latencies = new LatencyRecorder(count);
    const start = nowMicros();
    for (let index = 0; index < count; index++) {
      const before = nowMicros();
      const record = stepRecord(episodeId, seq++, steps[index] as StepArguments);
      probe.append(`${JSON.stringify(record)}\n`);
      latencies.add(nowMicros() - before);
    }
    return { value: count / ((nowMicros() - start) / 1e6), latencies: latencies.toArray() };
  };
}

/**
 * Appends steps to a new task per round, vs a raw compare-and-append of the same records (and,
 * for the notes, a plain append).
 */
async function stepRow(
  context: BenchContext,
  tools: TaskTools,
  built: Built,
  steps: readonly StepArguments[],
  scratch: string,
): Promise<RowResult> {
  const { backend } = tools;
  const { rounds, warmup } = context.sizes;
  const count = context.quick ? 50 : 200;
  const next = queueOf(built.runs, 'append');
  const probeId = built.runs[0] as string;
  const [guarded, plain]: AppendProbe[] =
    backend === 'fs'
      ? [
          fileCompareAndAppendProbe(join(scratch, 'probe-steps-cas.jsonl')),
          fileAppendProbe(join(scratch, 'probe-steps.jsonl'), false),
        ]
      : [
          sqliteCompareAndAppendProbe(join(scratch, 'probe-steps-cas.db')),
          sqliteAppendProbe(join(scratch, 'probe-steps.db')),
        ];
  const guardedProbe = guarded as AppendProbe;
  const plainProbe = plain as AppendProbe;
  const measured = await alternateSides(
    {
      product: async () => {
        const episodeId = next();
        const latencies = new LatencyRecorder(count);
        const start = nowMicros();
        for (let index = 0; index < count; index++) {
          const before = nowMicros();
          const result = await tools.tools.call('add_episode_step', {
            ...(steps[index] as StepArguments),
            episode_id: episodeId,
          });
          latencies.add(nowMicros() - before);
          if (result.isError === true) throw new Error(result.content[0]?.text);
        }
        return { value: count / ((nowMicros() - start) / 1e6), latencies: latencies.toArray() };
      },
      guarded: probeAppends(guardedProbe, probeId, steps, count),
      plain: probeAppends(plainProbe, probeId, steps, count),
    },
    rounds,
    warmup,
  );
  guardedProbe.close();
  plainProbe.close();
  const plainRounds = measured.plain as Round[];
  const plainMedian = median(plainRounds.map((round) => round.value));
  const plainRatio = median(
    (measured.product as Round[]).map(
      (round, index) => round.value / (plainRounds[index] as Round).value,
    ),
  );
  const lock =
    backend === 'fs'
      ? "the product's compare-and-append: the run's lock file (create, read back, delete), the file's end measured under it, the record written (the probe does the same minimum); before it, the lifecycle checks the run for records it has not seen"
      : "the product's compare-and-append: one IMMEDIATE transaction reading the run's record count and header, inserting the record and updating the count; before it, the lifecycle checks the run for records it has not seen (a deferred read transaction)";
  return compareRow(
    {
      id: `task.step.${backend}`,
      area: 'task step',
      title: `add_episode_step: ${count} steps in a row on one task (${backend})`,
      durability: `${TASK_DURABILITY[backend].text}; probe: ${guardedProbe.durability}`,
      mode: TASK_DURABILITY[backend].mode,
      dataset: `a new task per round, steps 1–${count} (~0.4 KB each)`,
      product: 'tools.call("add_episode_step", …) awaited in a loop (the episodic-mcp tools)',
      probe: guardedProbe.description,
      metric: { name: 'throughput', unit: 'steps/s', better: 'higher' },
      latencyUnit: 'µs',
      target: 'none in QUALITY.md (reported for reference)',
    },
    { product: measured.product as Round[], probe: measured.guarded as Round[] },
    () => [],
    [
      lock,
      'the probes write the run record the lifecycle stores for the same step (agent.event with the step)',
      `a plain append with no compare (${plainProbe.description}): ${formatCount(plainMedian)} steps/s; the product is ${formatRatio(plainRatio)} of it`,
    ],
  );
}

/** The last page of the long task read straight from storage, and how to let go of it. */
function rawPage(tools: TaskTools, longId: string): { read(): unknown[]; close(): void } {
  if (tools.backend === 'fs') {
    const file = tools.runFile(longId);
    return { read: () => probeTail(file, PAGE), close: () => {} };
  }
  const database = openSqliteDatabase(tools.stores.location.database, { synchronous: 'NORMAL' });
  const page = database
    .prepare(
      'SELECT json FROM episodic_run_records WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    )
    .pluck();
  return {
    read: () =>
      (page.all(longId, RECORDS_BEFORE_STEPS + LATE_OFFSET, PAGE) as string[]).map(
        (json) => JSON.parse(json) as unknown,
      ),
    close: () => database.close(),
  };
}

interface PageCheck {
  first: number;
  length: number;
  nextOffset: number | null;
}

function checkPage(page: TaskTimeline, expected: PageCheck, what: string): void {
  const actual: PageCheck = {
    first: page.timeline[0]?.step_number ?? -1,
    length: page.timeline.length,
    nextOffset: page.next_offset,
  };
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
}

async function timelineRows(
  context: BenchContext,
  tools: TaskTools,
  built: Built,
): Promise<RowResult[]> {
  const { backend } = tools;
  const { rounds, warmup } = context.sizes;
  const calls = context.quick ? 100 : 300;
  const pageCalls =
    (episodeId: string, offset: number, expected: PageCheck, what: string) =>
    async (): Promise<Round> => {
      const latencies = new LatencyRecorder(calls);
      let last: TaskTimeline | undefined;
      for (let index = 0; index < calls; index++) {
        const before = nowMicros();
        last = await tools.lifecycle.getTimeline({ episode_id: episodeId, offset, limit: PAGE });
        latencies.add(nowMicros() - before);
      }
      checkPage(last as TaskTimeline, expected, what);
      const values = latencies.toArray();
      return { value: median(values), latencies: values };
    };
  const raw = rawPage(tools, built.long);
  const measured = await alternateSides(
    {
      late: pageCalls(
        built.long,
        LATE_OFFSET,
        { first: LATE_OFFSET + 1, length: PAGE, nextOffset: null },
        'the late page',
      ),
      first: pageCalls(built.short, 0, { first: 1, length: PAGE, nextOffset: null }, 'first page'),
      sameTaskFirst: pageCalls(
        built.long,
        0,
        { first: 1, length: PAGE, nextOffset: PAGE },
        'first page of the long task',
      ),
      raw: () => {
        const latencies = new LatencyRecorder(calls);
        for (let index = 0; index < calls; index++) {
          const before = nowMicros();
          const records = raw.read();
          latencies.add(nowMicros() - before);
          if (records.length !== PAGE) throw new Error(`raw page of ${records.length} records`);
        }
        const values = latencies.toArray();
        return { value: median(values), latencies: values };
      },
    },
    rounds,
    warmup,
  );
  raw.close();
  const late = measured.late as Round[];
  const sameTaskFirst = median((measured.sameTaskFirst as Round[]).map((round) => round.value));
  // Cold: a new lifecycle's first call reads the whole run once (for the notes).
  const cold = async (episodeId: string, offset: number) => {
    const times: number[] = [];
    for (let index = 0; index < COLD_TASKS; index++) {
      const { lifecycle } = tools.fresh();
      const before = nowMicros();
      await lifecycle.getTimeline({ episode_id: episodeId, offset, limit: PAGE });
      times.push(nowMicros() - before);
    }
    return median(times);
  };
  const coldLate = await cold(built.long, LATE_OFFSET);
  const coldFirst = await cold(built.short, 0);
  const common = {
    durability: TASK_DURABILITY[backend].text,
    mode: TASK_DURABILITY[backend].mode,
    metric: { name: 'median time per page', unit: 'µs', better: 'lower' as const },
    latencyUnit: 'µs',
  };
  const product = `lifecycle.getTimeline({ episode_id, offset: ${LATE_OFFSET}, limit: ${PAGE} }) on a task of ${formatCount(LATE_STEP)} steps: steps ${LATE_OFFSET + 1}–${LATE_STEP}, next_offset null`;
  const independence = compareRow(
    {
      ...common,
      id: `task.timeline.size-independence.${backend}`,
      area: 'growth with history',
      title: `get_episode_timeline: the page at offset ${LATE_OFFSET} of a ${formatCount(LATE_STEP)}-step task vs the first page of a ${PAGE}-step task (${backend})`,
      dataset: `tasks of ${formatCount(LATE_STEP)} and ${PAGE} steps written through the same tools; ${calls} calls per round`,
      product,
      probe: `the first page ({ offset: 0, limit: ${PAGE} }) of a task of ${PAGE} steps: the same ${PAGE} steps returned (the product against itself)`,
      target: 'page near step 1,000 / first page ≤ 1.5×',
    },
    { product: late, probe: measured.first as Round[] },
    (row) => [check('time ratio ≤ 1.5', row.ratio?.median ?? Number.NaN, '<=', 1.5)],
    [
      PAGING_NOTE,
      `the first page of the ${formatCount(LATE_STEP)}-step task (offset 0, next_offset ${PAGE}): ${ms(sameTaskFirst)} median`,
      `cold, for reference (not the target): the first call of a new lifecycle reads the whole run twice (visibility check, then the fold): the page at offset ${LATE_OFFSET} of the ${formatCount(LATE_STEP)}-step task ${ms(coldLate)}, the first page of the ${PAGE}-step task ${ms(coldFirst)} (median of ${COLD_TASKS})`,
    ],
  );
  const rawDescription =
    backend === 'fs'
      ? `the same ${PAGE} steps read from the run file: backwards 64 KB blocks + lastIndexOf("\\n") + JSON.parse of ${PAGE} lines (the run.tail probe)`
      : `the same ${PAGE} steps read from the run's rows: prepared SELECT json … WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ${PAGE} + JSON.parse, a second connection (openSqliteDatabase)`;
  const versusRaw = compareRow(
    {
      ...common,
      id: `task.timeline.${backend}`,
      area: 'task timeline',
      title: `get_episode_timeline: the page at offset ${LATE_OFFSET} of a ${formatCount(LATE_STEP)}-step task vs the raw read of its records (${backend})`,
      dataset: `a task of ${formatCount(LATE_STEP)} steps; ${calls} calls per round`,
      product,
      probe: rawDescription,
      target: 'none in QUALITY.md (reported for reference)',
    },
    { product: late, probe: measured.raw as Round[] },
    () => [],
    [
      PAGING_NOTE,
      "the product answers from its lifecycle's folded view of the task after checking the store (through the scope view) for records it has not seen, none here; it also validates its input. The probe parses the page's records from storage",
    ],
  );
  return [versusRaw, independence];
}

async function backendRows(context: BenchContext, backend: TaskBackend): Promise<RowResult[]> {
  const scratch = scratchDirectory(context, `task-${backend}`);
  const tools = await openTaskTools(backend, join(scratch.path, 'home'));
  try {
    const steps = stepArguments(LATE_STEP);
    const perRound = context.quick ? 4 : 8;
    context.log(`task rows (${backend}): building tasks through the tools`);
    const built = await build(context, tools, steps, perRound);
    context.log(`  built in ${built.seconds.toFixed(0)} s`);
    context.log(`task.step.${backend}`);
    const step = await stepRow(context, tools, built, steps, scratch.path);
    context.log(`task.step.size-independence.${backend}`);
    const independence = await stepIndependenceRow(context, tools, built, steps, perRound);
    independence.notes.push(
      `set-up: ${built.late.length} tasks of ${formatCount(LATE_STEP - 1)} steps and the others written through the tools in ${built.seconds.toFixed(0)} s`,
    );
    context.log(`task.timeline.${backend}`);
    const timeline = await timelineRows(context, tools, built);
    return [step, independence, ...timeline];
  } finally {
    await tools.close();
    scratch.dispose();
  }
}

export const taskModule: RowModule = {
  id: 'task',
  rows: TASK_BACKENDS.flatMap((backend) => [
    `task.step.${backend}`,
    `task.step.size-independence.${backend}`,
    `task.timeline.${backend}`,
    `task.timeline.size-independence.${backend}`,
  ]),
  needs: [],
  async run(context: BenchContext): Promise<RowResult[]> {
    const rows: RowResult[] = [];
    for (const backend of TASK_BACKENDS) rows.push(...(await backendRows(context, backend)));
    return rows;
  },
};
