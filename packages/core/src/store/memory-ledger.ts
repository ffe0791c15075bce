import {
  type ChainMember,
  type ChainState,
  type ChainWriter,
  type ChainWriterOptions,
  chainStateHead,
  createChainWriter,
  type ErasureEntry,
  erasureAfter,
  ledgerChainCanonicalJson,
  newChainState,
  rowCommitment,
} from '../chain/index.js';
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

/** Options of the memory ledger adapter. */
export interface MemoryLedgerOptions {
  /**
   * Chain every appended event (docs/design/verify.md; the `chain` capability) with this SHA-256
   * and salt source: a salted commitment per event, segment heads per session, and an erasure log
   * that redaction and GC write to. Absent: no chain, as before.
   */
  readonly chain?: ChainWriterOptions;
}

/** The memory ledger adapter, plus a hook tests use to change stored rows underneath it. */
export interface MemoryLedgerAdapter extends LedgerAdapter {
  /**
   * Changes a stored row's columns underneath the ledger (`null`: deletes the row), as another
   * program editing the file would; its chain member and the session's head stay. For tests of
   * the chain; the event must exist.
   */
  tamperRow(eventId: string, patch: Partial<LedgerRow> | null): void;
}

/**
 * The in-memory reference ledger adapter: rows kept frozen in `(ts_ms, sequence)` order, with
 * the same semantics as the SQLite store (all-or-nothing batches, duplicate ids, positions). With
 * `chain`, it stamps each event with core's chain writer and records redactions and collections
 * in its erasure log, the reference the conformance suite's `ledger/chain` spec checks stores by.
 */
