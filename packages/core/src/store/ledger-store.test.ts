import { describe, expect, it } from 'vitest';
import { rejection } from '../__fixtures__/episodic-errors.js';
import { EpisodicError } from '../errors/episodic-error.js';
import type { LedgerRow, SqlLedgerRow } from '../ledger/ledger-row.js';
import {
  createLedger,
  createUlidGenerator,
  type LedgerAdapter,
  type LedgerAppendResult,
} from './ledger-store.js';
import { createMemoryLedger, createMemoryLedgerAdapter } from './memory-ledger.js';

const event = {
  scope: 'a',
  session_id: 's',
  agent_id: 'x',
  type: 'ops.alert' as const,
  summary: 'disk 91 % full',
};

describe('createLedger', () => {
  it('uses the injected clock and id generator', async () => {
    const ledger = createMemoryLedger({ now: () => new Date(1_000), generateId: () => 'fixed-id' });
    const { event: stored } = await ledger.append(event);
    expect(stored).toMatchObject({
      event_id: 'fixed-id',
      ts_ms: 1_000,
      created_at: '1970-01-01T00:00:01.000Z',
    });
  });

  it('returns receipts whose payload behaves like a plain property (parsed on first read)', async () => {
    const ledger = createMemoryLedger({ now: () => new Date(1_000) });
    const payload = { b: [1, { c: 'x' }], a: 'first' };
    const [receipt] = await ledger.appendBatch([{ ...event, payload, metadata: { team: 'ops' } }]);
    const stored = receipt?.event;
    if (stored === undefined) throw new Error('no receipt');
    const [queried] = (await ledger.query({ scope: 'a', includePayload: true })).events;
    // Same keys in the same order, same values, also through JSON and structured cloning.
    expect(Object.keys(stored)).toEqual(Object.keys(queried ?? {}));
    expect(JSON.stringify(stored)).toBe(JSON.stringify(queried));
    expect(structuredClone(stored)).toEqual(queried);
    expect({ ...stored }).toEqual(queried);
    expect(stored.payload).toEqual({ a: 'first', b: [1, { c: 'x' }] });
    expect(stored.payload).toBe(stored.payload);
    // It is the caller's copy: changing it changes neither the input nor the ledger.
    (stored.payload as { a: string }).a = 'changed';
    stored.payload = 'replaced';
    expect(stored.payload).toBe('replaced');
    expect(payload.a).toBe('first');
    const [again] = (await ledger.query({ scope: 'a', includePayload: true })).events;
    expect(again?.payload).toEqual({ a: 'first', b: [1, { c: 'x' }] });
    const [noPayload] = await ledger.appendBatch([{ ...event, summary: 'no payload' }]);
    expect(noPayload?.event.payload).toBeNull();
  });

  it('generates monotonic ULIDs stamped with the clock', () => {
    const next = createUlidGenerator(() => new Date(1_767_225_600_000));
    const ids = [next(), next(), next()];
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]?.slice(0, 10)).toBe(ids[2]?.slice(0, 10));
  });

  it('draws the random part of ULIDs from the CSPRNG: it never repeats, across refills too', () => {
    let time = 1_767_225_600_000;
    const next = createUlidGenerator(() => new Date(time++));
    const randomParts = new Set(Array.from({ length: 2000 }, () => next().slice(10)));
    expect(randomParts.size).toBe(2000);
    for (const part of randomParts) expect(part).toMatch(/^[0-9A-HJKMNP-TV-Z]{16}$/);
    const first = createUlidGenerator(() => new Date(1));
    const second = createUlidGenerator(() => new Date(1));
    expect(first()).not.toBe(second());
  });

  it('validates its options: caps must be positive integers', () => {
    expect(() => createMemoryLedger({ caps: { payloadBytes: 0 } })).toThrow(/payloadBytes/);
    expect(() => createMemoryLedger({ caps: { refsBytes: 1.5 } })).toThrow(/refsBytes/);
    expect(() => createMemoryLedger({ retention: { 'tool.call': -1 } })).toThrow(/tool\.call/);
    expect(() => createMemoryLedger({ contentGuard: { mode: 'warn' as never } })).toThrow(/mode/);
  });

  it('applies ledger-wide guard settings: allow-listed kinds and redact mode', async () => {
    const allowing = createMemoryLedger({ contentGuard: { allow: ['pii'] } });
    expect(
      (await allowing.append({ ...event, summary: 'mail jane.doe@example.com' })).event.summary,
    ).toContain('@');
    const redacting = createMemoryLedger({ contentGuard: { mode: 'redact' } });
    expect(
      (await redacting.append({ ...event, summary: 'mail jane.doe@example.com' })).event.summary,
    ).toBe('mail [REDACTED:email]');
  });

  it('turns backend failures into STORAGE_ERROR and refuses adapters of another specification', async () => {
    const broken: LedgerAdapter = {
      ...createMemoryLedgerAdapter(),
      name: 'broken',
      append: () => {
        throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
      },
    };
    const error = await rejection(createLedger(broken).append(event));
    expect(error.code).toBe('STORAGE_ERROR');
    expect(error.details).toMatchObject({ store: 'broken', backendCode: 'SQLITE_IOERR' });
    expect(() => createLedger({ ...broken, specificationVersion: 'v2' as 'v1' })).toThrow(
      /specification v2/,
    );
    const rejecting: LedgerAdapter = {
      ...broken,
      append: () => Promise.reject(new Error('network down')),
    };
    const asyncError = await rejection(createLedger(rejecting).appendBatch([event, event]));
    expect(asyncError.code).toBe('STORAGE_ERROR');
    expect(asyncError.message).toContain('network down');
  });

  it('answers synchronous and asynchronous adapters alike, in input order, retries included', async () => {
    for (const mode of ['sync', 'async', 'reversed'] as const) {
      const inner = createMemoryLedgerAdapter();
      let calls = 0;
      const adapter: LedgerAdapter = {
        ...inner,
        append(batch) {
          calls++;
          const result = inner.append(batch) as LedgerAppendResult;
          if (mode === 'sync') return result;
          if (mode === 'async') return Promise.resolve(result);
          return 'stored' in result ? { stored: [...result.stored].reverse() } : result;
        },
      };
      const ledger = createLedger(adapter);
      const batch = [1, 2, 3].map((index) => ({
        ...event,
        event_id: `e-${index}`,
        summary: `s${index}`,
      }));
      const receipts = await ledger.appendBatch(batch);
      expect(receipts.map((receipt) => [receipt.event.event_id, receipt.duplicate])).toEqual([
        ['e-1', false],
        ['e-2', false],
        ['e-3', false],
      ]);
      expect(calls).toBe(1);
      // A retry of the same events returns the originals, marked as duplicates.
      const retried = await ledger.appendBatch(batch);
      expect(retried.map((receipt) => [receipt.event.summary, receipt.duplicate])).toEqual([
        ['s1', true],
        ['s2', true],
        ['s3', true],
      ]);
      const conflict = await rejection(
        ledger.append({ ...batch[0], summary: 'other' } as typeof event),
      );
      expect(conflict.code).toBe('CONFLICT');
    }
  });
});

