import { appendFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunRecord, RunStore } from '@episodic/core';
import { agentEvent, completedRun, headerFor, runIdFor } from '@episodic/core/testing';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { describe, expect, it } from 'vitest';
import {
  runsListReceiptSchema,
  runsReplayReceiptSchema,
  runsShowReceiptSchema,
  runsTailDamageLineSchema,
  runsTailReceiptSchema,
  runsTailRecordLineSchema,
} from '../src/receipts/index.js';
import {
  episodic,
  episodicJson,
  exitOf,
  expectError,
  startEpisodic,
  temporaryHome,
  waitForOutput,
} from './helpers.js';

const SESSION_1 = '11111111-1111-4111-8111-111111111111';
const SESSION_2 = '22222222-2222-4222-8222-222222222222';

type StoreKind = 'fs' | 'sqlite';

/** Opens the store the CLI will read, in this process, to write runs the way an agent would. */
function openRuns(home: string, kind: StoreKind): { runs: RunStore; close: () => Promise<void> } {
  mkdirSync(home, { recursive: true });
  if (kind === 'fs') {
    const store = createFsStore({ root: home, durability: 'none' });
    return { runs: store.runs, close: () => store.close() };
  }
  const store = createSqliteStore({ filename: join(home, 'episodic.db') });
  return { runs: store.runs, close: () => store.close() };
}

async function seedRuns(home: string, kind: StoreKind): Promise<string[]> {
  const { runs, close } = openRuns(home, kind);
  const ids = [runIdFor(1), runIdFor(2), runIdFor(3)];
  try {
    const starts = [
      '2026-01-10T08:00:00.000Z',
      '2026-01-20T08:00:00.000Z',
      '2026-02-05T08:00:00.000Z',
    ];
    const sessions = [SESSION_1, SESSION_1, SESSION_2];
    for (const [index, runId] of ids.entries()) {
      const records = completedRun(runId, index + 2, sessions[index]);
      records[0] = headerFor(runId, {
        sessionId: sessions[index] as string,
        startedAt: starts[index] as string,
      });
      if (index === 2) {
        // The newest run made two model calls: `runs list` sums their tokens.
        const usage = (input: number, output: number) => ({
          model: 'echo-1',
          input_tokens: input,
          output_tokens: output,
          total_tokens: input + output,
        });
        const response = (seq: number, input: number, output: number): RunRecord => ({
          type: 'llm.response',
          run_id: runId,
          ts: '2026-02-05T08:00:01.000Z',
          seq,
          output: { messages: [], usage: usage(input, output) },
        });
        records.splice(3, 0, response(1, 1200, 30), response(2, 1500, 45));
      }
      await runs.append(runId, records);
    }
  } finally {
    await close();
  }
  return ids;
}

