import type { z } from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import { describeValue, formatPath, valueAtPath } from './describe-value.js';

/** One problem found in an input, as reported in `EpisodicError.details.issues`. */
export interface InputIssue {
  /** Where the problem is, e.g. `payload.reason` or `items[2].call_id`. */
  field: string;
  /** What is wrong and what to use instead. */
  message: string;
  /** A short rendering of the value that was given. */
  value: string;
}

type ZodIssue = z.core.$ZodIssue;

function quoteList(values: ReadonlyArray<unknown>): string {
  return [...values]
    .map((value) => (typeof value === 'string' ? JSON.stringify(value) : String(value)))
    .sort()
    .join(', ');
}

function describeIssue(issue: ZodIssue, given: unknown): string {
  switch (issue.code) {
    case 'invalid_type': {
      const article = /^[aeiou]/.test(issue.expected) ? 'an' : 'a';
      return given === undefined
        ? `is required (${article} ${issue.expected})`
        : `must be ${article} ${issue.expected}`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${quoteList(issue.values)}`
        : `must be one of ${quoteList(issue.values)}`;
    case 'too_big':
      // A bound given with its own message (e.g. 'must not be blank') says it best.
      if (!issue.message.startsWith('Too big')) return issue.message;
      return `must be at most ${String(issue.maximum)}${unitOf(issue.origin)}`;
    case 'too_small':
      if (given === undefined) return 'is required';
      if (!issue.message.startsWith('Too small')) return issue.message;
      return issue.inclusive === false
        ? `must be more than ${String(issue.minimum)}${unitOf(issue.origin)}`
        : `must be at least ${String(issue.minimum)}${unitOf(issue.origin)}`;
    case 'unrecognized_keys':
      return `has unknown key${issue.keys.length > 1 ? 's' : ''} ${quoteList(issue.keys)}: remove ${issue.keys.length > 1 ? 'them' : 'it'}`;
    case 'invalid_format':
      // A regex check carries its own message (e.g. 'must be a UUID'); zod's default names the pattern.
      return issue.format === 'regex' && !issue.message.startsWith('Invalid string')
        ? issue.message
        : issue.format === 'regex'
          ? 'does not have the expected format'
          : `must be a valid ${issue.format}`;
    case 'invalid_union': {
      const { options } = issue as { options?: unknown[] };
      return Array.isArray(options) && options.length > 0
        ? `must be one of ${quoteList(options)}`
        : issue.message;
    }
    default:
      return issue.message;
  }
}

function unitOf(origin: string): string {
  if (origin === 'string') return ' characters';
  if (origin === 'array' || origin === 'set') return ' items';
  return '';
}

/** Turns zod issues into our issue list (first ten). */
export function toInputIssues(issues: ReadonlyArray<ZodIssue>, input: unknown): InputIssue[] {
  return issues.slice(0, 10).map((issue) => {
    if (issue.code === 'unrecognized_keys' && issue.keys.length === 1) {
      const path = [...issue.path, issue.keys[0] as string];
      return {
        field: formatPath(path),
        message: 'is not accepted here: remove it',
        value: describeValue(valueAtPath(input, path)),
      };
    }
    const given = valueAtPath(input, issue.path);
    return {
      field: formatPath(issue.path),
      message: issue.code === 'custom' ? issue.message : describeIssue(issue, given),
      value: describeValue(given),
    };
  });
}

/** Builds the `VALIDATION_ERROR` for `subject` from a list of issues. */
export function validationError(
  subject: string,
  issues: InputIssue[],
  cause?: unknown,
): EpisodicError {
  const [first] = issues;
  const summary = first
    ? `${first.field} ${first.message} (got ${first.value})`
    : 'the value does not match the expected shape';
  const more =
    issues.length > 1
      ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})`
      : '';
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid ${subject}: ${summary}${more}. Fix the value and call again; nothing was changed.`,
    details: { subject, issues },
    cause,
  });
}

/**
 * Parses `input` with `schema` at a public boundary. Returns the parsed value or throws a
 * `VALIDATION_ERROR` that names the field, the value given and what to use instead.
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  subject: string,
): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(subject, toInputIssues(result.error.issues, input), result.error);
}

/** A single-field validation error, for checks that are not expressed as a schema. */
export function invalidField(
  subject: string,
  field: string,
  value: unknown,
  message: string,
): EpisodicError {
  return validationError(subject, [{ field, message, value: describeValue(value) }]);
}
