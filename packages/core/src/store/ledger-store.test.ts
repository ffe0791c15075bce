import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/episodic-error.js';
import { createLedger, createUlidGenerator, type LedgerAdapter } from './ledger-store.js';
import { createMemoryLedger, createMemoryLedgerAdapter } from './memory-ledger.js';

async function rejection(promise: Promise<unknown>): Promise<EpisodicError> {
  try {
    await promise;
  } catch (error) {
    if (EpisodicError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

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
        append(rows, expectedPosition) {
          calls++;
          const stored = inner.append(rows, expectedPosition) as ReturnType<typeof inner.append>;
          if (mode === 'sync') return stored;
          if (mode === 'async') return Promise.resolve(stored);
          return [...(stored as Awaited<typeof stored>)].reverse();
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