describe.each(['fs', 'sqlite'] as const)('runs (%s store)', (kind) => {
  const cli = (home: string, ...args: string[]) => [
    '--home',
    home,
    '--store',
    kind,
    'runs',
    ...args,
  ];

  it('lists runs newest first, by session and by date range', async () => {
    const home = temporaryHome();
    const [first, second, third] = await seedRuns(home, kind);
    const all = runsListReceiptSchema.parse((await episodicJson(cli(home, 'list'))).receipt);
    expect(all.store).toBe(kind);
    expect(all.runs.map((run) => run.run_id)).toEqual([third, second, first]);
    expect(all.runs[0]).toMatchObject({
      session_id: SESSION_2,
      started_at: '2026-02-05T08:00:00.000Z',
      best_effort: false,
      model: { provider: 'test' },
      title: 'list files',
      input_tokens: 2700,
      output_tokens: 75,
      model_responses: 2,
    });
    // No response reported usage: tokens are unknown, not zero.
    expect(all.runs[1]).toMatchObject({ model_responses: 0, input_tokens: null });
    const bySession = runsListReceiptSchema.parse(
      (await episodicJson(cli(home, 'list', '--session-id', SESSION_1))).receipt,
    );
    expect(bySession.runs.map((run) => run.run_id)).toEqual([second, first]);
    const january = runsListReceiptSchema.parse(
      (await episodicJson(cli(home, 'list', '--from', '2026-01-15', '--to', '2026-01-31'))).receipt,
    );
    expect(january.runs.map((run) => run.run_id)).toEqual([second]);
    expect(january.filters).toMatchObject({
      from: '2026-01-15T00:00:00.000Z',
      to: '2026-01-31T23:59:59.999Z',
    });
    const limited = runsListReceiptSchema.parse(
      (await episodicJson(cli(home, 'list', '--limit', '1'))).receipt,
    );
    expect(limited.runs.map((run) => run.run_id)).toEqual([third]);
    const human = await episodic(cli(home, 'list'));
    expect(human.stdout).toContain(third);
    expect(human.stdout).toContain(`3 runs (${kind} store)`);
    expect(human.stdout).toMatch(/TITLE.*STATUS.*TOKENS IN\/OUT/);
    expect(human.stdout).toContain('list files');
    expect(human.stdout).toContain('2700/75');
  });

  it('refuses bad filters with exit 2', async () => {
    const home = temporaryHome();
    expect(
      expectError(
        await episodicJson(cli(home, 'list', '--session-id', 'not-a-uuid')),
        2,
        'VALIDATION_ERROR',
      ),
    ).toContain('UUID');
    expect(
      expectError(
        await episodicJson(cli(home, 'list', '--from', 'last week')),
        2,
        'VALIDATION_ERROR',
      ),
    ).toMatch(/--from "last week".*ISO date or time.*2h.*yesterday/);
    expect(
      expectError(
        await episodicJson(cli(home, 'list', '--from', '2026-02-01', '--to', '2026-01-01')),
        2,
        'VALIDATION_ERROR',
      ),
    ).toContain('swap');
  });

  it('shows a run with its records, and NOT_FOUND (exit 1) for an unknown one', async () => {
    const home = temporaryHome();
    const [first] = await seedRuns(home, kind);
    const shown = runsShowReceiptSchema.parse(
      (await episodicJson(cli(home, 'show', first as string))).receipt,
    );
    expect(shown).toMatchObject({
      run_id: first,
      ended: true,
      best_effort: false,
      count: 7,
      errors: [],
    });
    expect(shown.records.map((record) => record.type)).toEqual([
      'header',
      'run.start',
      'run.status',
      'agent.event',
      'agent.event',
      'run.status',
      'run.end',
    ]);
    const human = await episodic(cli(home, 'show', first as string));
    expect(human.stdout).toContain('list files');
    expect(human.stdout).toContain('completed: done');
    expectError(await episodicJson(cli(home, 'show', runIdFor(99))), 1, 'NOT_FOUND');
    expectError(await episodicJson(cli(home, 'show', '../../etc/passwd')), 2, 'VALIDATION_ERROR');
  });

  it('replays a run, and a session’s runs oldest first', async () => {
    const home = temporaryHome();
    const [first, second] = await seedRuns(home, kind);
    const run = runsReplayReceiptSchema.parse(
      (await episodicJson(cli(home, 'replay', first as string))).receipt,
    );
    expect(run.events.map((event) => [event.kind, event.seq])).toEqual([
      ['user_message', -1],
      ['agent_event', 0],
      ['agent_event', 1],
    ]);
    expect(run.truncated).toBe(false);
    const session = runsReplayReceiptSchema.parse(
      (await episodicJson(cli(home, 'replay', '--session-id', SESSION_1))).receipt,
    );
    expect(session.run_ids).toEqual([first, second]);
    expect(session.count).toBe(3 + 4);
    const newest = runsReplayReceiptSchema.parse(
      (await episodicJson(cli(home, 'replay', '--session-id', SESSION_1, '--max-events', '2')))
        .receipt,
    );
    expect(newest.truncated).toBe(true);
    expect(newest.events.map((event) => event.seq)).toEqual([1, 2]);
    const oneRun = runsReplayReceiptSchema.parse(
      (await episodicJson(cli(home, 'replay', '--session-id', SESSION_1, '--max-runs', '1')))
        .receipt,
    );
    expect(oneRun.run_ids).toEqual([second]);
    expect(oneRun.truncated).toBe(true);
    expectError(await episodicJson(cli(home, 'replay')), 2, 'USAGE_ERROR');
  });

  it('tails the last records', async () => {
    const home = temporaryHome();
    const [, , third] = await seedRuns(home, kind);
    const tail = runsTailReceiptSchema.parse(
      (await episodicJson(cli(home, 'tail', third as string, '-n', '2'))).receipt,
    );
    expect(tail.following).toBe(false);
    expect(tail.records.map((record) => record.type)).toEqual(['run.status', 'run.end']);
    const human = await episodic(cli(home, 'tail', third as string, '--count', '1'));
    expect(human.stdout.trim().split('\n')).toHaveLength(1);
    expect(human.stdout).toContain('run.end');
    expectError(await episodicJson(cli(home, 'tail', runIdFor(42))), 1, 'NOT_FOUND');
  });

  it('tail -f prints records as they are appended, and stops at run.end with --until-end', async () => {
    const home = temporaryHome();
    const runId = runIdFor(7);
    const { runs, close } = openRuns(home, kind);
    try {
      await runs.append(runId, [headerFor(runId, { sessionId: SESSION_1 }), agentEvent(runId, 0)]);
      const child = startEpisodic([
        ...cli(home, 'tail', runId, '-f', '--until-end', '--interval-ms', '50'),
        '--json',
      ]);
      const seen = await waitForOutput(child, (stdout) => stdout.includes('"following":true'));
      const first = runsTailReceiptSchema.parse(JSON.parse(seen.split('\n')[0] as string));
      expect(first.records.map((record) => record.type)).toEqual(['header', 'agent.event']);
      await runs.append(runId, [
        agentEvent(runId, 1, { event: { type: 'text', content: 'appended later' } }),
      ]);
      const more = await waitForOutput(child, (stdout) => stdout.includes('appended later'));
      const line = more.split('\n').find((text) => text.includes('appended later')) as string;
      expect(runsTailRecordLineSchema.parse(JSON.parse(line)).record).toMatchObject({
        type: 'agent.event',
        seq: 1,
      });
      const ts = '2026-02-03T12:05:00.000Z';
      let rest = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        rest += chunk.toString('utf8');
      });
      await runs.append(runId, [
        { type: 'run.end', run_id: runId, ts, outcome: 'completed' } as RunRecord,
      ]);
      expect(await exitOf(child)).toBe(0);
      // Every appended record exactly once, in order.
      const followed = `${more}${rest}`
        .split('\n')
        .filter((text) => text.includes('tail.record.v1'))
        .map((text) => runsTailRecordLineSchema.parse(JSON.parse(text)).record.type);
      expect(followed).toEqual(['agent.event', 'run.end']);
    } finally {
      await close();
    }
  });
});

