// Ledger.gc: retention per type, dry runs, policies, and what an emptied session forgets.
import { expect, it } from 'vitest';
import type { LEDGER_EVENT_TYPES } from '../../../schema/ledger-event.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { DAY, eventOf, ids, T0 } from './fixtures.js';

/** Registers the tests of `Ledger.gc` (retention). */
export function ledgerRetentionTests({ open }: ContractGroup<'ledger'>): void {
  it('forgets a session GC emptied: its next event is position 1 again', async (context) => {
    const { store: ledger } = await open(context);
    const old = T0 - 400 * DAY;
    await ledger.append(eventOf({ event_id: 'g1', session_id: 'gone', ts_ms: old }));
    await ledger.append(eventOf({ event_id: 'g2', session_id: 'gone', ts_ms: old + 1 }));
    await ledger.append(eventOf({ event_id: 'k1', session_id: 'kept', ts_ms: old }));
    await ledger.append(eventOf({ event_id: 'k2', session_id: 'kept', ts_ms: T0 }));
    await ledger.append(
      eventOf({ event_id: 'o1', scope: 'project-b', session_id: 'other', ts_ms: old }),
    );
    const gc = await ledger.gc({ global: true, nowMs: T0 });
    expect(gc.deleted_total).toBe(4);
    const again = await ledger.append(eventOf({ event_id: 'g3', session_id: 'gone', ts_ms: T0 }), {
      expectedPosition: 0,
    });
    expect(again.event.position).toBe(1);
    const kept = await ledger.append(eventOf({ event_id: 'k3', session_id: 'kept', ts_ms: T0 }));
    expect(kept.event.position).toBe(3);
    const other = await ledger.append(
      eventOf({ event_id: 'o2', scope: 'project-b', session_id: 'other', ts_ms: T0 }),
    );
    expect(other.event.position).toBe(1);
  });

  it('deletes strictly older events per type; the dry run reports exactly what the real run deletes', async (context) => {
    const { store: ledger } = await open(context);
    const now = T0;
    let counter = 0;
    const add = (type: (typeof LEDGER_EVENT_TYPES)[number], ageMs: number) =>
      ledger.append(eventOf({ event_id: `gc-${counter++}`, type, ts_ms: now - ageMs }));
    await add('tool.result', 30 * DAY); // exactly at the cutoff: kept (strict <)
    await add('tool.result', 30 * DAY + 1);
    await add('tool.call', 31 * DAY);
    await add('conversation.user', 61 * DAY);
    await add('conversation.user', 59 * DAY);
    await add('conversation.assistant', 91 * DAY);
    await add('ops.alert', 89 * DAY);
    await add('ops.decision', 5000 * DAY);

    const dry = await ledger.gc({ scope: 'project-a', nowMs: now, dryRun: true });
    expect(dry).toEqual({
      kind: 'ledger.gc',
      scope: 'project-a',
      dry_run: true,
      now_ms: now,
      deleted_total: 4,
      deleted_by_type: {
        'conversation.assistant': 1,
        'conversation.user': 1,
        'ops.alert': 0,
        'ops.decision': 0,
        'tool.call': 1,
        'tool.result': 1,
      },
      policy_days: {
        'conversation.assistant': 90,
        'conversation.user': 60,
        'ops.alert': 90,
        'ops.decision': null,
        'tool.call': 30,
        'tool.result': 30,
      },
    });
    expect((await ledger.query({ scope: 'project-a' })).events).toHaveLength(8);
    const real = await ledger.gc({ scope: 'project-a', nowMs: now });
    expect({ ...real, dry_run: true }).toEqual(dry);
    expect(ids((await ledger.query({ scope: 'project-a' })).events).sort()).toEqual([
      'gc-0',
      'gc-4',
      'gc-6',
      'gc-7',
    ]);
    expect((await ledger.gc({ scope: 'project-a', nowMs: now })).deleted_total).toBe(0);

    const override = await ledger.gc({
      scope: 'project-a',
      nowMs: now,
      policy: { 'ops.decision': 10, 'tool.result': null },
      dryRun: true,
    });
    expect(override.deleted_by_type).toMatchObject({ 'ops.decision': 1, 'tool.result': 0 });
    expect(override.policy_days['tool.result']).toBeNull();
    await expectEpisodicError(ledger.gc({ nowMs: now } as never), 'SCOPE_REQUIRED');
    await expectEpisodicError(
      ledger.gc({ scope: 'project-a', policy: { 'tool.result': -1 } }),
      'VALIDATION_ERROR',
    );
    // One rule for days: 0 expires every event older than now (here: every tool.result).
    const zero = await ledger.gc({
      scope: 'project-a',
      nowMs: now,
      policy: { 'tool.result': 0 },
      dryRun: true,
    });
    expect(zero.policy_days['tool.result']).toBe(0);
    expect(zero.deleted_by_type['tool.result']).toBeGreaterThan(0);
    await expectEpisodicError(
      ledger.gc({ scope: 'project-a', policy: { 'tool.output': 1 } as never }),
      'VALIDATION_ERROR',
    );
    expect(
      (await ledger.gc({ global: true, nowMs: now, policy: { 'ops.decision': 10 } })).deleted_total,
    ).toBe(1);
  });
}
