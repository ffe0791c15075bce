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
