/** The command did what was asked. */
export const EXIT_OK = 0;
/** A conflict, a missing object, damaged data or a storage failure: the input was fine, the outcome was not. */
export const EXIT_FAILURE = 1;
/** Invalid input or usage: nothing was changed; fix the command line and run it again. */
export const EXIT_USAGE = 2;

/** The error codes that mean "fix your input" (exit 2). Every other code exits 1. */
const USAGE_CODES: ReadonlySet<string> = new Set([
  'USAGE_ERROR',
  'VALIDATION_ERROR',
  'SCOPE_REQUIRED',
  'CONFIRMATION_REQUIRED',
]);

/** The exit code for an error code. */
export function exitCodeFor(code: string): number {
  return USAGE_CODES.has(code) ? EXIT_USAGE : EXIT_FAILURE;
}
