// Ledger.redact: one event or a session, in place, within the scope, metadata included.
import { expect, it } from 'vitest';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { eventOf, T0 } from './fixtures.js';

/** Registers the tests of `Ledger.redact`. */
export function ledgerRedactTests({ open }: ContractGroup<'ledger'>): void {
  it('redacts one event or a session in place, keeping the rows, always within the scope', async (context) => {
    const { store: ledger } = await open(context);
    await ledger.append(eventOf({ event_id: 'r1' }));
    await ledger.append(eventOf({ event_id: 'r2', ts_ms: T0 + 1 }));
    await ledger.append(eventOf({ event_id: 'r3', ts_ms: T0 + 2, session_id: 'session-2' }));

    const one = await ledger.redact({ scope: 'project-a', eventId: 'r1' }, { replacement: 'null' });
    expect(one).toEqual({
      kind: 'ledger.redact',
      scope: 'project-a',
      event_id: 'r1',
      replacement: 'null',
      redacted_count: 1,
    });
    const session = await ledger.redact({ scope: 'project-a', sessionId: 'session-2' });
    expect(session.redacted_count).toBe(1);
    expect(session.replacement).toBe('placeholder');
    expect((await ledger.redact({ scope: 'project-a', sessionId: 'nobody' })).redacted_count).toBe(
      0,
    );

    const events = (await ledger.query({ scope: 'project-a', includePayload: true })).events;
    expect(
      events.map((event) => [
        event.event_id,
        event.summary,
        event.refs,
        event.payload,
        event.redacted,
        event.position,
      ]),
    ).toEqual([
      ['r1', '[REDACTED]', null, null, true, 1],
      ['r2', 'asked for status', { record_ref: 'obs:42' }, { intent: 'status' }, false, 2],
      ['r3', '[REDACTED]', null, '[REDACTED]', true, 1],
    ]);
    await expectEpisodicError(ledger.redact({ eventId: 'r2' } as never), 'SCOPE_REQUIRED');
    await expectEpisodicError(ledger.redact({ scope: 'project-a' } as never), 'VALIDATION_ERROR');
    await expectEpisodicError(
      ledger.redact({ scope: 'project-a', eventId: 'r2', sessionId: 'x' } as never),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(
      ledger.redact({ scope: 'project-a', eventId: 'r2' }, { replacement: 'zero' as never }),
      'VALIDATION_ERROR',
    );
    expect((await ledger.redact({ global: true, eventId: 'r2' })).redacted_count).toBe(1);
  });

  it('redaction clears metadata too: no caller text is left in a redacted row', async (context) => {
    const { store: ledger } = await open(context);
    await ledger.append(eventOf({ event_id: 'm1', metadata: { m: 'keep-me-not', n: 2 } }));
    await ledger.append(eventOf({ event_id: 'm2', ts_ms: T0 + 1, metadata: { m: 'other' } }));
    await ledger.redact({ scope: 'project-a', eventId: 'm1' });
    const events = (await ledger.query({ scope: 'project-a', includePayload: true })).events;
    expect(events.map((event) => [event.event_id, event.metadata])).toEqual([
      ['m1', undefined],
      ['m2', { m: 'other' }],
    ]);
    await ledger.redact({ scope: 'project-a', sessionId: 'session-1' });
    const page = await ledger.query({
      scope: 'project-a',
      metadata: {
        type: 'and',
        filters: [{ property_name: 'm', comparison_operator: '=', property_value: 'other' }],
      },
    });
    expect(page.events).toEqual([]);
  });
}
