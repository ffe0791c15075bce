// The search-text parser: what a person typed becomes terms and phrases, nothing else, so no input
// reaches an engine as query syntax (FTS5 column filters, NEAR, `*`, `^`, AND/OR/NOT; tsquery's
// `&|!<->`). Every engine renders the same tree in its own syntax.
import { invalidField } from '../validation/parse-input.js';
import { searchTokens } from './search-text.js';

/** The most characters a search text may have. */
export const SEARCH_TEXT_MAX_LENGTH = 500;
/** The most terms and phrases one search may hold. */
export const SEARCH_MAX_CLAUSES = 16;

/**
 * One clause of a search: a phrase of one or more folded tokens (letters and digits only) that
 * must appear in this order, next to each other. A single word is a phrase of one token.
 */
export interface SearchPhrase {
  readonly tokens: readonly string[];
}

/** A parsed search: every phrase must match (AND). Engine-neutral; at least one phrase. */
export interface SearchMatch {
  readonly phrases: readonly SearchPhrase[];
}

/**
 * Parses search text: words are terms, `"quoted words"` are phrases, a word joined by
 * punctuation (`foo-bar`, `a.b`) is the phrase of its parts, an unbalanced quote runs to the end.
 * Every clause must match. Operators and special characters are plain text (or separators).
 * Throws `VALIDATION_ERROR` when the text holds no word or too many clauses.
 */
export function parseSearchText(text: string, field = 'text'): SearchMatch {
  const phrases: SearchPhrase[] = [];
  const seen = new Set<string>();
  const add = (tokens: string[]) => {
    if (tokens.length === 0) return;
    const key = tokens.join(' ');
    if (seen.has(key)) return;
    seen.add(key);
    phrases.push({ tokens });
  };
  const parts = text.split('"');
  parts.forEach((part, index) => {
    if (index % 2 === 1) add(searchTokens(part));
    else for (const word of part.split(/\s+/u)) add(searchTokens(word));
  });
  if (phrases.length === 0) {
    throw invalidField(
      'search',
      field,
      text,
      'holds no word to search for (letters or digits): type the words the events contain',
    );
  }
  if (phrases.length > SEARCH_MAX_CLAUSES) {
    throw invalidField(
      'search',
      field,
      text,
      `holds ${phrases.length} terms and phrases, more than ${SEARCH_MAX_CLAUSES}: search for fewer words`,
    );
  }
  return { phrases };
}

/**
 * The FTS5 MATCH expression of a search: each phrase as an FTS5 string (`"a b"`), joined by
 * spaces (implicit AND). Tokens hold letters and digits only, so nothing is syntax; a `"` is
 * doubled anyway.
 */
export function renderFts5Match(match: SearchMatch): string {
  return match.phrases
    .map((phrase) => `"${phrase.tokens.join(' ').replaceAll('"', '""')}"`)
    .join(' ');
}

/**
 * The PostgreSQL `tsquery` of a search, as tsquery input text (cast it with `$1::tsquery`, never
 * `to_tsquery`, so PostgreSQL's parser and dictionaries never see it): each phrase as quoted
 * lexemes joined by `<->` (followed by), phrases joined by `&`. Tokens hold letters, digits and
 * private-use characters only, so nothing is syntax; `'` and `\` are escaped anyway.
 */
export function renderTsQuery(match: SearchMatch): string {
  return match.phrases
    .map((phrase) => `(${phrase.tokens.map(quoteLexeme).join(' <-> ')})`)
    .join(' & ');
}

/** PostgreSQL refuses a lexeme of this many bytes or more (`MAXSTRLEN` is 2047). */
const LEXEME_MAX_BYTES = 2046;
/** The highest position a tsvector keeps (`MAXENTRYPOS - 1`); later ones are clamped to it. */
const LAST_POSITION = 16383;
/** Positions one lexeme keeps (`MAXNUMPOS`); PostgreSQL drops the rest. */
const POSITIONS_PER_LEXEME = 256;
/** Bytes kept below PostgreSQL's 1 MB tsvector limit (`MAXSTRPOS`), for its headers. */
const VECTOR_BUDGET = 1_000_000;

