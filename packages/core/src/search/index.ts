export {
  decodeRunSearchCursor,
  encodeRunSearchCursor,
  isAfterRunSearchPoint,
  RUN_SEARCH_MAX_TYPES,
  type RunSearchAfter,
  type RunSearchHit,
  type RunSearchPage,
  type RunSearchQuery,
  runSearchQuerySchema,
} from './run-search-query.js';
export {
  SEARCH_IN_MEMORY_MAX_TEXTS,
  type SearchTextHit,
  searchTexts,
} from './search-in-memory.js';
export {
  parseSearchText,
  renderFts5Match,
  renderTsQuery,
  renderTsVector,
  SEARCH_MAX_CLAUSES,
  SEARCH_TEXT_MAX_LENGTH,
  type SearchMatch,
  type SearchPhrase,
} from './search-match.js';
export {
  decodeSearchCursor,
  encodeSearchCursor,
  type LedgerSearchQuery,
  ledgerSearchQuerySchema,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  type SearchAfter,
  type SearchHit,
  type SearchPage,
  SNIPPET_ELLIPSIS,
  SNIPPET_MATCH_END,
  SNIPPET_MATCH_START,
} from './search-query.js';
export {
  rankDocuments,
  type SearchDocument,
  SNIPPET_TOKENS,
  searchDocument,
  searchSnippet,
} from './search-rank.js';
export {
  type RunLineSearchFields,
  runLineTsMs,
  searchFieldsOfRunLine,
  searchTextOfRunLine,
  searchTextOfRunRecord,
} from './search-run-text.js';
export {
  foldSearchText,
  type SearchableLedgerRow,
  type SearchToken,
  searchTextOfArtifactContent,
  searchTextOfLedgerRow,
  searchTokenSpans,
  searchTokens,
} from './search-text.js';
