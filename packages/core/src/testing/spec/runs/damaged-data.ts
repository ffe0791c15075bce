// RunStore reads past damage a crash or another tool leaves (harnesses declaring `runDamage`).
import { expect, it, type TestContext } from 'vitest';
import { agentEvent, headerFor, runIdFor, SESSION_A } from '../../run-fixtures.js';
import {
  expectEpisodicError,
  requireCapability,
  utf8,
  withoutHeaderLine,
} from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

/**
 * Registers the tests of damaged runs: torn tails, garbage lines, a damaged header, a corrupt run
 * in a list.
 */
export function runDamagedDataTests({ open, capabilities }: ContractGroup<'runs'>): void {
  const damage = async (context: TestContext) => {
    requireCapability(context, capabilities.runDamage, 'runDamage');
    const opened = await open(context);
    const hooks = opened.harness.damage;
    if (hooks?.appendRawToRun === undefined || hooks.replaceRawRun === undefined) {
      throw new Error(
        'capabilities.runDamage needs damage.appendRawToRun and damage.replaceRawRun',
      );
    }
    return {
      store: opened.store,
      appendRaw: (runId: string, text: string) => hooks.appendRawToRun?.(runId, utf8(text)),
      replaceRaw: (runId: string, text: string) => hooks.replaceRawRun?.(runId, utf8(text)),
    };
  };

  it('repairs a torn tail before the next append: one error, no merged record', async (context) => {
    const { store, appendRaw } = await damage(context);
    const runId = runIdFor(40);
    await store.append(runId, [headerFor(runId), agentEvent(runId, 0)]);
    await appendRaw(runId, '{"type":"agent.event","run_id":"torn');
    await store.append(runId, [agentEvent(runId, 1), agentEvent(runId, 2)]);
    const read = await store.read(runId);
    expect(read.records.map((record) => record.seq ?? 'header')).toEqual(['header', 0, 1, 2]);
    expect(read.errors).toHaveLength(1);
    expect(read.errors[0]?.line).toBe(3);
    expect(read.errors[0]?.message).toContain('not valid JSON');
    const tail = await store.tail(runId, { count: 3 });
    expect(tail.records.map((record) => record.seq)).toEqual([0, 1, 2]);
    expect(tail.errors).toHaveLength(1);
  });

  it('counts a damaged line as an entry: positions and readAfter report it', async (context) => {
    const { store, appendRaw } = await damage(context);
    const runId = runIdFor(44);
    await store.append(runId, [headerFor(runId), agentEvent(runId, 0)]);
    await appendRaw(runId, '{"type":"agent.event","run_id":"cut\n');
    await store.append(runId, [agentEvent(runId, 1)]);
    const read = await store.read(runId);
    expect(read.position).toBe(4);
    const after = await store.readAfter(runId, 2);
    expect(after.errors).toHaveLength(1);
    expect(after.records).toEqual([agentEvent(runId, 1)]);
    expect(after.position).toBe(4);
  });

  it('counts a torn last line in positions only once an append has terminated it', async (context) => {
    requireCapability(context, capabilities.runText, 'runText');
    const { store, appendRaw } = await damage(context);
    const runId = runIdFor(43);
    await store.append(runId, [headerFor(runId), agentEvent(runId, 0)]);
    await appendRaw(runId, '{"type":"agent.event","run_id":"torn');
    const read = await store.read(runId);
    expect(read.errors).toHaveLength(1);
    expect(read.position).toBe(2);
    // Not complete yet: it may still be being written, so a reader after 2 sees nothing.
    expect(withoutHeaderLine(await store.readAfter(runId, 2))).toEqual({
      runId,
      records: [],
      errors: [],
      position: 2,
    });
    const receipt = await store.append(runId, [agentEvent(runId, 1)], {
      expectedPosition: 2,
    });
    expect(receipt.position).toBe(4);
    const after = await store.readAfter(runId, 2);
    expect(after.errors).toHaveLength(1);
    expect(after.records).toEqual([agentEvent(runId, 1)]);
    expect(after.position).toBe(4);
    // Damaged lines and blank lines: damaged ones count, blank ones do not.
    await appendRaw(runId, '\n\n  \n\0\0\0\n');
    expect((await store.read(runId)).position).toBe(5);
  });

  it('a blank line is no entry: read, readAfter, tail and compare-and-append all skip it', async (context) => {
    // Row stores (SQLite, PostgreSQL) store whole records only: a blank line is a text store's.
    requireCapability(context, capabilities.runText, 'runText');
    const { store, appendRaw } = await damage(context);
    const runId = runIdFor(44);
    await store.append(runId, [headerFor(runId), agentEvent(runId, 0)]);
    await appendRaw(runId, '\n  \n\r\n');
    await store.append(runId, [agentEvent(runId, 1)]);
    await appendRaw(runId, '\n');
    const read = await store.read(runId);
    expect(read.records.map((record) => record.seq ?? 'header')).toEqual(['header', 0, 1]);
    expect(read.errors).toEqual([]);
    expect(read.position).toBe(3);
    expect(withoutHeaderLine(await store.readAfter(runId, 3))).toEqual({
      runId,
      records: [],
      errors: [],
      position: 3,
    });
    expect(withoutHeaderLine(await store.readAfter(runId, 2))).toEqual({
      runId,
      records: [agentEvent(runId, 1)],
      errors: [],
      position: 3,
    });
    await expectEpisodicError(store.readAfter(runId, 4), 'CONFLICT');
    const tail = await store.tail(runId, { count: 5 });
    expect(tail.records.map((record) => record.seq ?? 'header')).toEqual(['header', 0, 1]);
    expect(tail.errors).toEqual([]);
    const receipt = await store.append(runId, [agentEvent(runId, 2)], { expectedPosition: 3 });
    expect(receipt.position).toBe(4);
    expect((await store.read(runId)).position).toBe(4);
  });

  it('reads past every kind of damage, reporting exactly the damaged lines', async (context) => {
    const { store, replaceRaw } = await damage(context);
    const runId = runIdFor(41);
    await store.append(runId, [headerFor(runId)]);
    const good = (seq: number) => JSON.stringify(agentEvent(runId, seq));
    const lines = [
      `\uFEFF${JSON.stringify(headerFor(runId))}`,
      good(0),
      '{"type":"agent.event","run_id":"cut mid-str',
      good(1),
      '\0'.repeat(300),
      `${good(2)}\r`,
      JSON.stringify({
        type: 'agent.event',
        run_id: runId,
        ts: '2026-02-03T12:00:00.000Z',
        seq: 'x',
        event: { type: 'a' },
      }),
      '{"type":"agent.event","run_id":"a","ts":"2026-02-03T12:00:00.000Z","seq":9,"event":{"type":"text","content":"\\ud83d"}}',
      `${good(3)}${good(4)}`,
      '',
      JSON.stringify({ type: 'x.future.kind', run_id: runId }),
      good(5),
      '[1,2,3]',
      '{"type":"run.end","run_id":"x","ts":"2026',
    ];
    await replaceRaw(runId, lines.join('\n'));
    const read = await store.read(runId);
    expect(read.header).toEqual(headerFor(runId));
    expect(read.bestEffort).toBe(false);
    expect(read.records.map((record) => record.seq ?? record.type)).toEqual([
      'header',
      0,
      1,
      2,
      'x.future.kind',
      5,
    ]);
    expect(read.errors.map((error) => error.line)).toEqual([3, 5, 7, 8, 9, 13, 14]);
    for (const error of read.errors) expect(error.message.length).toBeGreaterThan(0);
  });

  it('reads a run whose header line is damaged, best-effort', async (context) => {
    const { store, replaceRaw } = await damage(context);
    const runId = runIdFor(42);
    await store.append(runId, [headerFor(runId)]);
    await replaceRaw(runId, `{"type":"header","sch\n${JSON.stringify(agentEvent(runId, 0))}\n`);
    const read = await store.read(runId);
    expect(read.header).toBeNull();
    expect(read.bestEffort).toBe(true);
    expect(read.bestEffortReason).toContain('header');
    expect(read.records).toEqual([agentEvent(runId, 0)]);
    expect(read.errors).toHaveLength(1);
    await expectEpisodicError(store.append(runId, [headerFor(runId)]), 'CONFLICT');
    await store.append(runId, [agentEvent(runId, 1)]);
    expect((await store.read(runId)).records).toHaveLength(2);
  });

  it('lists the good runs and reports exactly one error naming a corrupt one', async (context) => {
    const { store, replaceRaw } = await damage(context);
    for (let index = 0; index < 12; index++) {
      const runId = runIdFor(50 + index);
      await store.append(runId, [
        headerFor(runId, { startedAt: `2026-02-0${1 + (index % 5)}T10:00:00.000Z` }),
      ]);
    }
    const bad = runIdFor(55);
    await replaceRaw(bad, '\uFEFF\0\0\0{"type":"hea');
    const listed = await store.list();
    expect(listed.runs).toHaveLength(11);
    expect(listed.runs.map((run) => run.runId)).not.toContain(bad);
    expect(listed.errors).toHaveLength(1);
    expect(listed.errors[0]?.runId).toBe(bad);
    expect(listed.errors[0]?.location).toContain(bad);
    const bySession = await store.list({ sessionId: SESSION_A });
    expect(bySession.runs).toHaveLength(11);
    expect(bySession.errors).toHaveLength(1);
  });
}
