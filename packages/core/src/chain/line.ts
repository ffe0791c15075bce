// The line form of docs/design/verify.md section 1.2 (run files, store-fs's erasure log): a
// `chain` member written last in the line,
//   <record JSON without its closing "}">,"chain":{"n":<n>[,"k":"<key>"],"s":"<salt>","c":"<c>"[,"h":"<head>"]}}
// whose commitment is the SHA-256 of the line's bytes through the salt's closing quote. A redacted
// line has `"r":"<erasure id>"` in the salt's slot (the same length) and may be padded with spaces.

/** The `chain` member of one stored line, as found by `parseChainLine`. */
export interface ChainLineMember {
  /** Byte offset of the member (`,"chain":` starts here). */
  readonly member: number;
  /** End of the bytes the commitment covers: just after the closing quote of `s` (or `r`). */
  readonly hashedEnd: number;
  /** End of the line without its padding spaces. */
  readonly contentEnd: number;
  readonly n: number;
  /** The stream key (the stream's first chained entry only). */
  readonly k?: string;
  /**
   * `''` when the entry holds its salt (the fast path does not copy it out: it is hashed where it
   * lies, between `member` and `hashedEnd`); absent once redacted.
   */
  readonly s?: string;
  /** The erasure id that replaced the salt (a redacted entry). */
  readonly r?: string;
  readonly c: string;
  /** A stored head (every 64th entry, and the last one a writer writes before it ends a run). */
  readonly h?: string;
}

/**
 * What a line holds: `none` (no `chain` member at its end: an unchained line, maybe not JSON),
 * `malformed` (a member that is not in the shape Episodic writes: a changed byte) or `chained`.
 */
export type ParsedChainLine =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'malformed';
      readonly member: number;
      readonly reason: string;
      /**
       * The line stops inside its member, with no padding after it: what a torn write leaves (a
       * changed byte leaves the line's length as it was).
       */
      readonly truncated: boolean;
    }
  | ({ readonly kind: 'chained' } & ChainLineMember);

const encoder = new TextEncoder();
const MEMBER = encoder.encode(',"chain":{"n":');
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const CLOSE = 0x7d;
/** The longest member Episodic writes (n of 16 digits, k, s, c and h), rounded up. */
const MEMBER_WINDOW = 200;

/** One character-code array per length, reused. */
const SCRATCH = new Map<number, number[]>();

function ascii(bytes: Uint8Array, start: number, end: number): string {
  // Copied into a reused array of numbers, then one flat string: spreading a subarray into
  // String.fromCharCode, or a string built one character at a time, costs more.
  const length = end - start;
  let codes = SCRATCH.get(length);
  if (codes === undefined) {
    codes = new Array<number>(length).fill(0);
    SCRATCH.set(length, codes);
  }
  for (let index = 0; index < length; index++) codes[index] = bytes[start + index] as number;
  return String.fromCharCode.apply(null, codes);
}

/** Finds `,"chain":{"n":` in the last MEMBER_WINDOW bytes before `end`, scanning back. */
function findMember(bytes: Uint8Array, end: number): number {
  const lowest = Math.max(1, end - MEMBER_WINDOW);
  const first = MEMBER[0] as number;
  for (let start = end - MEMBER.length; start >= lowest; start--) {
    if (bytes[start] !== first) continue;
    let index = 1;
    while (index < MEMBER.length && bytes[start + index] === MEMBER[index]) index++;
    if (index === MEMBER.length) return start;
  }
  return -1;
}

/**
 * Reads the `chain` member at the end of one stored line (`bytes`, without its newline), without
 * decoding the rest of the line: the verifier's fast path (docs/design/verify.md section 4.6).
 */
