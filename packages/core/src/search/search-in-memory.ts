// Search over a handful of texts held in memory (a scope's patterns), ranked as every other
// search is: the same parser, the same BM25 and snippets, no index.
import * as z from 'zod';
import { invalidField } from '../validation/parse-input.js';
import { parseSearchText, SEARCH_TEXT_MAX_LENGTH } from './search-match.js';
import { rankDocuments, searchDocument } from './search-rank.js';

/** The most texts one in-memory search ranks: past this, an index is the tool. */
export const SEARCH_IN_MEMORY_MAX_TEXTS = 100_000;

/** One text that matched: its key, its BM25 score (higher is better) and its snippet. */
export interface SearchTextHit<Key> {
  /** The key the text was given with. */
  readonly key: Key;
  /** BM25, higher is better; comparable within one call only. */
  readonly score: number;
  /** The text around the first match, matched words between `«` and `»`, cuts as `…`. */
  readonly snippet: string;
}

const queryTextSchema = z
  .string()
  .max(SEARCH_TEXT_MAX_LENGTH, `must be at most ${SEARCH_TEXT_MAX_LENGTH} characters`);

/**
 * The texts of `entries` that hold every word and `"quoted phrase"` of `query` (`parseSearchText`),
 * best first: BM25 with every entry as the corpus, ties in the order given. For a few texts that
 * have no index (a scope's patterns); `field` names the query in a `VALIDATION_ERROR` (empty text,
 * no word, too many clauses, too long).
 */
export function searchTexts<Key>(
  entries: Iterable<readonly [Key, string]>,
  query: string,
  field = 'query',
): Array<SearchTextHit<Key>> {
  const list = [...entries];
  const checked = queryTextSchema.safeParse(query);
  if (!checked.success) {
    throw invalidField('search', field, query, checked.error.issues[0]?.message ?? 'must be text');
  }
  if (list.length > SEARCH_IN_MEMORY_MAX_TEXTS) {
    throw invalidField(
      'search',
      'entries',
      list.length,
      `must be at most ${SEARCH_IN_MEMORY_MAX_TEXTS} texts: search an index instead`,
    );
  }
  const match = parseSearchText(query, field);
  const documents = list.map(([key, text]) => [key, searchDocument(text)] as const);
  const ranked = rankDocuments(
    documents.map(([, document]) => document),
    documents.map(([, document], index) => [index, document] as const),
    match,
  );
  return ranked
    .sort((left, right) => right.score - left.score || left.key - right.key)
    .map((hit) => ({
      key: (list[hit.key] as readonly [Key, string])[0],
      score: hit.score,
      snippet: hit.snippet,
    }));
}
