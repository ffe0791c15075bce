// Ledger.appendBatch and expectedPosition: all or nothing, exactly one racing append wins.
import { expect, it } from 'vitest';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { eventOf, ids } from './fixtures.js';

/** Registers the tests of `Ledger.appendBatch` and of appends with `expectedPosition`. */
export function ledgerAppendBatchTests({ open }: ContractGroup<'ledger'>): void {
  it('enforces the expected position: exactly one of two racing appends wins, the other is CONFLICT', async (context) => {
    const { store: ledger } = await open(context);
    const first = await ledger.append(eventOf({ event_id: 'p1' }), { expectedPosition: 0 });
    expect(first.event.position).toBe(1);
    const results = await Promise.allSettled([
      ledger.append(eventOf({ event_id: 'p2a' }), { expectedPosition: 1 }),
      ledger.append(eventOf({ event_id: 'p2b' }), { expectedPosition: 1 }),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason.code).toBe('CONFLICT');
    expect(lost.reason.details).toMatchObject({ expectedPosition: 1, currentPosition: 2 });
    const stale = await expectEpisodicError(
      ledger.appendBatch([eventOf({ event_id: 'p3' }), eventOf({ event_id: 'p4' })], {
        expectedPosition: 1,
      }),
      'CONFLICT',
    );
    expect(stale.message).toContain('expected its last position to be 1, found 2');
    const batch = await ledger.appendBatch(
      [eventOf({ event_id: 'p3' }), eventOf({ event_id: 'p4' })],
      {
        expectedPosition: 2,
      },
    );
    expect(batch.map((receipt) => receipt.event.position)).toEqual([3, 4]);
    // Another session's position is independent.
    expect(
      (
        await ledger.append(eventOf({ event_id: 'q1', session_id: 'other' }), {
          expectedPosition: 0,
        })
      ).event.position,
    ).toBe(1);
    await expectEpisodicError(
      ledger.appendBatch(
        [eventOf({ event_id: 'x1' }), eventOf({ event_id: 'x2', session_id: 'other' })],
        {
          expectedPosition: 4,
        },
      ),
      'VALIDATION_ERROR',
    );
    expect(
      (await ledger.replay('session-1', { scope: 'project-a' })).events.map((e) => e.position),
    ).toEqual([1, 2, 3, 4]);
  });

  it('appends a batch all or nothing', async (context) => {
    const { store: ledger } = await open(context);
    await ledger.append(eventOf({ event_id: 'existing' }));
    await expectEpisodicError(
      ledger.appendBatch([
        eventOf({ event_id: 'b1' }),
        eventOf({ event_id: 'b2', type: 'bogus' as never }),
      ]),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(
      ledger.appendBatch([
        eventOf({ event_id: 'b1' }),
        eventOf({ event_id: 'existing', summary: 'changed' }),
      ]),
      'CONFLICT',
    );
    await expectEpisodicError(
      ledger.appendBatch([eventOf({ event_id: 'b1' }), eventOf({ event_id: 'b1' })]),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(ledger.appendBatch([]), 'VALIDATION_ERROR');
    expect(ids((await ledger.query({ global: true })).events)).toEqual(['existing']);
    const stored = await ledger.appendBatch([
      eventOf({ event_id: 'b1' }),
      eventOf({ event_id: 'b2' }),
    ]);
    expect(stored.map((receipt) => receipt.event.position)).toEqual([2, 3]);
  });
}