export function parseChainLine(bytes: Uint8Array): ParsedChainLine {
  let contentEnd = bytes.length;
  while (contentEnd > 0 && bytes[contentEnd - 1] === SPACE) contentEnd--;
  const member = findMember(bytes, contentEnd);
  if (member < 0) return { kind: 'none' };
  // Set when a check needed bytes past the end of the line.
  let short = false;
  const malformed = (reason: string): ParsedChainLine => ({
    kind: 'malformed',
    member,
    reason,
    truncated: short && contentEnd === bytes.length,
  });
  if (bytes[0] !== 0x7b) return malformed('the line does not start with {');
  let at = member + MEMBER.length;
  const digitsStart = at;
  while (at < contentEnd && (bytes[at] as number) >= 0x30 && (bytes[at] as number) <= 0x39) at++;
  const digits = at - digitsStart;
  if (at >= contentEnd) short = true;
  if (digits === 0 || digits > 15 || (digits > 1 && bytes[digitsStart] === 0x30))
    return malformed('n is not a position');
  const n = Number(ascii(bytes, digitsStart, at));
  if (n < 1) return malformed('n is not a position');

  /** Reads `,"<name>":"<value>"` at `at` (the value `length` characters); the value as text only when asked. */
  const field = (
    length: number,
    read = true,
  ): { name: string; value: string | undefined } | undefined => {
    if (
      bytes[at] !== COMMA ||
      bytes[at + 1] !== QUOTE ||
      bytes[at + 3] !== QUOTE ||
      bytes[at + 4] !== COLON ||
      bytes[at + 5] !== QUOTE ||
      bytes[at + 6 + length] !== QUOTE ||
      at + 7 + length > contentEnd
    ) {
      if (at + 7 + length > contentEnd) short = true;
      return undefined;
    }
    const name = String.fromCharCode(bytes[at + 2] as number);
    const value = read ? ascii(bytes, at + 6, at + 6 + length) : undefined;
    at += 7 + length;
    return { name, value };
  };
  const peekName = (): string | undefined =>
    bytes[at] === COMMA && bytes[at + 1] === QUOTE && bytes[at + 3] === QUOTE
      ? String.fromCharCode(bytes[at + 2] as number)
      : undefined;

  // Lengths and delimiters only: a changed character inside k, s or c fails the commitment, inside
  // h the head check, and an r that names no erasure is altered (docs/design/verify.md 1.5).
  let k: string | undefined;
  if (peekName() === 'k') {
    k = field(22)?.value;
    if (k === undefined) return malformed('k is not a stream key');
  }
  // The salt is only hashed where it lies: its text is read for a redaction id only.
  const salted = bytes[at + 2] === 0x73;
  const slot = field(22, !salted);
  if (slot === undefined || (slot.name !== 's' && slot.name !== 'r'))
    return malformed('no salt (s) or erasure id (r)');
  const hashedEnd = at;
  const c = field(43);
  if (c === undefined || c.name !== 'c') return malformed('c is not a commitment');
  let h: string | undefined;
  if (peekName() === 'h') {
    h = field(43)?.value;
    if (h === undefined) return malformed('h is not a head');
  }
  if (at + 2 > contentEnd) short = true;
  if (at + 2 !== contentEnd || bytes[at] !== CLOSE || bytes[at + 1] !== CLOSE)
    return malformed('the member does not end the line');
  const found: { -readonly [Key in keyof ChainLineMember]: ChainLineMember[Key] } & {
    kind: 'chained';
  } = { kind: 'chained', member, hashedEnd, contentEnd, n, c: c.value as string };
  if (k !== undefined) found.k = k;
  if (salted) found.s = '';
  else found.r = slot.value as string;
  if (h !== undefined) found.h = h;
  return found;
}

/** The text of a line up to and including its salt: what its commitment covers. */
export function chainLinePrefix(
  recordJson: string,
  chain: { readonly n: number; readonly k?: string; readonly s: string },
): string {
  return `${recordJson.slice(0, -1)},"chain":{"n":${chain.n}${chain.k === undefined ? '' : `,"k":"${chain.k}"`},"s":"${chain.s}"`;
}

/** Closes a line started by `chainLinePrefix` with its commitment (and head). */
export function chainLineSuffix(c: string, h?: string): string {
  return `,"c":"${c}"${h === undefined ? '' : `,"h":"${h}"`}}}`;
}
