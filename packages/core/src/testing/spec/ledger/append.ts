// Ledger.append: ids, normalized scopes, positions, canonical payloads, idempotent retries.
import { expect, it } from 'vitest';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { eventOf, T0 } from './fixtures.js';

/**
 * Registers the tests of `Ledger.append` (batches are `append-batch.ts`, the input guards
 * `guards.ts`).
 */
export function ledgerAppendTests({ open }: ContractGroup<'ledger'>): void {
  it('appends with a ULID, a normalized scope and position 1, and reads summary-only by default', async (context) => {
    const { store: ledger } = await open(context);
    const { event, duplicate } = await ledger.append(eventOf({ scope: '  Project A ' }));
    expect(duplicate).toBe(false);
    expect(event.event_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(event).toMatchObject({
      scope: 'project-a',
      position: 1,
      redacted: false,
      payload: { intent: 'status' },
      refs: { record_ref: 'obs:42' },
    });
    expect(typeof event.schema_version).toBe('string');
    expect(Number.isNaN(Date.parse(event.created_at))).toBe(false);

    const page = await ledger.query({ scope: 'project-a' });
    expect(page.events).toHaveLength(1);
    expect(page.events[0]).not.toHaveProperty('payload');
    expect(page.events[0]?.summary).toBe('asked for status');
    expect(page.events[0]?.refs).toEqual({ record_ref: 'obs:42' });
    const full = await ledger.query({ scope: 'PROJECT-A', includePayload: true });
    expect(full.events[0]?.payload).toEqual({ intent: 'status' });
    expect(full.next_after_id).toBeNull();
  });

  it('stores payload and refs canonically: key order never matters', async (context) => {
    const { store: ledger } = await open(context);
    const { event } = await ledger.append(
      eventOf({
        event_id: 'canonical-1',
        payload: { b: 1, a: { d: 2, c: 3 } },
        refs: { z: 1, y: 2 },
      }),
    );
    expect(JSON.stringify(event.payload)).toBe('{"a":{"c":3,"d":2},"b":1}');
    const retry = await ledger.append(
      eventOf({
        event_id: 'canonical-1',
        payload: { a: { c: 3, d: 2 }, b: 1 },
        refs: { y: 2, z: 1 },
      }),
    );
    expect(retry.duplicate).toBe(true);
  });

  it('makes a retry with the same event id idempotent, and a different event with that id a CONFLICT', async (context) => {
    const { store: ledger } = await open(context);
    const first = await ledger.append(eventOf({ event_id: 'retry-1' }));
    const again = await ledger.append(eventOf({ event_id: 'retry-1' }));
    expect(again).toEqual({ event: first.event, duplicate: true });
    // Without ts_ms the retry is matched on content; the original time is returned.
    const { ts_ms: _ignored, ...withoutTime } = eventOf({ event_id: 'retry-1' });
    expect((await ledger.append(withoutTime)).event.ts_ms).toBe(T0);

    await expectEpisodicError(
      ledger.append(eventOf({ event_id: 'retry-1', summary: 'other' })),
      'CONFLICT',
    );
    await expectEpisodicError(
      ledger.append(eventOf({ event_id: 'retry-1', scope: 'project-b' })),
      'CONFLICT',
    );
    expect((await ledger.query({ global: true })).events).toHaveLength(1);

    await ledger.redact({ scope: 'project-a', eventId: 'retry-1' });
    const afterRedaction = await ledger.append(eventOf({ event_id: 'retry-1' }));
    expect(afterRedaction.duplicate).toBe(true);
    expect(afterRedaction.event.summary).toBe('[REDACTED]');

    const batch = await ledger.appendBatch([
      eventOf({ event_id: 'retry-1' }),
      eventOf({ event_id: 'retry-2', ts_ms: T0 + 1 }),
    ]);
    expect(batch.map((receipt) => receipt.duplicate)).toEqual([true, false]);
    expect((await ledger.query({ scope: 'project-a' })).events).toHaveLength(2);
  });
}
