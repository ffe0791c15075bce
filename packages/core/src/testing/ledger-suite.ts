import { describe, expect, it } from 'vitest';
import {
  LEDGER_EVENT_TYPES,
  type LedgerEvent,
  type NewLedgerEvent,
} from '../schema/ledger-event.js';
import type { Ledger } from '../store/ledger-store.js';
import type { CreateStoreHarness, StoreConformanceCapabilities } from './store-harness.js';
import { expectEpisodicError, openStore } from './suite-helpers.js';

const CONTRACT = 'Ledger';
const DAY = 86_400_000;
const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00.000Z

/** A valid event; override any field. */
function eventOf(overrides: Partial<NewLedgerEvent> = {}): NewLedgerEvent {
  return {
    scope: 'project-a',
    session_id: 'session-1',
    agent_id: 'planner',
    type: 'conversation.user',
    summary: 'asked for status',
    ts_ms: T0,
    payload: { intent: 'status' },
    refs: { record_ref: 'obs:42' },
    ...overrides,
  };
}

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

const ids = (events: readonly LedgerEvent[]) => events.map((event) => event.event_id);

/**
 * Registers the `Ledger` contract tests (see `describeStoreConformance`). The harness's ledger
 * must use the default options (caps, guards, retention); every test passes `ts_ms` and `nowMs`
 * explicitly, so no clock is needed.
 */
