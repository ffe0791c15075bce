// BM25 ranking and snippets in JavaScript: the memory ledger's search, and the reference the
// conformance suite holds other engines to (same formula as SQLite FTS5's bm25()).
import type { SearchMatch } from './search-match.js';
import { SNIPPET_ELLIPSIS, SNIPPET_MATCH_END, SNIPPET_MATCH_START } from './search-query.js';
import { type SearchToken, searchTokenSpans } from './search-text.js';

const K1 = 1.2;
const B = 0.75;
/** Tokens a snippet shows, as FTS5's snippet() is asked for them. */
export const SNIPPET_TOKENS = 16;

/** A document's text and tokens, computed once. */
export interface SearchDocument {
  readonly text: string;
  readonly tokens: readonly SearchToken[];
}

export function searchDocument(text: string): SearchDocument {
  return { text, tokens: searchTokenSpans(text) };
}

/** The token indexes where `tokens` occurs in `document`, as a phrase. */
function occurrences(document: SearchDocument, tokens: readonly string[]): number[] {
  const found: number[] = [];
  const words = document.tokens;
  outer: for (let index = 0; index + tokens.length <= words.length; index++) {
    for (let offset = 0; offset < tokens.length; offset++) {
      if (words[index + offset]?.token !== tokens[offset]) continue outer;
    }
    found.push(index);
  }
  return found;
}

/**
 * Ranks `candidates` (the documents that pass the filters) against `match`, with corpus
 * statistics from `corpus` (every document of the index, as FTS5 keeps them). Returns the
 * candidates where every phrase occurs, with their BM25 score (higher is better) and snippet.
 */
export function rankDocuments<Key>(
  corpus: Iterable<SearchDocument>,
  candidates: Iterable<readonly [Key, SearchDocument]>,
  match: SearchMatch,
): Array<{ key: Key; score: number; snippet: string }> {
  let total = 0;
  let length = 0;
  const containing = match.phrases.map(() => 0);
  for (const document of corpus) {
    total += 1;
    length += document.tokens.length;
    match.phrases.forEach((phrase, index) => {
      if (occurrences(document, phrase.tokens).length > 0)
        containing[index] = (containing[index] ?? 0) + 1;
    });
  }
  const average = total === 0 ? 0 : length / total;
  const idf = containing.map((count) => {
    const value = Math.log((total - count + 0.5) / (count + 0.5));
    return value <= 0 ? 1e-6 : value;
  });
  const hits: Array<{ key: Key; score: number; snippet: string }> = [];
  for (const [key, document] of candidates) {
    let score = 0;
    const starts: Array<{ at: number; length: number }> = [];
    let all = true;
    match.phrases.forEach((phrase, index) => {
      const found = occurrences(document, phrase.tokens);
      if (found.length === 0) all = false;
      const tf = found.length;
      const norm = average === 0 ? 1 : 1 - B + (B * document.tokens.length) / average;
      score += (idf[index] ?? 0) * ((tf * (K1 + 1)) / (tf + K1 * norm));
      for (const at of found) starts.push({ at, length: phrase.tokens.length });
    });
    if (!all) continue;
    hits.push({ key, score, snippet: snippetOf(document, starts) });
  }
  return hits;
}

/**
 * The snippet of `text` for `match`, as the memory ledger and SQLite's `snippet()` make it: the
 * text around the first occurrence of any phrase, `SNIPPET_TOKENS` tokens at most, each phrase
 * occurrence marked as one span. For engines whose own excerpt function tokenizes differently
 * (PostgreSQL's `ts_headline`), so every store's snippets are the same. Text where no phrase
 * occurs gives its first tokens, unmarked.
 */
export function searchSnippet(text: string, match: SearchMatch): string {
  const document = searchDocument(text);
  if (document.tokens.length === 0) return '';
  const starts: Array<{ at: number; length: number }> = [];
  for (const phrase of match.phrases) {
    for (const at of occurrences(document, phrase.tokens))
      starts.push({ at, length: phrase.tokens.length });
  }
  return snippetOf(document, starts);
}

/**
 * The text around the first match, `SNIPPET_TOKENS` tokens at most, each phrase occurrence marked
 * as one span (as FTS5's snippet() marks a phrase).
 */
function snippetOf(
  document: SearchDocument,
  matches: ReadonlyArray<{ at: number; length: number }>,
): string {
  // Where a marked span opens and where it closes, overlapping occurrences merged.
  const sorted = [...matches].sort((a, b) => a.at - b.at);
  const opens = new Set<number>();
  const closes = new Set<number>();
  let open: { at: number; end: number } | undefined;
  for (const { at, length } of sorted) {
    const end = at + length - 1;
    if (open !== undefined && at <= open.end) open.end = Math.max(open.end, end);
    else {
      if (open !== undefined) closes.add(open.end);
      open = { at, end };
      opens.add(at);
    }
  }
  if (open !== undefined) closes.add(open.end);
  const first = sorted[0]?.at ?? 0;
  const words = document.tokens;
  const from = Math.max(0, Math.min(first - 2, words.length - SNIPPET_TOKENS));
  const to = Math.min(words.length, from + SNIPPET_TOKENS);
  let text = from > 0 ? SNIPPET_ELLIPSIS : '';
  let cursor = (words[from] as SearchToken).start;
  let inside = [...opens].some((at) => at < from) && ![...closes].some((end) => end < from);
  if (inside) text += SNIPPET_MATCH_START;
  for (let index = from; index < to; index++) {
    const word = words[index] as SearchToken;
    if (word.start >= cursor) {
      text += document.text.slice(cursor, word.start);
      if (opens.has(index) && !inside) {
        text += SNIPPET_MATCH_START;
        inside = true;
      }
      text += document.text.slice(word.start, word.end);
      cursor = word.end;
    }
    if (closes.has(index) && inside) {
      text += SNIPPET_MATCH_END;
      inside = false;
    }
  }
  if (inside) text += SNIPPET_MATCH_END;
  if (to < words.length) text += SNIPPET_ELLIPSIS;
  return text;
}
