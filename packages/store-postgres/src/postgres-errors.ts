import { EpisodicError } from '@episodic/core';

/** The SQLSTATE (or Node error code) of a driver error, if it has one. */
export function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** `23505`: a unique index refused the row. */
export function isUniqueViolation(error: unknown): boolean {
  return codeOf(error) === '23505';
}

/** Serialization failures and deadlocks: the transaction did nothing and may simply be run again. */
export function isRetryable(error: unknown): boolean {
  const code = codeOf(error);
  return code === '40001' || code === '40P01';
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/**
 * Which limit ended a call: the server cancelled a statement (`statement_timeout`, SQLSTATE 57014
 * `query_canceled`), the client stopped waiting for a reply (node-postgres's `query_timeout`), or
 * for a connection (`connectionTimeoutMillis`).
 */
export function timeoutOf(error: unknown): 'statement' | 'query' | 'connection' | undefined {
  const code = codeOf(error);
  if (code === '57014') return 'statement';
  if (code !== undefined) return undefined;
  const message = error instanceof Error ? error.message : '';
  if (/^Query read timeout/.test(message)) return 'query';
  if (
    /timeout exceeded when trying to connect|Connection terminated due to connection timeout/i.test(
      message,
    )
  )
    return 'connection';
  return undefined;
}

/** The server could not be reached, went away, refused new connections, or did not answer in time. */
export function isConnectionFailure(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  const message = error instanceof Error ? error.message : '';
  return (
    /Connection terminated|connection error|timeout exceeded when trying to connect|Query read timeout|Client was closed|Client has encountered a connection error|Cannot use a pool after calling end/i.test(
      message,
    ) && code === undefined
  );
}

const TIMEOUT_REASONS = {
  statement:
    "the server cancelled the statement when it ran past the statement timeout (statementTimeoutMs, or the server's statement_timeout; an administrator's pg_cancel_backend reads the same)",
  query:
    'the server did not answer within the query timeout (queryTimeoutMs): it may be frozen, overloaded or cut off, and the connection was discarded',
  connection:
    'no connection could be had within the connection timeout (connectionTimeoutMs): the server may be frozen, overloaded or unreachable, or every connection of the pool is busy',
} as const;

/**
 * Turns a driver error into a domain error (an `EpisodicError` passes through). `where` is the
 * credential-free connection description; no message ever holds a password.
 * - unique violation → `CONFLICT`; serialization failure or deadlock (after the retries) → `CONFLICT`;
 * - a character PostgreSQL text cannot hold (NUL) → `VALIDATION_ERROR`;
 * - an unreachable or restarting server, and anything else → `STORAGE_ERROR` with the SQLSTATE.
 */
export function toEpisodicError(error: unknown, operation: string, where: string): EpisodicError {
  if (EpisodicError.isInstance(error)) return error;
  const code = codeOf(error);
  const reason = error instanceof Error ? error.message : String(error);
  const details = {
    store: 'postgres',
    operation,
    ...(code === undefined ? {} : { backendCode: code }),
  };
  if (isUniqueViolation(error)) {
    return new EpisodicError({
      code: 'CONFLICT',
      message: `The postgres store could not ${operation}: another writer stored the same key first (${reason}). Nothing was written; read again and retry.`,
      details,
      cause: error,
    });
  }
  if (isRetryable(error)) {
    return new EpisodicError({
      code: 'CONFLICT',
      message: `The postgres store could not ${operation}: concurrent writers kept colliding (${reason}). Nothing was written; retry.`,
      details,
      cause: error,
    });
  }
  if (code === '22021' || code === '22P05') {
    return new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `The postgres store could not ${operation}: PostgreSQL text cannot hold a NUL character (U+0000) or invalid UTF-8 (${reason}). Remove it from the value; nothing was written.`,
      details,
      cause: error,
    });
  }
  const timeout = timeoutOf(error);
  if (timeout !== undefined) {
    return new EpisodicError({
      code: 'STORAGE_ERROR',
      message: `The postgres store could not ${operation} at ${where}: ${TIMEOUT_REASONS[timeout]}. An interrupted write may or may not have been stored: retry it once the server answers (ledger appends with the same event id are idempotent, compare-and-appends report CONFLICT when they had landed).`,
      details: { ...details, timeout },
      cause: error,
    });
  }
  if (isConnectionFailure(error)) {
    return new EpisodicError({
      code: 'STORAGE_ERROR',
      message: `The postgres store could not ${operation}: the server at ${where} is unreachable or restarting (${reason}). An interrupted write may or may not have been stored: retry it (ledger appends with the same event id are idempotent, compare-and-appends report CONFLICT when they had landed).`,
      details,
      cause: error,
    });
  }
  return new EpisodicError({
    code: 'STORAGE_ERROR',
    message: `The postgres store could not ${operation} at ${where}: ${reason}. Nothing was reported as stored; check the server's log and the role's privileges, then retry.`,
    details,
    cause: error,
  });
}