describe('LedgerAdapter.gc counts', () => {
  it('adds up [type, count] pairs per type (one per scope) and ignores unknown types', async () => {
    const adapter = createMemoryLedgerAdapter();
    const plans: unknown[] = [];
    const ledger = createLedger({
      ...adapter,
      gc(plan) {
        plans.push(plan);
        return [
          ['ops.alert', 2],
          ['tool.call', 1],
          ['ops.alert', 3],
          ['not-a-type', 7],
          ['toString', 4],
        ];
      },
    });
    const receipt = await ledger.gc({ global: true, dryRun: true, nowMs: 10 ** 13 });
    expect(plans).toHaveLength(1);
    expect(receipt.deleted_by_type['ops.alert']).toBe(5);
    expect(receipt.deleted_by_type['tool.call']).toBe(1);
    expect(receipt.deleted_total).toBe(6);
    expect(Object.keys(receipt.deleted_by_type)).not.toContain('not-a-type');
  });

  it('still takes a record of counts', async () => {
    const adapter = createMemoryLedgerAdapter();
    const ledger = createLedger({ ...adapter, gc: () => ({ 'ops.alert': 2 }) });
    const receipt = await ledger.gc({ global: true, dryRun: true, nowMs: 10 ** 13 });
    expect(receipt.deleted_by_type['ops.alert']).toBe(2);
    expect(receipt.deleted_total).toBe(2);
  });
});

