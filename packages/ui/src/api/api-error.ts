import { EpisodicError } from '@episodic/core';
import type { ApiError } from './api-types.js';

/**
 * The HTTP status of an error code: bad input 400, unknown ids 404, what the store cannot do
 * (search without an index) 501, anything else 500.
 */
export function httpStatusOf(error: unknown): 400 | 404 | 422 | 500 | 501 {
  if (EpisodicError.hasCode(error, 'VALIDATION_ERROR')) return 400;
  if (EpisodicError.hasCode(error, 'SCOPE_REQUIRED')) return 400;
  if (EpisodicError.hasCode(error, 'NOT_FOUND')) return 404;
  if (EpisodicError.hasCode(error, 'CORRUPT_DATA')) return 422;
  if (EpisodicError.hasCode(error, 'UNSUPPORTED')) return 501;
  return 500;
}

/** The JSON body of an error: its code and message, never a stack. */
export function apiErrorBody(error: unknown): ApiError {
  if (EpisodicError.isInstance(error)) {
    return { error: { code: error.code, message: error.message } };
  }
  return {
    error: {
      code: 'INTERNAL_ERROR',
      message: `The UI server failed: ${error instanceof Error ? error.message : String(error)}`,
    },
  };
}

/** A `NOT_FOUND` error for an id the UI was asked about. */
export function notFound(what: string, id: string, fix: string): EpisodicError {
  return new EpisodicError({
    code: 'NOT_FOUND',
    message: `${what} ${id} was not found. ${fix}`,
    details: { id },
  });
}