describe('runs on disk (fs store)', () => {
  it('lists a damaged run file as an error without hiding the others; show and tail -f report damaged lines', async () => {
    const home = temporaryHome();
    const [first] = await seedRuns(home, 'fs');
    const day = join(home, 'sessions', '2026', '01', '10');
    writeFileSync(join(day, `${runIdFor(50)}.jsonl`), '{"not":"a header"}\n');
    const listed = runsListReceiptSchema.parse(
      (await episodicJson(['--home', home, '--store', 'fs', 'runs', 'list'])).receipt,
    );
    expect(listed.runs).toHaveLength(3);
    expect(listed.errors).toEqual([
      expect.objectContaining({ run_id: runIdFor(50), message: expect.stringContaining('header') }),
    ]);
    const human = await episodic(['--home', home, '--store', 'fs', 'runs', 'list']);
    expect(human.status).toBe(0);
    expect(human.stderr).toContain('warning:');
    const file = join(
      day,
      readdirSync(day).find((name) => name.startsWith(first as string)) as string,
    );
    appendFileSync(file, '{"broken\n');
    const shown = runsShowReceiptSchema.parse(
      (await episodicJson(['--home', home, '--store', 'fs', 'runs', 'show', first as string]))
        .receipt,
    );
    expect(shown.count).toBe(7);
    expect(shown.errors).toEqual([
      expect.objectContaining({ line: 8, message: expect.stringContaining('not valid JSON') }),
    ]);

    const child = startEpisodic([
      '--home',
      home,
      '--store',
      'fs',
      'runs',
      'tail',
      first as string,
      '-f',
      '--interval-ms',
      '50',
      '--json',
    ]);
    await waitForOutput(child, (stdout) => stdout.includes('"following":true'));
    appendFileSync(file, '\u0000\u0000\u0000\n');
    const out = await waitForOutput(child, (stdout) =>
      stdout.includes('episodic.runs.tail.damage.v1'),
    );
    const damage = out.split('\n').find((text) => text.includes('damage.v1')) as string;
    expect(runsTailDamageLineSchema.parse(JSON.parse(damage)).damage.message).toContain('NUL');
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });
});
