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
 * nears PostgreSQL's 1 MB limit.
 */
export function renderTsVector(text: string): string {
  const positions = new Map<string, number[]>();
  let bytes = 0;
  let position = 0;
  for (const token of searchTokens(text)) {
    position = Math.min(position + 1, LAST_POSITION);
    const known = positions.get(token);
    if (known !== undefined) {
      const room = known.length < POSITIONS_PER_LEXEME && bytes + 2 <= VECTOR_BUDGET;
      if (room && known[known.length - 1] !== position) {
        known.push(position);
        bytes += 2;
      }
      continue;
    }
    const size = utf8Length(token);
    if (size >= LEXEME_MAX_BYTES) continue;
    if (bytes + size + 12 > VECTOR_BUDGET) continue;
    bytes += size + 12;
    positions.set(token, [position]);
  }
  let vector = '';
  for (const [token, at] of positions) {
    vector += `${vector === '' ? '' : ' '}${quoteLexeme(token)}:${at.join(',')}`;
  }
  return vector;
}