describe('Ledger.resolveEventId without eventIdsWithPrefix', () => {
  it('pages through the scope instead, with the same answers and the same scope wall', async () => {
    const { eventIdsWithPrefix: _unused, ...adapter } = createMemoryLedgerAdapter();
    const ledger = createLedger(adapter as LedgerAdapter);
    const event = (scope: string, event_id: string, ts_ms: number) => ({
      scope,
      event_id,
      session_id: 's',
      agent_id: 'a',
      type: 'conversation.user' as const,
      summary: 'x',
      ts_ms,
    });
    // More than one page of the adapter (500 rows) before the events that match.
    await ledger.appendBatch(
      Array.from({ length: 600 }, (_, index) => event('a', `filler-${index}`, index + 1)),
    );
    await ledger.appendBatch([
      event('a', 'target-one', 1_000),
      event('a', 'target-two', 1_001),
      event('b', 'target-three', 1_002),
    ]);
    expect(await ledger.resolveEventId('target-o', { scope: 'a' })).toBe('target-one');
    const ambiguous = await ledger.resolveEventId('target', { scope: 'a' }).catch((error) => error);
    expect(EpisodicError.hasCode(ambiguous, 'VALIDATION_ERROR')).toBe(true);
    expect(ambiguous.details).toMatchObject({ count: 2, candidates: ['target-one', 'target-two'] });
    const walled = await ledger.resolveEventId('target-th', { scope: 'a' }).catch((error) => error);
    expect(EpisodicError.hasCode(walled, 'NOT_FOUND')).toBe(true);
    expect(await ledger.resolveEventId('target-th', { global: true })).toBe('target-three');
  });
});

/** The memory adapter answering as a SQL backend does: rows as selected, numbers as text. */
function sqlShaped(inner: LedgerAdapter): LedgerAdapter {
  const asSql = (rows: readonly (LedgerRow | SqlLedgerRow)[]): SqlLedgerRow[] =>
    rows.map((row) => {
      const { sequence, redacted, position, ts_ms, ...columns } = row as LedgerRow;
      return {
        ...columns,
        id: String(sequence),
        ts_ms: String(ts_ms),
        redacted: redacted ? 1 : 0,
        position: String(position),
      };
    });
  return {
    ...inner,
    async append(batch) {
      const result = await inner.append(batch);
      if (!('stored' in result)) return result;
      // A bigint column comes back as text, and RETURNING need not keep the batch's order.
      const stored = result.stored.map((row) => ({
        event_id: row.event_id,
        position: String(row.position),
        sequence: String(row.sequence),
      }));
      return { stored: stored.reverse() };
    },
    async getEvents(eventIds) {
      return asSql(await inner.getEvents(eventIds));
    },
    async query(plan) {
      return asSql(await inner.query(plan));
    },
  };
}

