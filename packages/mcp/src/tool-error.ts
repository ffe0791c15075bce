import { EpisodicError } from '@episodic/core';
import type { EpisodicMcpLogger } from './logger.js';

/** The `code` of a tool error result (`{"error": "...", "code": "..."}`). */
export type ToolErrorCode =
  | 'VALIDATION_ERROR'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'CONFIRMATION_REQUIRED'
  | 'SCOPE_REQUIRED'
  | 'UNSUPPORTED'
  | 'STORAGE_ERROR'
  | 'INTERNAL_ERROR';

/** Every code a tool error can carry. */
export const TOOL_ERROR_CODES: readonly ToolErrorCode[] = [
  'VALIDATION_ERROR',
  'NOT_FOUND',
  'CONFLICT',
  'CONFIRMATION_REQUIRED',
  'SCOPE_REQUIRED',
  'UNSUPPORTED',
  'STORAGE_ERROR',
  'INTERNAL_ERROR',
];

/** The JSON body of a tool error result. */
export interface ToolErrorBody {
  /** What went wrong and what to do, written for the model that made the call. */
  error: string;
  code: ToolErrorCode;
}

/** The longest error message a tool returns. */
const MAX_ERROR_MESSAGE = 2_000;

const PASS_THROUGH: ReadonlySet<string> = new Set([
  'NOT_FOUND',
  'CONFLICT',
  'CONFIRMATION_REQUIRED',
  'SCOPE_REQUIRED',
]);

/** The `details.answer` of an `UNSUPPORTED` error written for the client (see `toolUnsupported`). */
const FOR_THE_CLIENT = 'tool_unsupported';

/**
 * An `UNSUPPORTED` error whose message the client sees, with code `UNSUPPORTED`: what this server
 * cannot do and which tool to use instead. Other `UNSUPPORTED` errors (a store's, which may
 * describe the server) stay `INTERNAL_ERROR` with a generic message.
 */
export function toolUnsupported(message: string, cause?: unknown): EpisodicError {
  return new EpisodicError({
    code: 'UNSUPPORTED',
    message,
    details: { answer: FOR_THE_CLIENT },
    ...(cause === undefined ? {} : { cause }),
  });
}

// An absolute path (POSIX, Windows drive or UNC) anywhere in a message: never shown to a client.
const ABSOLUTE_PATH =
  /(?<![\w.:/-])(?:\/(?:[\w.@+-]+\/)*[\w.@+-]+\/?|[A-Za-z]:\\[^\s"')]*|\\\\[^\s"')]+)/g;

/**
 * A value from an issue list may be echoed to the client only when it is short printable ASCII
 * without path separators: an id such as `"../etc"` or `"/etc/passwd"`, control characters or
 * lookalike letters are described, not repeated.
 */
function echoable(value: string): boolean {
  return value.length <= 60 && /^[\x20-\x7e]*$/.test(value) && !/[/\\]/.test(value);
}

interface IssueDetail {
  field?: unknown;
  message?: unknown;
  value?: unknown;
}

function validationMessage(error: EpisodicError): string {
  const subject = typeof error.details.subject === 'string' ? error.details.subject : 'arguments';
  const issues = Array.isArray(error.details.issues)
    ? (error.details.issues as IssueDetail[])
    : undefined;
  if (issues === undefined || issues.length === 0) return scrub(error.message);
  const parts = issues.slice(0, 3).map((issue) => {
    const field = typeof issue.field === 'string' ? issue.field : '(root)';
    const message = typeof issue.message === 'string' ? issue.message : 'is not valid';
    const value = typeof issue.value === 'string' ? issue.value : undefined;
    const given =
      value === undefined || value === 'nothing'
        ? ''
        : echoable(value)
          ? ` (got ${value})`
          : ' (the value given is not shown)';
    return `${field} ${scrub(message)}${given}`;
  });
  const more =
    issues.length > 3
      ? `; and ${issues.length - 3} more problem${issues.length > 4 ? 's' : ''}`
      : '';
  return `Invalid ${subject}: ${parts.join('; ')}${more}. Fix the arguments and call again; nothing was changed.`;
}

/** Removes absolute paths from a message (they would tell a client about the server's files). */
function scrub(message: string): string {
  return message.replace(ABSOLUTE_PATH, '[path]');
}

function bounded(message: string): string {
  return message.length <= MAX_ERROR_MESSAGE
    ? message
    : `${message.slice(0, MAX_ERROR_MESSAGE - 1)}…`;
}

/**
 * Turns anything a tool handler threw into the error body a client sees. Validation errors are
 * rebuilt from their issue list (field, problem, fix; values only when safe to echo); not-found,
 * conflict, confirmation and scope errors keep their message, and so does an `UNSUPPORTED` error a
 * tool wrote for the client (`toolUnsupported`); storage and unexpected failures get
 * a generic message (the details, which may name files, go to the server's log only). Never a
 * stack trace, never a path.
 */
export function toToolErrorBody(
  error: unknown,
  tool: string,
  logger?: EpisodicMcpLogger,
): ToolErrorBody {
  if (EpisodicError.isInstance(error)) {
    if (error.code === 'VALIDATION_ERROR') {
      return { error: bounded(validationMessage(error)), code: 'VALIDATION_ERROR' };
    }
    if (error.code === 'UNSUPPORTED' && error.details.answer === FOR_THE_CLIENT) {
      return { error: bounded(scrub(error.message)), code: 'UNSUPPORTED' };
    }
    if (PASS_THROUGH.has(error.code)) {
      return { error: bounded(scrub(error.message)), code: error.code as ToolErrorCode };
    }
    if (error.code === 'STORAGE_ERROR' || error.code === 'CORRUPT_DATA') {
      logger?.({ level: 'error', message: `${tool} failed in storage`, error });
      return {
        error: `The episode store failed while running ${tool}${error.code === 'CORRUPT_DATA' ? ' (stored data could not be read back)' : ''}. Nothing was reported as stored. Retry the call; if it keeps failing, the server's operator should check its log.`,
        code: 'STORAGE_ERROR',
      };
    }
  }
  logger?.({ level: 'error', message: `${tool} failed unexpectedly`, error });
  return {
    error: `${tool} failed because of an internal error in the Episodic server. Nothing was reported as stored. Retry once; if it fails again, report it to the server's operator.`,
    code: 'INTERNAL_ERROR',
  };
}
