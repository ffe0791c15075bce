import { EpisodicError } from '../errors/episodic-error.js';

/**
 * Runs one adapter call and turns whatever it throws into a domain error: an `EpisodicError`
 * passes through; anything else becomes `STORAGE_ERROR` naming the store and the operation.
 */
export function callAdapter<T>(
  storeName: string,
  operation: string,
  call: () => T | Promise<T>,
): Promise<T> {
  // Not an async function: a synchronous adapter (better-sqlite3, the in-memory stores) answers
  // in one promise instead of two, which every ledger query and append goes through.
  let result: T | Promise<T>;
  try {
    result = call();
  } catch (error) {
    return Promise.reject(toStorageError(storeName, operation, error));
  }
  if (typeof (result as { then?: unknown } | null)?.then === 'function') {
    return Promise.resolve(result).catch((error: unknown) => {
      throw toStorageError(storeName, operation, error);
    });
  }
  return Promise.resolve(result);
}

/** The `STORAGE_ERROR` for a backend failure (an `EpisodicError` is returned unchanged). */
export function toStorageError(
  storeName: string,
  operation: string,
  error: unknown,
): EpisodicError {
  if (EpisodicError.isInstance(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const code =
    typeof error === 'object' && error !== null && 'code' in error
      ? String((error as { code: unknown }).code)
      : undefined;
  return new EpisodicError({
    code: 'STORAGE_ERROR',
    message: `The ${storeName} store failed to ${operation}: ${reason}. Nothing was reported as stored; check free space and permissions, then retry.`,
    details: { store: storeName, operation, ...(code === undefined ? {} : { backendCode: code }) },
    cause: error,
  });
}
