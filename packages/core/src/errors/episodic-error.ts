const marker = Symbol.for('episodic.error');

/**
 * The stable error codes of every Episodic package. Callers branch on `code`, never on `message`.
 *
 * - `VALIDATION_ERROR`: an input did not match its schema; nothing was changed.
 * - `NOT_FOUND`: the named object does not exist (or is not visible in this scope).
 * - `CONFLICT`: another write landed first (duplicate id, stale expected position, completed task).
 * - `CONFIRMATION_REQUIRED`: a destructive operation was called without `confirm: true`.
 * - `SCOPE_REQUIRED`: a ledger operation did not name a scope (and did not ask for `global`).
 * - `STORAGE_ERROR`: the backend failed (disk full, permissions, locked database).
 * - `CORRUPT_DATA`: stored data could not be read back.
 * - `PLUGIN_ERROR`: a plugin threw while assembling model input.
 * - `ABORTED`: the operation was aborted (turn interrupted, signal fired).
 * - `UNSUPPORTED`: the backend or version does not support the operation.
 * - `INTERNAL_ERROR`: a bug in Episodic; please report it.
 */
export type EpisodicErrorCode =
  | 'VALIDATION_ERROR'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'CONFIRMATION_REQUIRED'
  | 'SCOPE_REQUIRED'
  | 'STORAGE_ERROR'
  | 'CORRUPT_DATA'
  | 'PLUGIN_ERROR'
  | 'ABORTED'
  | 'UNSUPPORTED'
  | 'INTERNAL_ERROR';

export interface EpisodicErrorOptions {
  /** The stable, machine-readable code. */
  code: EpisodicErrorCode;
  /** What failed, which value, and what to do about it. Written for the person (or model) who must act. */
  message: string;
  /** Structured facts about the failure (field, value, limits). Must be JSON-serializable. */
  details?: Record<string, unknown>;
  /** The underlying error, when one exists. */
  cause?: unknown;
}

/** The single error type thrown by every Episodic package. */
export class EpisodicError extends Error {
  readonly [marker] = true;
  readonly code: EpisodicErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor({ code, message, details = {}, cause }: EpisodicErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'EpisodicError';
    this.code = code;
    this.details = details;
  }

  /** True for an `EpisodicError` from any copy of this package (survives duplicate installs). */
  static isInstance(error: unknown): error is EpisodicError {
    return typeof error === 'object' && error !== null && marker in error;
  }

  /** True when `error` is an `EpisodicError` with the given code. */
  static hasCode(error: unknown, code: EpisodicErrorCode): error is EpisodicError {
    return EpisodicError.isInstance(error) && error.code === code;
  }

  /** A plain object for logs and wire formats. Never includes the stack or the cause's stack. */
  toJSON(): {
    name: string;
    code: EpisodicErrorCode;
    message: string;
    details: Record<string, unknown>;
  } {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      details: { ...this.details },
    };
  }
}
