// Ledger scope isolation: every operation stays in its scope; global only when asked for.
import { expect, it } from 'vitest';
import { LEDGER_EVENT_TYPES, type LedgerEvent } from '../../../schema/ledger-event.js';
import type { Ledger } from '../../../store/ledger-store.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { DAY, eventOf, ids, T0 } from './fixtures.js';

/** Every event `query` matches, read page by page. */
async function all(ledger: Ledger, query: Parameters<Ledger['query']>[0]): Promise<LedgerEvent[]> {
  const events: LedgerEvent[] = [];
  let afterId: string | undefined;
  for (;;) {
    const page = await ledger.query({ ...query, limit: 500, ...(afterId ? { afterId } : {}) });
    events.push(...page.events);
    if (page.next_after_id === null) return events;
    afterId = page.next_after_id;
  }
}
/** Registers the tests of scope isolation across every `Ledger` operation. */
export function ledgerScopeTests({ open }: ContractGroup<'ledger'>): void {
  it('keeps scopes apart in every operation; global only when asked for', async (context) => {
    const { store: ledger } = await open(context);
    for (const scope of ['alpha', 'beta', 'gamma']) {
      await ledger.append(eventOf({ scope, event_id: `${scope}-1`, session_id: 'shared' }));
      await ledger.append(
        eventOf({
          scope,
          event_id: `${scope}-2`,
          session_id: 'shared',
          type: 'tool.result',
          ts_ms: T0 - 40 * DAY,
        }),
      );
    }
    expect(ids((await ledger.query({ scope: 'alpha' })).events).sort()).toEqual([
      'alpha-1',
      'alpha-2',
    ]);
    expect(ids((await ledger.replay('shared', { scope: 'beta' })).events)).toEqual([
      'beta-2',
      'beta-1',
    ]);
    expect((await ledger.query({ scope: 'delta' })).events).toEqual([]);
    expect((await ledger.query({ global: true })).events).toHaveLength(6);
    // Positions count per scope and session.
    expect(
      (await ledger.replay('shared', { scope: 'gamma' })).events.map((e) => e.position),
    ).toEqual([2, 1]);

    await expectEpisodicError(ledger.redact({ scope: 'alpha', eventId: 'beta-1' }), 'NOT_FOUND');
    expect((await ledger.redact({ scope: 'alpha', sessionId: 'shared' })).redacted_count).toBe(2);
    expect((await ledger.query({ scope: 'beta' })).events.every((event) => !event.redacted)).toBe(
      true,
    );

    const gc = await ledger.gc({ scope: 'beta', nowMs: T0 });
    expect(gc.deleted_total).toBe(1);
    expect(ids((await ledger.query({ scope: 'gamma' })).events)).toEqual(['gamma-2', 'gamma-1']);
    expect(ids((await ledger.query({ global: true })).events).sort()).toEqual([
      'alpha-1',
      'alpha-2',
      'beta-1',
      'gamma-1',
      'gamma-2',
    ]);
  });

  it('never leaks across scopes over a long random sequence of operations (model-based)', async (context) => {
    const { store: ledger } = await open(context);
    const scopes = ['s0', 's1', 's2'];
    const model = new Map<
      string,
      { scope: string; session: string; ts: number; redacted: boolean; type: string }
    >();
    let seed = 20260203;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let step = 0; step < 150; step++) {
      const scope = scopes[random(3)] as string;
      const session = `session-${random(3)}`;
      const operation = random(10);
      if (operation < 6) {
        const id = `op-${step}`;
        const ts = T0 - random(60) * DAY;
        const type = LEDGER_EVENT_TYPES[random(6)] as string;
        await ledger.append(
          eventOf({ event_id: id, scope, session_id: session, ts_ms: ts, type: type as never }),
        );
        model.set(id, { scope, session, ts, redacted: false, type });
      } else if (operation === 6) {
        const { redacted_count } = await ledger.redact({ scope, sessionId: session });
        let expected = 0;
        for (const row of model.values()) {
          if (row.scope === scope && row.session === session) {
            row.redacted = true;
            expected++;
          }
        }
        expect(redacted_count).toBe(expected);
      } else if (operation === 7) {
        const receipt = await ledger.gc({
          scope,
          nowMs: T0,
          policy: { 'tool.call': 20, 'tool.result': 10 },
        });
        let expected = 0;
        for (const [id, row] of model) {
          const days =
            row.type === 'tool.call'
              ? 20
              : row.type === 'tool.result'
                ? 10
                : row.type === 'conversation.user'
                  ? 60
                  : row.type === 'ops.decision'
                    ? null
                    : 90;
          if (row.scope === scope && days !== null && row.ts < T0 - days * DAY) {
            model.delete(id);
            expected++;
          }
        }
        expect(receipt.deleted_total).toBe(expected);
      } else {
        const events =
          operation === 8
            ? await all(ledger, { scope })
            : (await ledger.replay(session, { scope, limit: 500 })).events;
        for (const event of events) expect(event.scope).toBe(scope);
        const expected = [...model.entries()]
          .filter(([, row]) => row.scope === scope && (operation === 8 || row.session === session))
          .map(([id]) => id)
          .sort();
        expect(ids(events).sort()).toEqual(expected);
        for (const event of events)
          expect(event.redacted).toBe(model.get(event.event_id)?.redacted);
      }
    }
  });
}
