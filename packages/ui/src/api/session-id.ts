import { EpisodicError } from '@episodic/core';
import { uuidSchema } from '@episodic/core/internal';

/** A session id from a URL: a UUID, lowercase; `VALIDATION_ERROR` saying what one looks like. */
export function parseSessionId(value: string): string {
  const parsed = uuidSchema.safeParse(value);
  if (!parsed.success) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid session id ${JSON.stringify(value.slice(0, 80))}: a session id is a UUID such as 0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e. Pick a session from the sessions list.`,
      details: { field: 'session id', value: value.slice(0, 80) },
    });
  }
  return parsed.data.toLowerCase();
}
