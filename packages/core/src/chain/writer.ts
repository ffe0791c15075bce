// The chain writer (docs/design/verify.md section 4.4): what a store calls to stamp each entry it
// appends. The state a writer needs is `n`, the stream key, the previous segment head and the
// commitments of the open segment (at most 63), never the history.
import * as z from 'zod';
import { EpisodicError } from '../errors/index.js';
import { safeJsonParse } from '../util/json.js';
import { parseInput } from '../validation/parse-input.js';
import { toBase64Url } from './base64url.js';
import {
  CHAIN_SEGMENT,
  digest,
  genesisHead,
  rowCommitment,
  type Sha256,
  segmentHead,
} from './formulas.js';
import { chainLinePrefix, chainLineSuffix } from './line.js';
import {
  type ChainMember,
  chainDigestSchema,
  chainIdSchema,
  chainMemberSchema,
} from './schemas.js';

/** Where a stream's chain stands: what the next stamp continues from. */
export interface ChainState {
  /** The last `n` of the stream (chained or not): the next entry is `n + 1`. `0` for a new stream. */
  readonly n: number;
  /** The stream key; `null` until the stream's first chained entry (which draws and records it). */
  readonly key: string | null;
  /** The head of the last complete segment, `null` while the first chained segment is open (`h_0`). */
  readonly head: string | null;
  /** The commitments of the open segment's chained entries, in order (at most 63). */
  readonly open: readonly string[];
}

const encoder = new TextEncoder();

/**
 * States this module made (validated, or computed from validated ones): a stamp skips checking
 * them again, so an append never re-validates up to 63 open commitments.
 */
const trusted = new WeakSet<ChainState>();
function trust(state: ChainState): ChainState {
  trusted.add(state);
  return state;
}

const chainStateSchema = z
  .strictObject({
    n: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    key: chainIdSchema.nullable(),
    head: chainDigestSchema.nullable(),
    open: z.array(chainDigestSchema).max(CHAIN_SEGMENT - 1),
  })
  .refine((state) => state.key !== null || (state.head === null && state.open.length === 0), {
    message: 'a stream without a key has no head and no open commitments yet',
  })
  .refine((state) => state.open.length <= state.n % CHAIN_SEGMENT, {
    message: 'open holds at most the commitments of the entries after the last multiple of 64',
  });

/**
 * The state of a stream with `n` entries and no chained one yet (`n = 0`: a new stream). Its next
 * entry becomes the first chained one: it draws the stream key, and its segment starts from `h_0`.
 */
export function newChainState(n = 0): ChainState {
  return trust(parseInput(chainStateSchema, { n, key: null, head: null, open: [] }, 'chain state'));
}

/**
 * The state after a stream's stored tail, for a writer that did not keep it in memory (another
 * process appended): `members` are the chain members of the stream's entries from its last entry
 * whose `n` is a multiple of 64 (inclusive; its `h` is the previous head), or from its first
 * chained entry (which carries `k`), to its end, in order. `key` is the stream key when the tail
 * does not hold the first entry.
 */
export function resumeChainState(
  members: readonly unknown[],
  key: string | null = null,
): ChainState {
  const parsed = parseInput(z.array(chainMemberSchema).min(1), members, 'chain tail');
  const first = parsed[0] as ChainMember;
  const last = parsed[parsed.length - 1] as ChainMember;
  const streamKey = first.k ?? key;
  if (streamKey === null)
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message:
        'Invalid chain tail: the first member carries no stream key (k) and none was given. Pass the stream key, or start the tail at the stream first chained entry; nothing was changed.',
      details: { subject: 'chain tail', field: 'key', value: null },
    });
  if (first.k === undefined && first.n % CHAIN_SEGMENT !== 0)
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid chain tail: it starts at entry ${first.n}, neither the stream's first chained entry (with k) nor a segment boundary (n a multiple of 64). Start it at the last boundary; nothing was changed.`,
      details: { subject: 'chain tail', field: '0.n', value: first.n },
    });
  let head: string | null = null;
  let open: string[] = [];
  parsed.forEach((member, index) => {
    const previous = parsed[index - 1];
    if (previous !== undefined && member.n !== previous.n + 1)
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `Invalid chain tail: entry ${index} has n ${member.n} after n ${previous.n}. Pass the consecutive members since the last segment boundary; nothing was changed.`,
        details: { subject: 'chain tail', field: `${index}.n`, value: member.n },
      });
    if (member.n % CHAIN_SEGMENT !== 0) {
      if (index > 0 || first.k !== undefined) open.push(member.c);
      return;
    }
    if (member.h === undefined)
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `Invalid chain tail: entry ${member.n} closes a segment but stores no head (h). Pass the members as stored; nothing was changed.`,
        details: { subject: 'chain tail', field: `${index}.h`, value: member.n },
      });
    head = member.h;
    open = [];
  });
  return trust(
    parseInput(chainStateSchema, { n: last.n, key: streamKey, head, open }, 'chain tail'),
  );
}

