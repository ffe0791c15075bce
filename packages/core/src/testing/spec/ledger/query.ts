// Ledger.query and Ledger.replay (the lookups): order, filters, metadata filters, paging, query
// errors.
import { expect, it } from 'vitest';
import { LEDGER_EVENT_TYPES } from '../../../schema/ledger-event.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { eventOf, ids, T0 } from './fixtures.js';

/** Registers the tests of `Ledger.query` and `Ledger.replay`: how events are looked up. */
export function ledgerQueryTests({ open }: ContractGroup<'ledger'>): void {
  it('orders by ts_ms, then insertion order for ties', async (context) => {
    const { store: ledger } = await open(context);
    await ledger.append(eventOf({ event_id: 'late', ts_ms: T0 + 10 }));
    await ledger.append(eventOf({ event_id: 'tie-1', ts_ms: T0 + 5 }));
    await ledger.append(eventOf({ event_id: 'early', ts_ms: T0 }));
    await ledger.append(eventOf({ event_id: 'tie-2', ts_ms: T0 + 5 }));
    await ledger.append(eventOf({ event_id: 'tie-3', ts_ms: T0 + 5 }));
    const expected = ['early', 'tie-1', 'tie-2', 'tie-3', 'late'];
    expect(ids((await ledger.query({ scope: 'project-a' })).events)).toEqual(expected);
    expect(ids((await ledger.replay('session-1', { scope: 'project-a' })).events)).toEqual(
      expected,
    );
    const positions = (await ledger.query({ scope: 'project-a' })).events.map((e) => e.position);
    expect(positions).toEqual([3, 2, 4, 5, 1]);
  });

  it('filters by session, inclusive time range and several types', async (context) => {
    const { store: ledger } = await open(context);
    const types = LEDGER_EVENT_TYPES;
    for (let index = 0; index < 12; index++) {
      await ledger.append(
        eventOf({
          event_id: `event-${index}`,
          ts_ms: T0 + index * 1000,
          type: types[index % types.length],
          session_id: index % 2 === 0 ? 'even' : 'odd',
        }),
      );
    }
    const range = await ledger.query({
      scope: 'project-a',
      fromTsMs: T0 + 2000,
      toTsMs: T0 + 5000,
    });
    expect(ids(range.events)).toEqual(['event-2', 'event-3', 'event-4', 'event-5']);
    const point = await ledger.query({
      scope: 'project-a',
      fromTsMs: T0 + 3000,
      toTsMs: T0 + 3000,
    });
    expect(ids(point.events)).toEqual(['event-3']);
    const typed = await ledger.query({
      scope: 'project-a',
      types: ['tool.call', 'ops.alert', 'tool.call'],
    });
    expect(ids(typed.events)).toEqual(['event-2', 'event-4', 'event-8', 'event-10']);
    const session = await ledger.query({
      scope: 'project-a',
      sessionId: 'odd',
      types: ['tool.result', 'conversation.user'],
    });
    expect(ids(session.events)).toEqual(['event-1', 'event-5', 'event-7', 'event-11']);
  });

  it('filters on each event’s own metadata', async (context) => {
    const { store: ledger } = await open(context);
    for (let index = 0; index < 8; index++) {
      await ledger.append(
        eventOf({
          event_id: `m${index}`,
          ts_ms: T0 + index,
          metadata: {
            priority: index,
            source: index % 2 === 0 ? 'crm' : 'support',
            tags: [`t${index % 3}`],
          },
        }),
      );
    }
    await ledger.append(eventOf({ event_id: 'plain', ts_ms: T0 + 100 }));
    const filter = {
      type: 'and' as const,
      filters: [
        { property_name: 'source', comparison_operator: '=' as const, property_value: 'crm' },
        { property_name: 'priority', comparison_operator: '>=' as const, property_value: 2 },
      ],
    };
    const page = await ledger.query({ scope: 'project-a', metadata: filter, limit: 2 });
    expect(ids(page.events)).toEqual(['m2', 'm4']);
    expect(page.events[0]?.metadata).toEqual({ priority: 2, source: 'crm', tags: ['t2'] });
    const next = await ledger.query({
      scope: 'project-a',
      metadata: filter,
      limit: 2,
      afterId: page.next_after_id as string,
    });
    expect(ids(next.events)).toEqual(['m6']);
    expect(next.next_after_id).toBeNull();
    const missing = await ledger.query({
      scope: 'project-a',
      metadata: {
        type: 'and',
        filters: [{ property_name: 'source', comparison_operator: 'IS NULL' }],
      },
    });
    expect(ids(missing.events)).toEqual(['plain']);
    await expectEpisodicError(
      ledger.query({ scope: 'project-a', metadata: { type: 'xor', filters: [] } as never }),
      'VALIDATION_ERROR',
    );
  });

  it('pages with afterId until next_after_id is null', async (context) => {
    const { store: ledger } = await open(context);
    for (let index = 0; index < 5; index++) {
      await ledger.append(eventOf({ event_id: `page-${index}`, ts_ms: T0 + (index % 2) }));
    }
    const seen: string[] = [];
    let afterId: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await ledger.query({
        scope: 'project-a',
        limit: 2,
        ...(afterId ? { afterId } : {}),
      });
      seen.push(...ids(page.events));
      if (page.next_after_id === null) break;
      afterId = page.next_after_id;
    }
    expect(seen).toEqual(['page-0', 'page-2', 'page-4', 'page-1', 'page-3']);
    const exact = await ledger.query({ scope: 'project-a', limit: 5 });
    expect(exact.next_after_id).toBeNull();
    const replayed = await ledger.replay('session-1', { scope: 'project-a', limit: 3 });
    expect(replayed.next_after_id).toBe('page-4');
  });

  it('rejects bad queries with VALIDATION_ERROR, a missing scope with SCOPE_REQUIRED, an unknown cursor with NOT_FOUND', async (context) => {
    const { store: ledger } = await open(context);
    await ledger.append(eventOf({ event_id: 'only' }));
    await expectEpisodicError(ledger.query({} as never), 'SCOPE_REQUIRED');
    await expectEpisodicError(ledger.replay('session-1', {} as never), 'SCOPE_REQUIRED');
    const range = await expectEpisodicError(
      ledger.query({ scope: 'project-a', fromTsMs: 2, toTsMs: 1 }),
      'VALIDATION_ERROR',
    );
    expect(range.message).toContain('fromTsMs');
    for (const limit of [0, 501, 1.5, -1]) {
      await expectEpisodicError(ledger.query({ scope: 'project-a', limit }), 'VALIDATION_ERROR');
    }
    const type = await expectEpisodicError(
      ledger.query({ scope: 'project-a', types: ['tool.output' as never] }),
      'VALIDATION_ERROR',
    );
    expect(type.message).toContain(
      '"conversation.assistant", "conversation.user", "ops.alert", "ops.decision", "tool.call", "tool.result"',
    );
    await expectEpisodicError(ledger.query({ scope: '!!!' }), 'VALIDATION_ERROR');
    await expectEpisodicError(
      ledger.query({ scope: 'project-a', afterId: 'missing' }),
      'NOT_FOUND',
    );
    await expectEpisodicError(ledger.query({ scope: 'project-b', afterId: 'only' }), 'NOT_FOUND');
    await expectEpisodicError(
      ledger.query({ scope: 'project-a', global: true }),
      'VALIDATION_ERROR',
    );
  });
}
