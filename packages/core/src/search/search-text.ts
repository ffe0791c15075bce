// What core indexes for a ledger event, and how text becomes search tokens: one definition that
// every store uses, so an index rebuilt anywhere holds the same words.

/**
 * The characters of a search token: letters, numbers and private-use characters (the token
 * characters of SQLite FTS5's `unicode61` tokenizer, `categories 'L* N* Co'`). Everything else
 * (spaces, punctuation, symbols, marks) separates tokens.
 */
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;
const MARKS = /\p{M}+/gu;

/**
 * Folds text the way the search engines compare it: lower case, diacritics removed (`é` is `e`).
 * Pure; used for tokens and for matching in the memory ledger.
 */
export function foldSearchText(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(MARKS, '').normalize('NFC');
}

/** A run of token characters and marks in the original text. */
const SPAN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;

/** A search token and where it stands in the original text (`text.slice(start, end)`). */
export interface SearchToken {
  readonly token: string;
  readonly start: number;
  readonly end: number;
}

/** The search tokens of `text`, folded, with their places in `text`, in order. */
export function searchTokenSpans(text: string): SearchToken[] {
  const found: SearchToken[] = [];
  for (const span of text.matchAll(SPAN)) {
    const start = span.index;
    const run = span[0];
    const end = start + run.length;
    // An ASCII run is one token, lower-cased (the fold of ASCII); only other runs are folded.
    if (!NON_ASCII.test(run)) found.push({ token: run.toLowerCase(), start, end });
    else for (const token of tokensOfFoldedRun(run)) found.push({ token, start, end });
  }
  return found;
}

/** Any code unit outside ASCII (a surrogate included). */
const NON_ASCII = /[\u0080-\uffff]/;
/** ASCII's token characters once lower-cased: ASCII has no marks and no other letters or digits. */
const ASCII_TOKEN = /[a-z0-9]+/g;

/** The search tokens of `text`, folded, in order. */
export function searchTokens(text: string): string[] {
  // The common case, ~10× faster: folding ASCII is lower-casing it (same tokens, tested).
  if (!NON_ASCII.test(text)) return text.toLowerCase().match(ASCII_TOKEN) ?? [];
  // Text with a few non-ASCII words: each ASCII run of token characters is one token, lower-cased;
  // only the other runs are folded (the fold costs ~5 µs a run: ~300 µs for a 60-word event).
  const tokens: string[] = [];
  for (const run of text.match(SPAN) ?? []) {
    if (!NON_ASCII.test(run)) tokens.push(run.toLowerCase());
    else for (const token of tokensOfFoldedRun(run)) tokens.push(token);
  }
  return tokens;
}

/** Non-ASCII runs whose tokens are remembered (a text's words repeat across events). */
const FOLDED_RUNS_KEPT = 4096;
/** The most characters of a run whose tokens are remembered. */
const FOLDED_RUN_MAX_LENGTH = 64;
const foldedRuns = new Map<string, readonly string[]>();

/**
 * The tokens of a run of token characters and marks holding non-ASCII: its fold's runs of
 * letters, digits and private-use characters. The fold costs ~5 µs a run, so the tokens of short
 * runs are remembered (a pure function of the run: the same tokens either way); the memory is
 * cleared when full.
 */
function tokensOfFoldedRun(run: string): readonly string[] {
  const kept = foldedRuns.get(run);
  if (kept !== undefined) return kept;
  const tokens = foldSearchText(run).match(TOKEN) ?? [];
  if (run.length <= FOLDED_RUN_MAX_LENGTH) {
    if (foldedRuns.size >= FOLDED_RUNS_KEPT) foldedRuns.clear();
    foldedRuns.set(run, tokens);
  }
  return tokens;
}

/** The string leaves of a JSON value, depth first (object keys are not text a person wrote). */
function stringLeaves(value: unknown, into: string[]): void {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringLeaves(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) stringLeaves(item, into);
  }
}

function leavesOfJson(json: string | null | undefined, into: string[]): void {
  if (json === null || json === undefined) return;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    // A row another tool wrote with text that is not JSON: its text is still its text.
    into.push(json);
    return;
  }
  stringLeaves(value, into);
}

/** The columns of a ledger row that hold searchable text. */
export interface SearchableLedgerRow {
  readonly summary: string;
  readonly payload_json?: string | null | undefined;
  readonly refs_json?: string | null | undefined;
}

/**
 * The text a store indexes for one ledger row: its summary, then the string leaves of its payload
 * JSON, then those of its refs JSON, one per line. Numbers, booleans, object keys and metadata
 * are not indexed (metadata is for filters). A redacted row gives its placeholder only.
 */
export function searchTextOfLedgerRow(row: SearchableLedgerRow): string {
  const parts: string[] = [row.summary];
  leavesOfJson(row.payload_json, parts);
  leavesOfJson(row.refs_json, parts);
  return parts.join('\n');
}

/**
 * The text of an artifact's content (a learned pattern, a reflection): its string leaves, one per
 * line, the top-level `key` (an id, not words) left out. A string content is its own text.
 */
export function searchTextOfArtifactContent(content: unknown): string {
  const parts: string[] = [];
  if (typeof content === 'object' && content !== null && !Array.isArray(content)) {
    for (const [name, value] of Object.entries(content)) {
      if (name !== 'key') stringLeaves(value, parts);
    }
  } else stringLeaves(content, parts);
  return parts.join('\n');
}