/** What stamping one entry gives: its `chain` member and the state after it. */
export interface ChainStamp {
  readonly chain: ChainMember;
  readonly state: ChainState;
}

/** A stamped line: the whole stored line (without newline), its member and the state after it. */
export interface ChainLineStamp extends ChainStamp {
  readonly line: string;
}

/** Options of one stamp. */
export interface ChainStampOptions {
  /** Store the head `h` on this entry although it does not close a segment (a run's `run.end`). */
  readonly head?: boolean;
}

/** Stamps entries with their chain members; see `createChainWriter`. */
export interface ChainWriter {
  /** Stamps one line-stream entry (a run line): `recordJson` is the record's `JSON.stringify` text. */
  stampLine(state: ChainState, recordJson: string, options?: ChainStampOptions): ChainLineStamp;
  /** Stamps one row-stream entry (a session delta, a ledger event): `canonicalJson` per `chainCanonicalJson`. */
  stampRow(state: ChainState, canonicalJson: string, options?: ChainStampOptions): ChainStamp;
  /**
   * Counts one row-stream entry another program wrote into a shared stream (openclaw-mem's ledger
   * rows): before the stream's first chained entry it only moves `n` (the unchained prefix); after
   * it, its commitment with the empty salt joins the open segment, as the verifier counts it.
   * `h` is the head when the entry closes a segment (for the store's heads table).
   */
  passRow(
    state: ChainState,
    canonicalJson: string,
  ): { readonly state: ChainState; readonly h?: string };
  /** A fresh random id: a salt, a stream key or an erasure id (16 bytes, base64url). */
  randomId(): string;
}

/**
 * `head(n)` of a stream whose chain stands at `state` (docs/design/verify.md section 1.2): the
 * head over the open segment cut at `state.n`, or the last segment head when the open segment is
 * empty. `undefined` before the stream's first chained entry.
 */
export function chainStateHead(sha256: Sha256, input: ChainState): string | undefined {
  const state = trusted.has(input) ? input : parseInput(chainStateSchema, input, 'chain state');
  if (state.key === null) return undefined;
  if (state.open.length === 0 && state.head !== null && state.n % CHAIN_SEGMENT === 0)
    return state.head;
  return segmentHead(sha256, state.head ?? genesisHead(sha256, state.key), state.n, state.open);
}

/** What `createChainWriter` needs: a synchronous SHA-256 and a source of random bytes. */
export interface ChainWriterOptions {
  readonly sha256: Sha256;
  /** 16 random bytes per call (Node: `crypto.randomFillSync`, drawn in larger blocks). */
  readonly randomSalt: () => Uint8Array;
}

const writerOptionsSchema = z.strictObject({
  sha256: z.custom<Sha256>((value) => typeof value === 'function', 'must be a function'),
  randomSalt: z.custom<() => Uint8Array>(
    (value) => typeof value === 'function',
    'must be a function',
  ),
});

function recordJsonError(recordJson: unknown, message: string): EpisodicError {
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid record to chain: ${message}. Pass the record's JSON.stringify text, without a chain member; nothing was written.`,
    details: {
      subject: 'chained record',
      field: 'recordJson',
      value: typeof recordJson === 'string' ? recordJson.slice(0, 60) : typeof recordJson,
    },
  });
}

/**
 * A chain writer: stamps each appended entry with `n`, a fresh salt, its commitment (and the
 * stream key on the first chained entry, the head every 64th entry), per docs/design/verify.md
 * section 1.2. It keeps no state: the store passes each stream's `ChainState` and keeps the one
 * returned. `sha256` and `randomSalt` are injected (core has no `node:crypto`).
 *
 * ```ts
 * const writer = createChainWriter({ sha256, randomSalt });
 * const { line, state } = writer.stampLine(newChainState(), JSON.stringify(header));
 * ```
 */
