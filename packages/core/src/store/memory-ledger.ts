import type { LedgerRow, NewLedgerRow } from '../ledger/ledger-row.js';
import type { LedgerEventType } from '../schema/ledger-event.js';
import { rankDocuments, type SearchDocument, searchDocument } from '../search/search-rank.js';
import { searchTextOfLedgerRow } from '../search/search-text.js';
import {
  createLedger,
  type Ledger,
  type LedgerAdapter,
  type LedgerOptions,
  type LedgerQueryPlan,
  type LedgerSearchPlan,
  type LedgerSearchRow,
} from './ledger-store.js';

function compareOrder(left: LedgerRow, right: LedgerRow): number {
  return left.ts_ms - right.ts_ms || left.sequence - right.sequence;
}

function sessionKey(scope: string, sessionId: string): string {
  return `${scope}\u0000${sessionId}`;
}

function matches(row: LedgerRow, plan: LedgerQueryPlan): boolean {
  if (plan.scope !== null && row.scope !== plan.scope) return false;
  if (plan.sessionId !== undefined && row.session_id !== plan.sessionId) return false;
  if (plan.fromTsMs !== undefined && row.ts_ms < plan.fromTsMs) return false;
  if (plan.toTsMs !== undefined && row.ts_ms > plan.toTsMs) return false;
  if (plan.types !== undefined && !plan.types.includes(row.type as LedgerEventType)) return false;
  const after = plan.after;
  if (
    after !== undefined &&
    (row.ts_ms < after.tsMs || (row.ts_ms === after.tsMs && row.sequence <= after.sequence))
  ) {
    return false;
  }
  return true;
}

function searchable(row: LedgerRow, plan: LedgerSearchPlan): boolean {
  if (plan.scope !== null && row.scope !== plan.scope) return false;
  if (plan.sessionId !== undefined && row.session_id !== plan.sessionId) return false;
  if (plan.agentId !== undefined && row.agent_id !== plan.agentId) return false;
  if (plan.fromTsMs !== undefined && row.ts_ms < plan.fromTsMs) return false;
  if (plan.toTsMs !== undefined && row.ts_ms > plan.toTsMs) return false;
  if (plan.types !== undefined && !plan.types.includes(row.type as LedgerEventType)) return false;
  return true;
}

/**
 * The in-memory reference ledger adapter: rows kept frozen in `(ts_ms, sequence)` order, with
 * the same semantics as the SQLite store (all-or-nothing batches, duplicate ids, positions).
 */
