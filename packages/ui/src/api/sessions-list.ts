import type { SessionStore } from '@episodic/core';
import * as z from 'zod';
import type { SessionListResponse } from './api-types.js';
import { limitParam, parseQuery } from './query-params.js';

const querySchema = z.strictObject({
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  limit: limitParam(50, 200),
});

/** `GET /api/sessions`: one page of session snapshots, newest first. */
export async function listSessionsPage(
  sessions: SessionStore,
  rawQuery: Record<string, string>,
): Promise<SessionListResponse> {
  const query = parseQuery(querySchema, rawQuery, 'sessions query');
  const all = await sessions.list();
  const page = all.slice(query.offset, query.offset + query.limit);
  const end = query.offset + page.length;
  return {
    sessions: page.map((session) => ({
      session_id: session.sessionId,
      updated_at: session.updatedAt,
      revision: session.revision,
      last_run_id: session.runId ?? null,
      message_count: session.messageCount,
    })),
    total: all.length,
    offset: query.offset,
    next_offset: end < all.length ? end : null,
  };
}
