import type { LedgerAdapter, LedgerAppendResult, LedgerEventType, LedgerRow } from '../core-kit.js';
import type { KeyValueStore, KvEntry } from '../kv/key-value-store.js';
import { transact } from '../kv/transact.js';
import {
  compareRows,
  EVENT_PREFIX,
  eventKey,
  headKey,
  readAllRows,
  readClock,
  tickClock,
} from './ledger-keys.js';
import { matchesQueryPlan } from './match-plan.js';

const rowWrite = (row: LedgerRow): KvEntry => ({
  key: eventKey(row.event_id),
  value: JSON.stringify(row),
});

/** A ledger adapter over a key-value store (see `ledger-keys.ts` for what it stores). */
export function createKvLedgerAdapter(kv: KeyValueStore): LedgerAdapter {
  return {
    specificationVersion: 'v1',
    name: 'kv',
    capabilities: {
      atomicBatch: true,
      crossProcessConflicts: false,
      secureDelete: false,
      persistent: false,
    },
    append: ({ rows: newRows, expectedPosition }) =>
      transact<LedgerAppendResult>(kv, async () => {
        const { value, clock } = await readClock(kv);
        const duplicates: string[] = [];
        for (const row of newRows) {
          if ((await kv.get(eventKey(row.event_id))) !== undefined) duplicates.push(row.event_id);
        }
        // An answer that stores nothing checks nothing: core turns it into its CONFLICT.
        if (duplicates.length > 0) return { checks: [], writes: [], result: { duplicates } };
        const heads = new Map<string, number>();
        const headOf = async (key: string) => heads.get(key) ?? Number((await kv.get(key)) ?? '0');
        const first = newRows[0];
        if (first !== undefined && expectedPosition !== undefined) {
          const lastPosition = await headOf(headKey(first.scope, first.session_id));
          if (lastPosition !== expectedPosition) {
            return { checks: [], writes: [], result: { conflict: { lastPosition } } };
          }
        }
        let sequence = clock.sequence;
        const stored: LedgerRow[] = [];
        for (const row of newRows) {
          const key = headKey(row.scope, row.session_id);
          const position = (await headOf(key)) + 1;
          heads.set(key, position);
          sequence += 1;
          stored.push({ ...row, position, sequence });
        }
        const tick = tickClock(value, { ...clock, sequence });
        const headWrites = [...heads].map(([key, head]) => ({ key, value: String(head) }));
        return {
          checks: [tick.check],
          writes: [...stored.map(rowWrite), ...headWrites, tick.write],
          result: { stored },
        };
      }),
    async getEvents(eventIds) {
      const rows: LedgerRow[] = [];
      for (const eventId of eventIds) {
        const value = await kv.get(eventKey(eventId));
        if (value !== undefined) rows.push(JSON.parse(value) as LedgerRow);
      }
      return rows;
    },
    async query(plan) {
      const rows = (await readAllRows(kv)).filter((row) => matchesQueryPlan(row, plan));
      return rows
        .sort(compareRows)
        .slice(0, plan.limit)
        .map((row) => (plan.includePayload ? row : { ...row, payload_json: undefined }));
    },
    redact: (plan) =>
      transact(kv, async () => {
        const { value, clock } = await readClock(kv);
        const targets = (await readAllRows(kv)).filter(
          (row) =>
            (plan.scope === null || row.scope === plan.scope) &&
            (plan.eventId === undefined || row.event_id === plan.eventId) &&
            (plan.sessionId === undefined || row.session_id === plan.sessionId),
        );
        const redacted = targets.map((row) => ({
          ...row,
          summary: plan.summary,
          payload_json: plan.payloadJson,
          refs_json: null,
          metadata_json: null,
          redacted: true,
        }));
        const tick = tickClock(value, clock);
        return {
          checks: [tick.check],
          writes: [...redacted.map(rowWrite), tick.write],
          result: targets.length,
        };
      }),
    gc: (plan) =>
      transact(kv, async () => {
        const { value, clock } = await readClock(kv);
        const rows = await readAllRows(kv);
        const expired = (row: LedgerRow) => {
          if (plan.scope !== null && row.scope !== plan.scope) return false;
          const cutoff = plan.cutoffs[row.type as LedgerEventType];
          return cutoff !== undefined && row.ts_ms < cutoff;
        };
        const counts: Partial<Record<LedgerEventType, number>> = {};
        const deleted = rows.filter(expired);
        for (const row of deleted) {
          const type = row.type as LedgerEventType;
          counts[type] = (counts[type] ?? 0) + 1;
        }
        if (plan.dryRun) return { checks: [], writes: [], result: counts };
        // A session GC empties is forgotten: its next event is position 1 again.
        const live = new Set(
          rows.filter((row) => !expired(row)).map((row) => headKey(row.scope, row.session_id)),
        );
        const emptied = new Set(deleted.map((row) => headKey(row.scope, row.session_id)));
        const tick = tickClock(value, clock);
        const writes: KvEntry[] = [
          ...deleted.map((row) => ({ key: eventKey(row.event_id), value: undefined })),
          ...[...emptied].filter((key) => !live.has(key)).map((key) => ({ key, value: undefined })),
          tick.write,
        ];
        return { checks: [tick.check], writes, result: counts };
      }),
    async eventIdsWithPrefix(scope, { from: prefix }, limit) {
      const eventIds: string[] = [];
      // The range's start is the prefix: the keys that start with it are the range.
      for (const key of await kv.keys(eventKey(prefix))) {
        if (eventIds.length >= limit) break;
        const value = await kv.get(key);
        if (value === undefined) continue;
        const row = JSON.parse(value) as LedgerRow;
        if (scope === null || row.scope === scope) eventIds.push(key.slice(EVENT_PREFIX.length));
      }
      return eventIds;
    },
  };
}
