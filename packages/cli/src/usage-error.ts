/** The codes of errors found in the command line itself (all exit 2). */
export type UsageErrorCode =
  | 'USAGE_ERROR'
  | 'VALIDATION_ERROR'
  | 'SCOPE_REQUIRED'
  | 'CONFIRMATION_REQUIRED';

/**
 * A command line the CLI cannot run: an unknown command or option, a missing argument
 * (`USAGE_ERROR`), or a value that is not valid (`VALIDATION_ERROR`: bad JSON, not a number).
 * Reported with exit code 2; nothing was read or changed.
 */
const marker = Symbol.for('episodic.cli.usage-error');

export class UsageError extends Error {
  readonly [marker] = true;
  readonly code: UsageErrorCode;

  constructor(message: string, code: UsageErrorCode = 'USAGE_ERROR') {
    super(message);
    this.name = 'UsageError';
    this.code = code;
  }

  /**
   * True for a `UsageError` from any bundle: each command is bundled on its own, with its own
   * copy of this class, so `instanceof` cannot be used across them.
   */
  static isInstance(error: unknown): error is UsageError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}

/** The closest candidates to `word` (edit distance ≤ 2, or a prefix), best first. */
export function suggest(word: string, candidates: readonly string[]): string[] {
  const scored = candidates
    .map((candidate) => ({
      candidate,
      distance: candidate.startsWith(word) && word.length >= 2 ? 0 : editDistance(word, candidate),
    }))
    .filter(({ distance }) => distance <= Math.max(1, Math.min(2, Math.floor(word.length / 2))))
    .sort((left, right) => left.distance - right.distance);
  return scored.slice(0, 3).map(({ candidate }) => candidate);
}

function editDistance(left: string, right: string): number {
  const previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row++) {
    let diagonal = previous[0] as number;
    previous[0] = row;
    for (let column = 1; column <= right.length; column++) {
      const above = previous[column] as number;
      const cost = left[row - 1] === right[column - 1] ? 0 : 1;
      previous[column] = Math.min(above + 1, (previous[column - 1] as number) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[right.length] as number;
}

/** ` Did you mean X?` for the best suggestions, or an empty string. */
export function didYouMean(word: string, candidates: readonly string[], prefix = ''): string {
  const found = suggest(word, candidates);
  if (found.length === 0) return '';
  return ` Did you mean ${found.map((candidate) => `${prefix}${candidate}`).join(' or ')}?`;
}