export function createMemoryLedgerAdapter(options: MemoryLedgerOptions = {}): MemoryLedgerAdapter {
  const rows: LedgerRow[] = [];
  const byId = new Map<string, LedgerRow>();
  const heads = new Map<string, number>();
  let sequence = 0;
  const writer: ChainWriter | undefined =
    options.chain === undefined ? undefined : createChainWriter(options.chain);
  const sha256 = options.chain?.sha256;
  /** Each session's chain state, and each chained event's member. */
  const chains = new Map<string, ChainState>();
  const members = new Map<string, ChainMember>();
  const erasures: ErasureEntry[] = [];
  const digestOf = (text: string) => erasureAfter(sha256 as NonNullable<typeof sha256>, text);

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
      ...(writer === undefined ? {} : { chain: true }),
    },
    append({ rows: newRows, expectedPosition }) {
      const duplicates = newRows.filter((row) => byId.has(row.event_id)).map((row) => row.event_id);
      if (duplicates.length > 0) return { duplicates };
      const first = newRows[0];
      if (first !== undefined && expectedPosition !== undefined) {
        const lastPosition = heads.get(sessionKey(first.scope, first.session_id)) ?? 0;
        if (lastPosition !== expectedPosition) return { conflict: { lastPosition } };
      }
      // Stamp first (from each session's head alone): a refused stamp writes nothing.
      const stamps: ChainMember[] = [];
      if (writer !== undefined) {
        const states = new Map<string, ChainState>();
        for (const row of newRows) {
          const key = sessionKey(row.scope, row.session_id);
          const state = states.get(key) ?? chains.get(key) ?? newChainState(heads.get(key) ?? 0);
          const stamp = writer.stampRow(state, ledgerChainCanonicalJson(row));
          states.set(key, stamp.state);
          stamps.push(stamp.chain);
        }
        for (const [key, state] of states) chains.set(key, state);
      }
      // Everything is checked above, so the writes below cannot fail half-way.
      const stored = newRows.map((row: NewLedgerRow, index) => {
        const key = sessionKey(row.scope, row.session_id);
        const position = (heads.get(key) ?? 0) + 1;
        heads.set(key, position);
        const stamp = stamps[index];
        if (stamp !== undefined) members.set(row.event_id, stamp);
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
      // One erasure entry per stream: the rows' n, c and the hash of what they are now.
      const byStream = new Map<string, Extract<ErasureEntry, { op: 'redact' }>>();
      for (const row of targets) {
        const redacted: LedgerRow = Object.freeze({
          ...row,
          summary: plan.summary,
          payload_json: plan.payloadJson,
          refs_json: null,
          metadata_json: null,
          redacted: true,
        });
        const member = members.get(row.event_id);
        const key = chains.get(sessionKey(row.scope, row.session_id))?.key;
        if (writer !== undefined && member !== undefined && key !== undefined && key !== null) {
          let entry = byStream.get(key);
          if (entry === undefined) {
            entry = {
              op: 'redact',
              at: plan.at ?? new Date().toISOString(),
              by: { api: 'Ledger.redact' },
              id: writer.randomId(),
              stream: key,
              entries: [],
            };
            byStream.set(key, entry);
          }
          // Checked first: an entry that no longer verifies is redacted anyway, and said so.
          const before = ledgerChainCanonicalJson(row);
          if (
            member.s === undefined ||
            rowCommitment(sha256 as NonNullable<typeof sha256>, member.s, member.n, before) !==
              member.c
          ) {
            if (member.s !== undefined) entry.was = 'altered';
          }
          entry.entries.push({
            n: member.n,
            c: member.c,
            after: digestOf(ledgerChainCanonicalJson(redacted)),
          });
          const { s: _salt, r: _erasure, ...kept } = member;
          members.set(row.event_id, { ...kept, r: entry.id });
        }
        replace(redacted);
      }
      erasures.push(...byStream.values());
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
        const collected = new Map<string, Array<{ n: number; c: string }>>();
        for (const row of rows) {
          if (!expired(row)) continue;
          byId.delete(row.event_id);
          const member = members.get(row.event_id);
          members.delete(row.event_id);
          if (member === undefined) continue;
          const key = sessionKey(row.scope, row.session_id);
          let list = collected.get(key);
          if (list === undefined) {
            list = [];
            collected.set(key, list);
          }
          list.push({ n: member.n, c: member.c });
        }
        rows.length = 0;
        rows.push(...kept);
        // A session GC emptied is forgotten (its id kept nowhere): its next event is position 1.
        const live = new Set(kept.map((row) => sessionKey(row.scope, row.session_id)));
        const at = plan.at ?? new Date().toISOString();
        for (const [key, list] of collected) {
          const state = chains.get(key);
          if (writer === undefined || state === undefined || state.key === null) continue;
          const base = {
            op: 'collect',
            at,
            by: { api: 'Ledger.gc' },
            id: writer.randomId(),
            stream: state.key,
            reason: 'retention',
          } as const;
          if (live.has(key)) erasures.push({ ...base, entries: list.sort((a, b) => a.n - b.n) });
          else {
            // The whole stream: its last n and head(n), named by its key only.
            const h = chainStateHead(sha256 as NonNullable<typeof sha256>, state) as string;
            erasures.push({ ...base, through: { n: state.n, h } });
          }
        }
        for (const key of heads.keys())
          if (!live.has(key)) {
            heads.delete(key);
            chains.delete(key);
          }
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
    ...(writer === undefined
      ? {}
      : {
          chainStreams(scope: string | null) {
            const seen = new Map<string, { scope: string; session_id: string }>();
            for (const row of rows)
              if (scope === null || row.scope === scope)
                seen.set(sessionKey(row.scope, row.session_id), {
                  scope: row.scope,
                  session_id: row.session_id,
                });
            // A chained session whose rows are all gone still has its head: listed, so its cut
            // tail is found.
            for (const key of chains.keys()) {
              const [rowScope, sessionId] = key.split('\u0000') as [string, string];
              if ((scope === null || rowScope === scope) && !seen.has(key))
                seen.set(key, { scope: rowScope, session_id: sessionId });
            }
            return [...seen.values()];
          },
          chainRows(scope: string, sessionId: string) {
            const stream = rows
              .filter((row) => row.scope === scope && row.session_id === sessionId)
              .sort((left, right) => left.position - right.position);
            const state = chains.get(sessionKey(scope, sessionId));
            const head =
              state === undefined || state.key === null
                ? undefined
                : chainStateHead(sha256 as NonNullable<typeof sha256>, state);
            return {
              key: state?.key ?? null,
              ...(state === undefined || head === undefined
                ? {}
                : { head: { n: state.n, h: head } }),
              rows: stream.map((row) => ({
                row,
                chain: members.get(row.event_id) ?? null,
                where: { table: 'memory', rowid: row.sequence },
              })),
            };
          },
          erasures() {
            return erasures.map((entry) => structuredClone(entry));
          },
        }),
    tamperRow(eventId: string, patch: Partial<LedgerRow> | null) {
      const row = byId.get(eventId);
      if (row === undefined) throw new Error(`tamperRow: no event ${eventId}`);
      if (patch === null) {
        byId.delete(eventId);
        rows.splice(rows.indexOf(row), 1);
        return;
      }
      replace(Object.freeze({ ...row, ...patch }));
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

/**
 * An in-memory `Ledger` (for tests, examples and short-lived agents). `chain` (a SHA-256 and a
 * salt source) turns on chaining, as `createMemoryLedgerAdapter` describes.
 */
export function createMemoryLedger(options: LedgerOptions & MemoryLedgerOptions = {}): Ledger {
  const { chain, ...ledgerOptions } = options;
  return createLedger(
    createMemoryLedgerAdapter(chain === undefined ? {} : { chain }),
    ledgerOptions,
  );
}
