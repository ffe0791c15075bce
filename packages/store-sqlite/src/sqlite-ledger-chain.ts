// The ledger's chain in SQLite (docs/design/verify.md sections 2.3 and 3; schema 15): stamping in
// the append's IMMEDIATE transaction from the session's head row alone, the erasure log that
// redaction and GC write in their own transactions, and the reads `verify` folds over. The
// formulas and the canonical bytes are core's (`createChainWriter`, `ledgerChainCanonicalJson`):
// this module only moves their results in and out of columns.

import * as nodeCrypto from 'node:crypto';
import { createHash, randomFillSync } from 'node:crypto';
import {
  type ChainMember,
  type ChainState,
  type ChainWriterOptions,
  chainStateHead,
  createChainWriter,
  type ErasureEntry,
  erasureAfter,
  type LedgerChainRow,
  type LedgerChainRows,
  type LedgerChainStream,
  ledgerChainCanonicalJson,
  type NewLedgerRow,
  newChainState,
  rowCommitment,
  type SqlLedgerRow,
} from '@episodic/core/adapter';
import type Database from 'better-sqlite3';

/** A SHA-256 and a salt source over node:crypto: `crypto.hash` where Node has it, salts drawn 4 KB at a time. */
export function nodeChainCrypto(): ChainWriterOptions {
  const hash = (
    nodeCrypto as unknown as {
      hash?: (algorithm: string, data: Uint8Array, encoding: 'buffer') => Buffer;
    }
  ).hash;
  const pool = Buffer.alloc(4096);
  let next = pool.length;
  return {
    sha256:
      hash === undefined
        ? (bytes) => createHash('sha256').update(bytes).digest()
        : (bytes) => hash('sha256', bytes, 'buffer'),
    randomSalt: () => {
      if (next === pool.length) {
        randomFillSync(pool);
        next = 0;
      }
      next += 16;
      return pool.subarray(next - 16, next);
    },
  };
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const blob = (text: string) => Buffer.from(text, 'base64url');
const ZERO_HEAD = Buffer.alloc(32);

/**
 * `chain_tail` on a session's head row: where the session's chain stands, so that an append reads
 * nothing but that row. 8 bytes: the last `n` the chain counted (a row another program inserted
 * since is above it); 8 bytes: the `n` of the stream's first chained row; 32 bytes: the last
 * segment head (zeros while the first segment is open); then the open segment's commitments, 32
 * bytes each (at most 63).
 */
interface Tail {
  readonly state: ChainState;
  readonly first: number;
  /** `state.open` as stored: the commitments' 32 bytes each, kept so an append adds one, not 63. */
  readonly openBytes: Buffer;
}

/** The tail after `state`, from the tail before it (one commitment added, or a segment closed). */
function nextTail(previous: Tail, state: ChainState, first: number): Tail {
  const { open } = state;
  let openBytes: Buffer;
  if (open.length === 0) openBytes = Buffer.alloc(0);
  else if (open.length === previous.state.open.length + 1)
    openBytes = Buffer.concat([previous.openBytes, blob(open[open.length - 1] as string)]);
  else openBytes = Buffer.concat(open.map(blob));
  return { state, first, openBytes };
}

function encodeTail({ state, first, openBytes }: Tail): Buffer {
  const buffer = Buffer.alloc(48 + openBytes.length);
  buffer.writeBigUInt64BE(BigInt(state.n), 0);
  buffer.writeBigUInt64BE(BigInt(first), 8);
  if (state.head !== null) blob(state.head).copy(buffer, 16);
  openBytes.copy(buffer, 48);
  return buffer;
}

function decodeTail(buffer: Buffer, key: Buffer): Tail {
  const head = buffer.subarray(16, 48);
  const open: string[] = [];
  for (let offset = 48; offset + 32 <= buffer.length; offset += 32)
    open.push(b64(buffer.subarray(offset, offset + 32)));
  return {
    state: {
      n: Number(buffer.readBigUInt64BE(0)),
      key: b64(key),
      head: head.equals(ZERO_HEAD) ? null : b64(head),
      open,
    },
    first: Number(buffer.readBigUInt64BE(8)),
    openBytes: Buffer.from(buffer.subarray(48, 48 + 32 * open.length)),
  };
}

interface HeadRow {
  position: number;
  chain_key: Buffer | null;
  chain_tail: Buffer | null;
}

const ROW_COLUMNS =
  'id, event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at, metadata_json, position';

type ChainedSqlRow = SqlLedgerRow & {
  id: number;
  position: number;
  chain_salt: Buffer | null;
  chain_c: Buffer | null;
  chain_redaction: Buffer | null;
};

/** What the ledger adapter calls inside its transactions when chaining is on. */
export interface SqliteLedgerChain {
  /** Positions and chain columns for a batch (in batch order), heads updated: call in the append transaction. */
  stamp(rows: readonly NewLedgerRow[]): Array<{ position: number; salt: Buffer; c: Buffer }>;
  /** Records the redaction of rows `ids` (before their UPDATE): salts dropped, erasure entries written. */
  redact(
    ids: readonly number[],
    plan: { summary: string; payloadJson: string | null; at?: string | undefined },
  ): void;
  /** The rows a GC batch is about to delete, recorded as `collect` entries; returns their ids. */
  collect(ids: readonly number[], at: string | undefined): void;
  /** Sessions of `scope` that GC emptied: one `collect` entry for each whole chained stream. */
  collectEmptied(scope: string, at: string | undefined): void;
  streams(scope: string | null): LedgerChainStream[];
  rows(scope: string, sessionId: string): LedgerChainRows;
  erasures(): ErasureEntry[];
}

/** The chain of the ledger in `database` (schema 15), stamped with `options`. */
export function createSqliteLedgerChain(
  database: Database.Database,
  options: ChainWriterOptions,
): SqliteLedgerChain {
  const writer = createChainWriter(options);
  const { sha256 } = options;

  const readHead = database.prepare(
    'SELECT position, chain_key, chain_tail FROM episodic_session_heads WHERE scope = ? AND session_id = ?',
  );
  const writeHead = database.prepare(
    `INSERT INTO episodic_session_heads (scope, session_id, position, chain_key, chain_tail) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (scope, session_id) DO UPDATE SET position = excluded.position, chain_key = excluded.chain_key, chain_tail = excluded.chain_tail`,
  );
  const writeSegmentHead = database.prepare(
    'INSERT OR REPLACE INTO episodic_chain_heads (stream_key, n, h) VALUES (?, ?, ?)',
  );
  const foreignRows = database.prepare(
    `SELECT ${ROW_COLUMNS} FROM episodic_events WHERE session_id = ? AND scope = ? AND position > ? AND position <= ? ORDER BY position`,
  );
  const insertErasure = database.prepare(
    'INSERT INTO episodic_erasures (id, entry_json) VALUES (?, ?) RETURNING n',
  );
  const insertErasureEntry = database.prepare(
    'INSERT INTO episodic_erasure_entries (erasure_n, stream_key, n, c, after) VALUES (?, ?, ?, ?, ?)',
  );

  /**
   * The states this process wrote last, by session: when the head row still holds the same tail,
   * its decoded (and trusted) state is reused instead of decoding and validating up to 63
   * commitments again.
   */
  const recent = new Map<string, { tail: Buffer; value: Tail }>();
  const remember = (session: string, tail: Buffer, value: Tail) => {
    if (recent.size >= 1024) recent.clear();
    recent.set(session, { tail, value });
  };

  /** Where a session's chain stands, rows another program inserted since included. */
  const tailOf = (scope: string, sessionId: string, head: HeadRow | undefined): Tail => {
    const position = head?.position ?? 0;
    if (head?.chain_key == null || head.chain_tail == null)
      return { state: newChainState(position), first: 0, openBytes: Buffer.alloc(0) };
    const session = `${scope}\u0000${sessionId}`;
    const cached = recent.get(session);
    let tail: Tail =
      cached?.tail.equals(head.chain_tail) === true
        ? cached.value
        : decodeTail(head.chain_tail, head.chain_key);
    if (tail.state.n < position) {
      // Rows another program (openclaw-mem) inserted since: counted with the empty salt.
      let state = tail.state;
      for (const row of foreignRows.all(sessionId, scope, state.n, position) as Array<
        SqlLedgerRow & { position: number }
      >) {
        while (state.n + 1 < row.position) state = writer.passRow(state, 'null').state;
        const passed = writer.passRow(state, ledgerChainCanonicalJson(row));
        state = passed.state;
        if (passed.h !== undefined) writeSegmentHead.run(head.chain_key, state.n, blob(passed.h));
      }
      // Rows counted by the trigger but gone (deleted by another program): the chain stands
      // where they were, as the verifier sees a gap there.
      while (state.n < position) state = writer.passRow(state, 'null').state;
      tail = nextTail(tail, state, tail.first);
    }
    return tail;
  };

  const stamp: SqliteLedgerChain['stamp'] = (rows) => {
    const sessions = new Map<
      string,
      { scope: string; sessionId: string; tail: Tail; position: number; key: Buffer | null }
    >();
    const stamped: Array<{ position: number; salt: Buffer; c: Buffer }> = [];
    for (const row of rows) {
      const session = `${row.scope}\u0000${row.session_id}`;
      let entry = sessions.get(session);
      if (entry === undefined) {
        const head = readHead.get(row.scope, row.session_id) as HeadRow | undefined;
        entry = {
          scope: row.scope,
          sessionId: row.session_id,
          tail: tailOf(row.scope, row.session_id, head),
          position: head?.position ?? 0,
          key: head?.chain_key ?? null,
        };
        sessions.set(session, entry);
      }
      const { chain, state } = writer.stampRow(entry.tail.state, ledgerChainCanonicalJson(row));
      entry.position++;
      if (chain.k !== undefined) entry.key = blob(chain.k);
      entry.tail = nextTail(entry.tail, state, entry.tail.first === 0 ? chain.n : entry.tail.first);
      if (chain.h !== undefined) writeSegmentHead.run(entry.key, chain.n, blob(chain.h));
      stamped.push({ position: entry.position, salt: blob(chain.s as string), c: blob(chain.c) });
    }
    for (const [session, entry] of sessions) {
      const tail = encodeTail(entry.tail);
      writeHead.run(entry.scope, entry.sessionId, entry.position, entry.key, tail);
      remember(session, tail, entry.tail);
    }
    return stamped;
  };

  /** Writes one erasure entry (its per-row list as blobs) and returns its id. */
  const record = (
    entry: ErasureEntry & { entries?: ReadonlyArray<{ n: number; c: string; after?: string }> },
  ) => {
    const { entries, ...rest } = entry;
    const { n } = insertErasure.get(blob(entry.id), JSON.stringify(rest)) as { n: number };
    for (const item of entries ?? [])
      insertErasureEntry.run(
        n,
        blob(entry.stream),
        item.n,
        blob(item.c),
        item.after === undefined ? null : blob(item.after),
      );
  };

  const keysIn = () => {
    const cache = new Map<string, HeadRow | undefined>();
    return (scope: string, sessionId: string) => {
      const session = `${scope}\u0000${sessionId}`;
      if (!cache.has(session))
        cache.set(session, readHead.get(scope, sessionId) as HeadRow | undefined);
      return cache.get(session);
    };
  };

  const rowsById = (ids: readonly number[], chainedOnly: boolean) =>
    database
      .prepare(
        `SELECT ${ROW_COLUMNS}, chain_salt, chain_c, chain_redaction FROM episodic_events WHERE id IN (SELECT value FROM json_each(?))${chainedOnly ? ' AND chain_c IS NOT NULL' : ''} ORDER BY id`,
      )
      .all(JSON.stringify(ids)) as ChainedSqlRow[];

  const markForeign = database.prepare('UPDATE episodic_events SET chain_c = ? WHERE id = ?');
  const markRedacted = database.prepare(
    'UPDATE episodic_events SET chain_salt = NULL, chain_redaction = ? WHERE id = ?',
  );

  const redact: SqliteLedgerChain['redact'] = (ids, plan) => {
    const headOf = keysIn();
    const byStream = new Map<string, Extract<ErasureEntry, { op: 'redact' }>>();
    const at = plan.at ?? new Date().toISOString();
    for (const row of rowsById(ids, false)) {
      const head = headOf(row.scope, row.session_id);
      const key = head?.chain_key;
      if (key == null || head?.chain_tail == null) continue;
      let c: string;
      if (row.chain_c !== null) c = b64(row.chain_c);
      else {
        // Another program's row the chain already counted (with the empty salt): its commitment
        // is kept on it from now on, so the redaction is Episodic's like any other, and the
        // heads still compute. A row the chain has not counted yet is counted as it is next.
        const { state, first } = decodeTail(head.chain_tail, key);
        if (first === 0 || row.position < first || row.position > state.n) continue;
        c = rowCommitment(sha256, '', row.position, ledgerChainCanonicalJson(row));
        markForeign.run(blob(c), row.id);
      }
      const stream = b64(key);
      let entry = byStream.get(stream);
      if (entry === undefined) {
        entry = {
          op: 'redact',
          at,
          by: { api: 'Ledger.redact' },
          id: writer.randomId(),
          stream,
          entries: [],
        };
        byStream.set(stream, entry);
      }
      // Checked first: a row that no longer verifies is redacted anyway, and the entry says so.
      if (
        row.chain_salt !== null &&
        rowCommitment(sha256, b64(row.chain_salt), row.position, ledgerChainCanonicalJson(row)) !==
          c
      )
        entry.was = 'altered';
      const after = ledgerChainCanonicalJson({
        ...row,
        summary: plan.summary,
        payload_json: plan.payloadJson,
        refs_json: null,
        metadata_json: null,
      });
      entry.entries.push({ n: row.position, c, after: erasureAfter(sha256, after) });
      markRedacted.run(blob(entry.id), row.id);
    }
    for (const entry of byStream.values()) record(entry);
  };

  const collect: SqliteLedgerChain['collect'] = (ids, at) => {
    const headOf = keysIn();
    const byStream = new Map<string, Array<{ n: number; c: string }>>();
    const firsts = new Map<string, number>();
    for (const row of rowsById(ids, false)) {
      const head = headOf(row.scope, row.session_id);
      if (head?.chain_key == null || head.chain_tail == null) continue;
      const { first } = decodeTail(head.chain_tail, head.chain_key);
      firsts.set(b64(head.chain_key), first);
      let c: string;
      if (row.chain_c !== null) c = b64(row.chain_c);
      else {
        // Another program's row inside the chained part counts with the empty salt.
        if (row.position < first) continue;
        c = rowCommitment(sha256, '', row.position, ledgerChainCanonicalJson(row));
      }
      const stream = b64(head.chain_key);
      let list = byStream.get(stream);
      if (list === undefined) {
        list = [];
        byStream.set(stream, list);
      }
      list.push({ n: row.position, c });
    }
    for (const [stream, entries] of byStream)
      record({
        op: 'collect',
        at: at ?? new Date().toISOString(),
        by: { api: 'Ledger.gc' },
        id: writer.randomId(),
        stream,
        reason: 'retention',
        entries: entries.sort((left, right) => left.n - right.n),
        // Where the chain starts: rows collected below it were never chained.
        ...((firsts.get(stream) ?? 0) > 1 ? { first: firsts.get(stream) as number } : {}),
      });
  };

  const emptied = database.prepare(
    'SELECT position, chain_key, chain_tail FROM episodic_session_heads AS h WHERE scope = ? AND chain_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM episodic_events AS e WHERE e.scope = h.scope AND e.session_id = h.session_id)',
  );
  const collectEmptied: SqliteLedgerChain['collectEmptied'] = (scope, at) => {
    for (const head of emptied.all(scope) as HeadRow[]) {
      if (head.chain_key === null || head.chain_tail === null) continue;
      const { state } = decodeTail(head.chain_tail, head.chain_key);
      const h = chainStateHead(sha256, state);
      if (h === undefined) continue;
      record({
        op: 'collect',
        at: at ?? new Date().toISOString(),
        by: { api: 'Ledger.gc' },
        id: writer.randomId(),
        stream: b64(head.chain_key),
        reason: 'retention',
        through: { n: state.n, h },
      });
    }
  };

  const listStreams = database.prepare(
    'SELECT scope, session_id FROM episodic_session_heads WHERE scope = ?',
  );
  const listAllStreams = database.prepare('SELECT scope, session_id FROM episodic_session_heads');
  const streamRows = database.prepare(
    `SELECT ${ROW_COLUMNS}, chain_salt, chain_c, chain_redaction FROM episodic_events WHERE session_id = ? AND scope = ? ORDER BY position, id`,
  );
  const segmentHeads = database.prepare(
    'SELECT n, h FROM episodic_chain_heads WHERE stream_key = ?',
  );

  return {
    stamp,
    redact,
    collect,
    collectEmptied,
    streams(scope) {
      return (
        scope === null ? listAllStreams.all() : listStreams.all(scope)
      ) as LedgerChainStream[];
    },
    rows(scope, sessionId) {
      const head = readHead.get(scope, sessionId) as HeadRow | undefined;
      const key = head?.chain_key == null ? null : b64(head.chain_key);
      const tail =
        head?.chain_key == null || head.chain_tail == null
          ? undefined
          : decodeTail(head.chain_tail, head.chain_key);
      const first = tail?.first ?? 0;
      // Where the writer left the chain (the head row, apart from the rows): a cut tail shows.
      const storedHead = tail === undefined ? undefined : chainStateHead(sha256, tail.state);
      const heads = new Map<number, string>();
      if (head?.chain_key != null)
        for (const { n, h } of segmentHeads.all(head.chain_key) as Array<{ n: number; h: Buffer }>)
          heads.set(n, b64(h));
      const rows: LedgerChainRow[] = (streamRows.all(sessionId, scope) as ChainedSqlRow[]).map(
        (row) => {
          const { chain_salt: salt, chain_c: c, chain_redaction: redaction, ...stored } = row;
          const where = { table: 'episodic_events', rowid: row.id };
          if (c === null) return { row: stored, chain: null, where };
          const h = heads.get(row.position);
          const chain: ChainMember = {
            n: row.position,
            ...(row.position === first && key !== null ? { k: key } : {}),
            ...(salt !== null ? { s: b64(salt) } : {}),
            ...(redaction !== null && salt === null ? { r: b64(redaction) } : {}),
            c: b64(c),
            ...(h === undefined ? {} : { h }),
          };
          return { row: stored, chain, where };
        },
      );
      return {
        key,
        rows,
        ...(tail === undefined || storedHead === undefined
          ? {}
          : { head: { n: tail.state.n, h: storedHead } }),
      };
    },
    erasures() {
      const lists = new Map<number, Array<{ n: number; c: string; after?: string }>>();
      for (const item of database
        .prepare(
          'SELECT erasure_n, n, c, after FROM episodic_erasure_entries ORDER BY erasure_n, n',
        )
        .all() as Array<{ erasure_n: number; n: number; c: Buffer; after: Buffer | null }>) {
        let list = lists.get(item.erasure_n);
        if (list === undefined) {
          list = [];
          lists.set(item.erasure_n, list);
        }
        list.push({
          n: item.n,
          c: b64(item.c),
          ...(item.after === null ? {} : { after: b64(item.after) }),
        });
      }
      return (
        database.prepare('SELECT n, entry_json FROM episodic_erasures ORDER BY n').all() as Array<{
          n: number;
          entry_json: string;
        }>
      ).map(({ n, entry_json }) => {
        const entry = JSON.parse(entry_json) as ErasureEntry;
        const list = lists.get(n);
        return (list === undefined ? entry : { ...entry, entries: list }) as ErasureEntry;
      });
    },
  };
}