export function createChainWriter(options: ChainWriterOptions): ChainWriter {
  const { sha256, randomSalt } = parseInput(writerOptionsSchema, options, 'chain writer options');
  const randomId = (): string => {
    const bytes = randomSalt();
    if (!(bytes instanceof Uint8Array) || bytes.length !== 16)
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `Invalid chain writer options: randomSalt returned ${bytes instanceof Uint8Array ? `${bytes.length} bytes` : typeof bytes}, not 16 bytes. Return a Uint8Array of 16 random bytes; nothing was written.`,
        details: { subject: 'chain writer options', field: 'randomSalt', value: String(bytes) },
      });
    return toBase64Url(bytes);
  };

  /** The member fields before `c`, and the head to start from. */
  const begin = (input: ChainState) => {
    const state = trusted.has(input) ? input : parseInput(chainStateSchema, input, 'chain state');
    const n = state.n + 1;
    const key = state.key ?? randomId();
    const previous = state.head ?? genesisHead(sha256, key);
    return { state, n, key, previous, first: state.key === null, s: randomId() };
  };
  const finish = (
    begun: ReturnType<typeof begin>,
    c: string,
    options: ChainStampOptions | undefined,
  ) => {
    const { n, key, previous, state } = begun;
    const open = [...state.open, c];
    const closes = n % CHAIN_SEGMENT === 0;
    const h = closes || options?.head === true ? segmentHead(sha256, previous, n, open) : undefined;
    const chain: ChainMember = {
      n,
      ...(begun.first ? { k: key } : {}),
      s: begun.s,
      c,
      ...(h === undefined ? {} : { h }),
    };
    const next: ChainState = trust(
      closes ? { n, key, head: h as string, open: [] } : { n, key, head: state.head ?? null, open },
    );
    return { chain, state: next, h };
  };

  return {
    randomId,
    stampLine(state, recordJson, options) {
      if (
        typeof recordJson !== 'string' ||
        recordJson.length < 3 ||
        !recordJson.startsWith('{') ||
        !recordJson.endsWith('}')
      )
        throw recordJsonError(recordJson, 'not the JSON text of a non-empty object');
      if (recordJson.includes('"chain":')) {
        const parsed = safeJsonParse(recordJson);
        if (!parsed.success) throw recordJsonError(recordJson, 'not JSON');
        const value = parsed.value;
        if (typeof value === 'object' && value !== null && Object.hasOwn(value, 'chain'))
          throw recordJsonError(
            recordJson,
            'it already carries a chain member (callers never supply one)',
          );
      }
      const begun = begin(state);
      const prefix = chainLinePrefix(recordJson, {
        n: begun.n,
        ...(begun.first ? { k: begun.key } : {}),
        s: begun.s,
      });
      const c = digest(sha256, encoder.encode(prefix));
      const done = finish(begun, c, options);
      return { chain: done.chain, state: done.state, line: prefix + chainLineSuffix(c, done.h) };
    },
    passRow(input, canonicalJson) {
      if (typeof canonicalJson !== 'string')
        throw recordJsonError(canonicalJson, 'the canonical JSON is not a string');
      const state = trusted.has(input) ? input : parseInput(chainStateSchema, input, 'chain state');
      const n = state.n + 1;
      if (state.key === null) return { state: trust({ ...state, n }) };
      const open = [...state.open, rowCommitment(sha256, '', n, canonicalJson)];
      if (n % CHAIN_SEGMENT !== 0) return { state: trust({ ...state, n, open }) };
      const h = segmentHead(sha256, state.head ?? genesisHead(sha256, state.key), n, open);
      return { state: trust({ n, key: state.key, head: h, open: [] }), h };
    },
    stampRow(state, canonicalJson, options) {
      if (typeof canonicalJson !== 'string')
        throw recordJsonError(canonicalJson, 'the canonical JSON is not a string');
      const begun = begin(state);
      const c = rowCommitment(sha256, begun.s, begun.n, canonicalJson);
      const done = finish(begun, c, options);
      return { chain: done.chain, state: done.state };
    },
  };
}
