import type { SessionStore } from '@episodic/core';

/**
 * A session id from a URL: a UUID (lowercase), or a unique prefix of 6 or more characters as the
 * lists show it; `VALIDATION_ERROR` saying what an id looks like, `NOT_FOUND` for no match.
 */
export function parseSessionId(sessions: SessionStore, value: string): Promise<string> {
  return sessions.resolveSessionId(value, { subject: 'session id' });
}