export function describeLedgerSuite(
  createHarness: CreateStoreHarness,
  _capabilities: StoreConformanceCapabilities,
): void {
  const open = async (context: Parameters<typeof openStore>[0]) =>
    (await openStore(context, createHarness, 'ledger', CONTRACT)).store;

  describe(CONTRACT, () => {
    it('declares its capabilities as data', async (context) => {
      const ledger = await open(context);
      expect(typeof ledger.name).toBe('string');
      for (const key of ['atomicBatch', 'crossProcessConflicts', 'secureDelete', 'persistent']) {
        expect(typeof ledger.capabilities[key as keyof Ledger['capabilities']]).toBe('boolean');
      }
    });

    it('appends with a ULID, a normalized scope and position 1, and reads summary-only by default', async (context) => {
      const ledger = await open(context);
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
      const ledger = await open(context);
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

    it('orders by ts_ms, then insertion order for ties', async (context) => {
      const ledger = await open(context);
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
      const ledger = await open(context);
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

    it('pages with afterId until next_after_id is null', async (context) => {
      const ledger = await open(context);
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
      const ledger = await open(context);
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

    it('keeps scopes apart in every operation; global only when asked for', async (context) => {
      const ledger = await open(context);
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
      const ledger = await open(context);
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
            .filter(
              ([, row]) => row.scope === scope && (operation === 8 || row.session === session),
            )
            .map(([id]) => id)
            .sort();
          expect(ids(events).sort()).toEqual(expected);
          for (const event of events)
            expect(event.redacted).toBe(model.get(event.event_id)?.redacted);
        }
      }
    });

    it('makes a retry with the same event id idempotent, and a different event with that id a CONFLICT', async (context) => {
      const ledger = await open(context);
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

    it('enforces the expected position: exactly one of two racing appends wins, the other is CONFLICT', async (context) => {
      const ledger = await open(context);
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
      const ledger = await open(context);
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

    it('rejects bad events without changing anything and without echoing their content', async (context) => {
      const ledger = await open(context);
      const { scope: _scope, ...unscoped } = eventOf();
      await expectEpisodicError(ledger.append(unscoped), 'SCOPE_REQUIRED');
      await expectEpisodicError(ledger.append(eventOf({ scope: 'global' })), 'VALIDATION_ERROR');
      const type = await expectEpisodicError(
        ledger.append(eventOf({ type: 'tool.output' as never })),
        'VALIDATION_ERROR',
      );
      expect(type.message).toContain('"conversation.assistant", "conversation.user", "ops.alert"');
      await expectEpisodicError(ledger.append(eventOf({ summary: '' })), 'VALIDATION_ERROR');
      await expectEpisodicError(
        ledger.append(eventOf({ payload: { when: Number.NaN } })),
        'VALIDATION_ERROR',
      );
      await expectEpisodicError(ledger.append(eventOf({ extra: 1 } as never)), 'VALIDATION_ERROR');
      await expectEpisodicError(
        ledger.append(eventOf({ metadata: { tooMany: [{}] } as never })),
        'VALIDATION_ERROR',
      );

      const big = await expectEpisodicError(
        ledger.append(eventOf({ payload: { text: 'x'.repeat(8200) } })),
        'VALIDATION_ERROR',
      );
      expect(big.message).toMatch(
        /payload is 8211 bytes as canonical JSON, over the cap of 8192 bytes/,
      );
      const refs = await expectEpisodicError(
        ledger.append(eventOf({ refs: { path: 'é'.repeat(2100) } })),
        'VALIDATION_ERROR',
      );
      expect(refs.details).toMatchObject({ field: 'refs', bytes: 4211, cap: 4096 });

      const secret = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
      for (const event of [
        eventOf({ summary: `token ${secret}` }),
        eventOf({ payload: { nested: [`use ${secret}`] } }),
        eventOf({ refs: { url: `https://x.test/?t=${secret}` } }),
        eventOf({ summary: 'x'.repeat(2000) + secret }),
      ]) {
        const error = await expectEpisodicError(ledger.append(event), 'VALIDATION_ERROR');
        expect(JSON.stringify(error.toJSON())).not.toContain(secret);
        expect(error.message).not.toContain('a1B2c3D4e5');
      }
      await expectEpisodicError(
        ledger.append(eventOf({ summary: 'mail jane.doe@example.com' })),
        'VALIDATION_ERROR',
      );
      await expectEpisodicError(
        ledger.append(eventOf({ payload: { out: '\u001b[31mred' } })),
        'VALIDATION_ERROR',
      );
      expect((await ledger.query({ global: true })).events).toEqual([]);

      const allowed = await ledger.append(eventOf({ summary: 'mail jane.doe@example.com' }), {
        allow: ['pii'],
      });
      expect(allowed.event.summary).toBe('mail jane.doe@example.com');
      const redacted = await ledger.append(
        eventOf({ payload: { key: secret, mail: 'jane.doe@example.com' } }),
        { redact: true },
      );
      expect(redacted.event.payload).toEqual({
        key: '[REDACTED:github_token]',
        mail: '[REDACTED:email]',
      });
      expect(redacted.event.redacted).toBe(false);
    });

    it('redacts one event or a session in place, keeping the rows, always within the scope', async (context) => {
      const ledger = await open(context);
      await ledger.append(eventOf({ event_id: 'r1' }));
      await ledger.append(eventOf({ event_id: 'r2', ts_ms: T0 + 1 }));
      await ledger.append(eventOf({ event_id: 'r3', ts_ms: T0 + 2, session_id: 'session-2' }));

      const one = await ledger.redact(
        { scope: 'project-a', eventId: 'r1' },
        { replacement: 'null' },
      );
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
      expect(
        (await ledger.redact({ scope: 'project-a', sessionId: 'nobody' })).redacted_count,
      ).toBe(0);

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
      const ledger = await open(context);
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

    it('forgets a session GC emptied: its next event is position 1 again', async (context) => {
      const ledger = await open(context);
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
      const again = await ledger.append(
        eventOf({ event_id: 'g3', session_id: 'gone', ts_ms: T0 }),
        { expectedPosition: 0 },
      );
      expect(again.event.position).toBe(1);
      const kept = await ledger.append(eventOf({ event_id: 'k3', session_id: 'kept', ts_ms: T0 }));
      expect(kept.event.position).toBe(3);
      const other = await ledger.append(
        eventOf({ event_id: 'o2', scope: 'project-b', session_id: 'other', ts_ms: T0 }),
      );
      expect(other.event.position).toBe(1);
    });

    it('deletes strictly older events per type; the dry run reports exactly what the real run deletes', async (context) => {
      const ledger = await open(context);
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
        (await ledger.gc({ global: true, nowMs: now, policy: { 'ops.decision': 10 } }))
          .deleted_total,
      ).toBe(1);
    });

    it('filters on each event’s own metadata', async (context) => {
      const ledger = await open(context);
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
  });

  // Ids as people type them: a unique prefix of an event id, found by an indexed range in the
  // caller's scope. Ids are chosen so that prefixes collide across scopes.
  describe(`${CONTRACT}: event ids by prefix`, () => {
    it('resolves a whole id or a unique prefix in the scope; an ambiguous one names its candidates; other scopes stay invisible', async (context) => {
      const ledger = await open(context);
      const A1 = '01JH4Z5Q8K2M3N4P5Q6R7S8T9V';
      const A2 = '01JH4Z5Q8K2M3N4P5Q6R7S8T9W';
      const A3 = '01JH4ZAAAAAAAAAAAAAAAAAAAA';
      const B1 = '01JH4Z5Q8K9999999999999999';
      const B_ONLY = '01JH4ZBBBBBBBBBBBBBBBBBBBB';
      const inA = { scope: 'project-a' };
      for (const eventId of [A1, A2, A3]) await ledger.append(eventOf({ event_id: eventId }));
      for (const eventId of [B1, B_ONLY]) {
        await ledger.append(eventOf({ event_id: eventId, scope: 'project-b' }));
      }
      await ledger.append(eventOf({ event_id: 'short' }));
      await ledger.append(eventOf({ event_id: 'short-and-longer' }));

      expect(await ledger.resolveEventId(A1, inA)).toBe(A1);
      expect(await ledger.resolveEventId('01JH4ZA', inA)).toBe(A3);
      // Upper-case ids typed in lower case.
      expect(await ledger.resolveEventId('01jh4za', inA)).toBe(A3);
      expect(
        await ledger.resolveEventId('01JH4Z5Q8K2M3N4P5Q6R7S8T9W', { scope: ' Project-A ' }),
      ).toBe(A2);
      // A whole id wins over the longer ids it starts; a short whole id is looked up as it is.
      expect(await ledger.resolveEventId('short', inA)).toBe('short');
      expect(await ledger.resolveEventId('short-', inA)).toBe('short-and-longer');

      // Ambiguous in project-a: A1 and A2 are named and counted, B1 (project-b) is not.
      const ambiguous = await expectEpisodicError(
        ledger.resolveEventId('01JH4Z5Q8K', inA),
        'VALIDATION_ERROR',
      );
      expect(ambiguous.message).toContain(`is the start of 2 event ids: ${A1}, ${A2}.`);
      expect(ambiguous.message).not.toContain(B1);
      expect(ambiguous.details).toMatchObject({ count: 2, candidates: [A1, A2] });

      // Another scope's event answers exactly like an id nobody has, by prefix or whole.
      const walled = await expectEpisodicError(ledger.resolveEventId('01JH4ZB', inA), 'NOT_FOUND');
      expect(walled.message).not.toContain(B_ONLY);
      const nobody = await expectEpisodicError(ledger.resolveEventId('01JH4ZC', inA), 'NOT_FOUND');
      expect(walled.message.replace('01JH4ZB', '01JH4ZC')).toBe(nobody.message);
      await expectEpisodicError(ledger.resolveEventId(B_ONLY, inA), 'NOT_FOUND');
      expect(await ledger.resolveEventId('01JH4ZB', { scope: 'project-b' })).toBe(B_ONLY);
      // Every scope, when asked for: then all three share the prefix.
      const everywhere = await expectEpisodicError(
        ledger.resolveEventId('01JH4Z5Q8K', { global: true }),
        'VALIDATION_ERROR',
      );
      expect(everywhere.details).toMatchObject({ count: 3, candidates: [A1, A2, B1] });
      expect(await ledger.resolveEventId('01JH4Z5Q8K9', { global: true })).toBe(B1);

      // Too short to be a prefix and not a whole id; not an id at all; no scope.
      const short = await expectEpisodicError(ledger.resolveEventId('01JH4', inA), 'NOT_FOUND');
      expect(short.message).toContain('6 or more characters');
      const bad = await expectEpisodicError(
        ledger.resolveEventId('01JH4Z 5Q', inA),
        'VALIDATION_ERROR',
      );
      expect(bad.message).toContain('An event id is');
      await expectEpisodicError(ledger.resolveEventId('01JH4Z', {} as never), 'SCOPE_REQUIRED');
    });

    it('never resolves, names or counts an event the access policy hides', async (context) => {
      const ledger = await open(context);
      const SHOWN = 'evt-policy-shown';
      const HIDDEN = 'evt-policy-hidden';
      await ledger.append(eventOf({ event_id: SHOWN, metadata: { tenant: 'acme' } }));
      await ledger.append(eventOf({ event_id: HIDDEN, metadata: { tenant: 'other' } }));
      const policy = { required: { tenant: 'acme' } };
      expect(await ledger.resolveEventId('evt-policy', { scope: 'project-a', policy })).toBe(SHOWN);
      const hidden = await expectEpisodicError(
        ledger.resolveEventId('evt-policy-h', { scope: 'project-a', policy }),
        'NOT_FOUND',
      );
      expect(hidden.message).not.toContain(HIDDEN);
      await expectEpisodicError(
        ledger.resolveEventId(HIDDEN, { scope: 'project-a', policy }),
        'NOT_FOUND',
      );
      await expectEpisodicError(
        ledger.resolveEventId('evt-policy', { scope: 'project-a' }),
        'VALIDATION_ERROR',
      );
    });
  });
}