/** Characters a quoted lexeme escapes (core's tokens hold none of them). */
const LEXEME_SPECIAL = /['\\]/;

function quoteLexeme(token: string): string {
  if (!LEXEME_SPECIAL.test(token)) return `'${token}'`;
  return `'${token.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** The UTF-8 bytes of `text` (a surrogate pair is 4), without encoding it. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    bytes += unit < 0x80 ? 1 : unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff) ? 2 : 3;
  }
  return bytes;
}

/**
 * The PostgreSQL `tsvector` of an indexed text, as tsvector input text (cast it with
 * `$1::tsvector`): core's search tokens (`searchTokens`, folded as `parseSearchText` folds a
 * query) with their positions from 1, so PostgreSQL's parser, its `simple` configuration and
 * `unaccent` never decide what a word is. What PostgreSQL cannot hold is left out: tokens of
 * 2,046 bytes or more (no query can hold one), positions past 16,383 (clamped, as
 * `to_tsvector` does), more than 256 positions of one token, and new tokens once the vector
 * nears PostgreSQL's 1 MB limit. Lexemes come in the order of their first position.
 */
export function renderTsVector(text: string): string {
  return NON_ASCII.test(text) ? vectorOfTokens(searchTokens(text)) : vectorOfAscii(text);
}

/** Any code unit outside ASCII (a surrogate included). */
const NON_ASCII = /[\u0080-\uffff]/;

/** A lexeme's positions so far, as the vector's text holds them. */
interface Lexeme {
  /** `'token':1,5`: the quoted lexeme and its positions. */
  text: string;
  count: number;
  last: number;
}

/** Adds one more position of a known lexeme, within PostgreSQL's limits; the bytes it costs. */
function addPosition(lexeme: Lexeme, position: number, bytes: number): number {
  if (lexeme.count >= POSITIONS_PER_LEXEME || bytes + 2 > VECTOR_BUDGET) return 0;
  if (lexeme.last === position) return 0;
  lexeme.text += `,${position}`;
  lexeme.count++;
  lexeme.last = position;
  return 2;
}

/** The vector of any text's tokens (the general path: tokens may need escaping, bytes counted). */
function vectorOfTokens(tokens: readonly string[]): string {
  const known = new Map<string, Lexeme>();
  const lexemes: Lexeme[] = [];
  let bytes = 0;
  let position = 0;
  for (const token of tokens) {
    position = position < LAST_POSITION ? position + 1 : LAST_POSITION;
    const lexeme = known.get(token);
    if (lexeme !== undefined) {
      bytes += addPosition(lexeme, position, bytes);
      continue;
    }
    const size = utf8Length(token);
    if (size >= LEXEME_MAX_BYTES) continue;
    if (bytes + size + 12 > VECTOR_BUDGET) continue;
    bytes += size + 12;
    const added = { text: `${quoteLexeme(token)}:${position}`, count: 1, last: position };
    known.set(token, added);
    lexemes.push(added);
  }
  return joinLexemes(lexemes);
}

function joinLexemes(lexemes: readonly Lexeme[]): string {
  return lexemes.map((lexeme) => lexeme.text).join(' ');
}

/** Whether an ASCII code unit, lower-cased, is a token character (`a`–`z`, `0`–`9`). */
function isAsciiTokenUnit(unit: number): boolean {
  return (unit >= 97 && unit <= 122) || (unit >= 48 && unit <= 57);
}

/** Whether `text` holds the same `size` code units at `first` and at `second`. */
function sameUnits(text: string, first: number, second: number, size: number): boolean {
  for (let offset = 0; offset < size; offset++) {
    if (text.charCodeAt(first + offset) !== text.charCodeAt(second + offset)) return false;
  }
  return true;
}

/** The slots of the shared lexeme table (open addressing): texts up to this size reuse it. */
const SHARED_SLOTS = 1 << 16;
let sharedEntries = new Int32Array(1024);
let sharedStamps = new Int32Array(1024);
let sharedStamp = 0;

/**
 * The vector of an ASCII text, in one pass over its code units: a token is a run of `a`–`z`,
 * `0`–`9` once lower-cased (what `searchTokens` gives for ASCII, so the same vector byte for
 * byte, tested against the general path), found again through a hash table of the tokens'
 * places in the text, so no token string is made but the first of each, and none is hashed twice.
 */
function vectorOfAscii(text: string): string {
  const lower = text.toLowerCase();
  const length = lower.length;
  // At most length / 2 + 1 tokens: a table of more than `length` slots stays under half full.
  let slots = 1024;
  while (slots <= length + 1) slots *= 2;
  let entries: Int32Array;
  let stamps: Int32Array;
  let stamp: number;
  if (slots > SHARED_SLOTS) {
    entries = new Int32Array(slots);
    stamps = new Int32Array(slots);
    stamp = 1;
  } else {
    if (sharedEntries.length < slots) {
      sharedEntries = new Int32Array(slots);
      sharedStamps = new Int32Array(slots);
      sharedStamp = 0;
    }
    // A slot is taken in this call when its stamp is this call's: nothing to clear.
    sharedStamp = (sharedStamp + 1) | 0;
    if (sharedStamp === 0) {
      sharedStamps.fill(0);
      sharedStamp = 1;
    }
    entries = sharedEntries;
    stamps = sharedStamps;
    stamp = sharedStamp;
  }
  const mask = entries.length - 1;
  const starts: number[] = [];
  const sizes: number[] = [];
  const lexemes: Lexeme[] = [];
  let bytes = 0;
  let position = 0;
  let index = 0;
  while (index < length) {
    let unit = lower.charCodeAt(index);
    if (!isAsciiTokenUnit(unit)) {
      index++;
      continue;
    }
    const start = index;
    let hash = 0;
    do {
      hash = (Math.imul(hash, 31) + unit) | 0;
      index++;
      unit = index < length ? lower.charCodeAt(index) : 0;
    } while (isAsciiTokenUnit(unit));
    const size = index - start;
    position = position < LAST_POSITION ? position + 1 : LAST_POSITION;
    let slot = (hash ^ (hash >>> 15)) & mask;
    let found: Lexeme | undefined;
    while (stamps[slot] === stamp) {
      const entry = entries[slot] ?? 0;
      if (sizes[entry] === size && sameUnits(lower, starts[entry] ?? 0, start, size)) {
        found = lexemes[entry];
        break;
      }
      slot = (slot + 1) & mask;
    }
    if (found !== undefined) {
      bytes += addPosition(found, position, bytes);
      continue;
    }
    // ASCII: a token's UTF-8 bytes are its length, and it holds nothing to escape.
    if (size >= LEXEME_MAX_BYTES) continue;
    if (bytes + size + 12 > VECTOR_BUDGET) continue;
    bytes += size + 12;
    stamps[slot] = stamp;
    entries[slot] = lexemes.length;
    starts.push(start);
    sizes.push(size);
    lexemes.push({ text: `'${lower.slice(start, index)}':${position}`, count: 1, last: position });
  }
  return joinLexemes(lexemes);
}