describe('LedgerAdapter rows and answers', () => {
  it('decodes the rows a SQL backend returns as selected, in reads, cursors and retries', async () => {
    const ledger = createLedger(sqlShaped(createMemoryLedgerAdapter()));
    const batch = [1, 2, 3].map((index) => ({
      ...event,
      event_id: `e-${index}`,
      ts_ms: index === 3 ? 20 : 10,
      payload: { index },
    }));
    const receipts = await ledger.appendBatch(batch);
    expect(receipts.map((receipt) => receipt.event.position)).toEqual([1, 2, 3]);
    await ledger.redact({ scope: 'a', eventId: 'e-2' });
    const first = await ledger.query({ scope: 'a', limit: 2, includePayload: true });
    expect(first.events.map((stored) => [stored.event_id, stored.redacted])).toEqual([
      ['e-1', false],
      ['e-2', true],
    ]);
    expect(first.events[0]).toMatchObject({ ts_ms: 10, position: 1, payload: { index: 1 } });
    expect(first.next_after_id).toBe('e-2');
    // The cursor's place in the (ts_ms, sequence) order comes from the row's id.
    const next = await ledger.query({ scope: 'a', limit: 2, afterId: 'e-2' });
    expect(next.events.map((stored) => [stored.event_id, stored.ts_ms])).toEqual([['e-3', 20]]);
    // A retry reads the stored rows to compare them: decoded too.
    const retried = await ledger.append(batch[0] as (typeof batch)[number]);
    expect(retried.duplicate).toBe(true);
    expect(retried.event).toMatchObject({ event_id: 'e-1', position: 1, redacted: false });
  });

  it("turns a conflict answer into CONFLICT naming the session's last position", async () => {
    const ledger = createLedger({
      ...createMemoryLedgerAdapter(),
      append: () => ({ conflict: { lastPosition: 7 } }),
    });
    const error = await rejection(ledger.append(event, { expectedPosition: 3 }));
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain('expected its last position to be 3, found 7');
    expect(error.details).toEqual({
      scope: 'a',
      sessionId: 's',
      expectedPosition: 3,
      currentPosition: 7,
    });
  });

  it('retries a duplicate answer that names no id, then reports the batch as CONFLICT', async () => {
    let calls = 0;
    const inner = createMemoryLedgerAdapter();
    const vanishing = (succeedAfter: number): LedgerAdapter => ({
      ...inner,
      append(batch) {
        calls++;
        return calls > succeedAfter ? inner.append(batch) : { duplicates: [] };
      },
    });
    const batch = [
      { ...event, event_id: 'v-1' },
      { ...event, event_id: 'v-2' },
    ];
    const error = await rejection(createLedger(vanishing(Infinity)).appendBatch(batch));
    expect(error.code).toBe('CONFLICT');
    expect(error.details).toEqual({ duplicateEventIds: ['v-1', 'v-2'] });
    expect(calls).toBe(4);
    calls = 0;
    const receipts = await createLedger(vanishing(1)).appendBatch(batch);
    expect(receipts.map((receipt) => [receipt.event.event_id, receipt.duplicate])).toEqual([
      ['v-1', false],
      ['v-2', false],
    ]);
    expect(calls).toBe(2);
  });

  it('asks eventIdsWithPrefix for the id range of the prefix', async () => {
    const inner = createMemoryLedgerAdapter();
    const ranges: unknown[] = [];
    const ledger = createLedger({
      ...inner,
      eventIdsWithPrefix(scope, range, limit) {
        ranges.push(range);
        return inner.eventIdsWithPrefix?.(scope, range, limit) ?? [];
      },
    });
    await ledger.append({ ...event, event_id: 'abcdef-1' });
    expect(await ledger.resolveEventId('abcdef', { scope: 'a' })).toBe('abcdef-1');
    expect(ranges).toEqual([{ from: 'abcdef', to: 'abcdef~' }]);
  });
});

describe('LedgerAdapter.append outside the contract', () => {
  it('is UNSUPPORTED when it answers with rows (the older contract), not a TypeError', async () => {
    const inner = createMemoryLedgerAdapter();
    const older = {
      ...inner,
      append: () => [] as unknown as LedgerAppendResult,
    } satisfies LedgerAdapter;
    const error = await rejection(createLedger(older).append(event));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toContain('answered append with an array');
    expect(error.details).toEqual({ store: 'memory', answer: 'an array' });
  });
});
