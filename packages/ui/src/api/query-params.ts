import { parseInput } from '@episodic/core/adapter';
import * as z from 'zod';

/** A page size: 1 to `max`, `fallback` when absent. */
export function limitParam(fallback: number, max: number) {
  return z.coerce.number().int().min(1).max(max).default(fallback);
}

/** A comma-separated list (repeated parameters are joined by the caller). */
export const listParam = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  )
  .optional();

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A date bound: ISO 8601, or a bare `YYYY-MM-DD` meaning the start (`from`) or the end (`to`) of
 * that day in UTC. Returns the instant as an ISO string.
 */
export function dateParam(edge: 'start' | 'end') {
  return z
    .string()
    .trim()
    .refine(
      (text) => !Number.isNaN(Date.parse(text)),
      'must be a date such as 2026-01-31 or 2026-01-31T12:00:00Z',
    )
    .transform((text) => {
      if (DATE_ONLY.test(text)) {
        return edge === 'start' ? `${text}T00:00:00.000Z` : `${text}T23:59:59.999Z`;
      }
      return new Date(Date.parse(text)).toISOString();
    })
    .optional();
}

/** Parses the query parameters of one request; bad ones are a `VALIDATION_ERROR` naming each. */
export function parseQuery<Schema extends z.ZodType>(
  schema: Schema,
  query: Record<string, string>,
  subject: string,
): z.output<Schema> {
  // An empty parameter (`?status=`) means "not given", as a form with an empty field sends it.
  const given = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== ''));
  return parseInput(schema, given, subject);
}
