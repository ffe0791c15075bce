/**
 * Whole-word matching for the learning rules. A word is a run of letters and digits (any script);
 * everything else separates words, so "analysis" does not contain the word "is", "modify" does not
 * contain "if", and "rate_limiter_tests.rs" contains "tests". Matching ignores case.
 */

const WORD = /[\p{L}\p{N}]+/gu;

/** The words of `text`, lowercased, in order. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** True when `text` contains `word` as a whole word (case-insensitive). */
export function containsWord(text: string, word: string): boolean {
  const wanted = word.toLowerCase();
  return wordsOf(text).includes(wanted);
}

/**
 * The words that mark a step as a decision point: a condition was tested or a choice was made
 * ("Check if the token expired", "Decide whether to retry", "Validate input").
 */
export const DECISION_WORDS: readonly string[] = [
  'if',
  'whether',
  'when',
  'unless',
  'else',
  'otherwise',
  'check',
  'checks',
  'checking',
  'verify',
  'verifies',
  'verifying',
  'validate',
  'validates',
  'validating',
  'ensure',
  'ensures',
  'ensuring',
  'decide',
  'decides',
  'deciding',
  'determine',
  'determines',
  'determining',
  'choose',
  'chooses',
  'choosing',
];

const DECISION_SET: ReadonlySet<string> = new Set(DECISION_WORDS);

/** The decision words of `text`, distinct, in order of first appearance. */
export function decisionWordsIn(text: string): string[] {
  const found: string[] = [];
  for (const word of wordsOf(text)) {
    if (DECISION_SET.has(word) && !found.includes(word)) found.push(word);
  }
  return found;
}

/** Lowercases and collapses whitespace, so equal actions written differently get one key. */
export function normalizeText(text: string): string {
  return text.toLowerCase().replace(/\s+/gu, ' ').trim();
}