export function createMemoryLedgerAdapter(): LedgerAdapter {
  const rows: LedgerRow[] = [];
  const byId = new Map<string, LedgerRow>();
  const heads = new Map<string, number>();
  let sequence = 0;

  const insertSorted = (row: LedgerRow) => {
    let low = 0;
    let high = rows.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareOrder(rows[middle] as LedgerRow, row) <= 0) low = middle + 1;
      else high = middle;
    }
    rows.splice(low, 0, row);
  };
  // Each row's search text and tokens, made once per stored row (a redaction stores a new row).
  const documents = new WeakMap<LedgerRow, SearchDocument>();
  const documentOf = (row: LedgerRow) => {
    let document = documents.get(row);
    if (document === undefined) {
      document = searchDocument(searchTextOfLedgerRow(row));
      documents.set(row, document);
    }
    return document;
  };
  const replace = (row: LedgerRow) => {
    const index = rows.indexOf(byId.get(row.event_id) as LedgerRow);
    rows[index] = row;
    byId.set(row.event_id, row);
  };

  return {
    specificationVersion: 'v1',
    name: 'memory',
    capabilities: {
      atomicBatch: true,
      crossProcessConflicts: false,
      secureDelete: false,
      persistent: false,
      search: true,
    },
    append({ rows: newRows, expectedPosition }) {
      const duplicates = newRows.filter((row) => byId.has(row.event_id)).map((row) => row.event_id);
      if (duplicates.length > 0) return { duplicates };
      const first = newRows[0];
      if (first !== undefined && expectedPosition !== undefined) {
        const lastPosition = heads.get(sessionKey(first.scope, first.session_id)) ?? 0;
        if (lastPosition !== expectedPosition) return { conflict: { lastPosition } };
      }
      // Everything is checked above, so the writes below cannot fail half-way.
      const stored = newRows.map((row: NewLedgerRow) => {
        const key = sessionKey(row.scope, row.session_id);
        const position = (heads.get(key) ?? 0) + 1;
        heads.set(key, position);
        sequence += 1;
        const stored: LedgerRow = Object.freeze({ ...row, position, sequence });
        byId.set(stored.event_id, stored);
        insertSorted(stored);
        return stored;
      });
      return { stored };
    },
    getEvents(eventIds) {
      return eventIds.flatMap((eventId) => {
        const row = byId.get(eventId);
        return row === undefined ? [] : [row];
      });
    },
    query(plan) {
      const found: LedgerRow[] = [];
      for (const row of rows) {
        if (!matches(row, plan)) continue;
        found.push(plan.includePayload ? row : { ...row, payload_json: undefined });
        if (found.length >= plan.limit) break;
      }
      return found;
    },
    redact(plan) {
      const targets = rows.filter(
        (row) =>
          (plan.scope === null || row.scope === plan.scope) &&
          (plan.eventId === undefined || row.event_id === plan.eventId) &&
          (plan.sessionId === undefined || row.session_id === plan.sessionId),
      );
      for (const row of targets) {
        replace(
          Object.freeze({
            ...row,
            summary: plan.summary,
            payload_json: plan.payloadJson,
            refs_json: null,
            metadata_json: null,
            redacted: true,
          }),
        );
      }
      return targets.length;
    },
    gc(plan) {
      const counts: Partial<Record<LedgerEventType, number>> = {};
      const expired = (row: LedgerRow) => {
        if (plan.scope !== null && row.scope !== plan.scope) return false;
        const cutoff = plan.cutoffs[row.type as LedgerEventType];
        return cutoff !== undefined && row.ts_ms < cutoff;
      };
      for (const row of rows) {
        if (!expired(row)) continue;
        const type = row.type as LedgerEventType;
        counts[type] = (counts[type] ?? 0) + 1;
      }
      if (!plan.dryRun) {
        const kept = rows.filter((row) => !expired(row));
        for (const row of rows) if (expired(row)) byId.delete(row.event_id);
        rows.length = 0;
        rows.push(...kept);
        // A session GC emptied is forgotten (its id kept nowhere): its next event is position 1.
        const live = new Set(kept.map((row) => sessionKey(row.scope, row.session_id)));
        for (const key of heads.keys()) if (!live.has(key)) heads.delete(key);
      }
      return counts;
    },
    search(plan: LedgerSearchPlan) {
      // BM25 over every stored row (as FTS5 keeps its statistics), ranking the rows the plan's
      // scope and filters select; ties in insertion order.
      const candidates = rows
        .filter((row) => searchable(row, plan))
        .map((row) => [row, documentOf(row)] as const);
      const ranked = rankDocuments(rows.map(documentOf), candidates, plan.match)
        .filter(
          ({ key, score }) =>
            plan.after === undefined ||
            score < plan.after.score ||
            (score === plan.after.score && key.sequence > plan.after.sequence),
        )
        .sort((left, right) => right.score - left.score || left.key.sequence - right.key.sequence);
      return ranked.slice(0, plan.limit).map(
        ({ key: row, score, snippet }): LedgerSearchRow => ({
          event_id: row.event_id,
          sequence: row.sequence,
          session_id: row.session_id,
          agent_id: row.agent_id,
          type: row.type,
          ts_ms: row.ts_ms,
          score,
          snippet,
          metadata_json: row.metadata_json,
        }),
      );
    },
    eventIdsWithPrefix(scope, { from, to }, limit) {
      return [...byId.values()]
        .filter(
          (row) =>
            (scope === null || row.scope === scope) && row.event_id >= from && row.event_id < to,
        )
        .map((row) => row.event_id)
        .sort()
        .slice(0, limit);
    },
  };
}

/** An in-memory `Ledger` (for tests, examples and short-lived agents). */
export function createMemoryLedger(options: LedgerOptions = {}): Ledger {
  return createLedger(createMemoryLedgerAdapter(), options);
}
