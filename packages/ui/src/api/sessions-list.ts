import { EpisodicError, type RunStore, runTitle, type SessionStore } from '@episodic/core';
import * as z from 'zod';
import type { SessionListItem, SessionListResponse } from './api-types.js';
import { limitParam, parseQuery } from './query-params.js';
import type { RunDigestCache } from './run-digests.js';
import { modelName } from './runs-list.js';

const querySchema = z.strictObject({
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  limit: limitParam(50, 200),
});

const later = (left: string, right: string | null): string =>
  right !== null && Date.parse(right) > Date.parse(left) ? right : left;

/**
 * `GET /api/sessions`: one page of session snapshots, newest first, each with its last input and
 * its last run's status, model and tokens (only the page's last runs are read).
 */
export async function listSessionsPage(
  deps: { sessions: SessionStore; runs: RunStore; digests: RunDigestCache },
  rawQuery: Record<string, string>,
): Promise<SessionListResponse> {
  const query = parseQuery(querySchema, rawQuery, 'sessions query');
  const all = await deps.sessions.list();
  const page = all.slice(query.offset, query.offset + query.limit);
  const end = query.offset + page.length;
  const lastRuns = page.flatMap((session) => (session.runId === undefined ? [] : [session.runId]));
  const headers = new Map(
    lastRuns.length === 0
      ? []
      : (await deps.runs.list({ runIds: lastRuns })).runs.map((run) => [run.runId, run]),
  );
  const sessions: SessionListItem[] = [];
  for (const session of page) {
    const runId = session.runId?.toLowerCase();
    const header = runId === undefined ? undefined : headers.get(runId);
    const digest =
      runId === undefined || header === undefined ? undefined : await digestOf(deps, runId);
    const tokensKnown = digest !== undefined && digest.usageResponses > 0;
    const title = session.lastUserMessage === undefined ? '' : runTitle(session.lastUserMessage);
    sessions.push({
      session_id: session.sessionId,
      updated_at: session.updatedAt,
      revision: session.revision,
      last_run_id: session.runId ?? null,
      message_count: session.messageCount,
      title: title === '' ? (digest?.title ?? null) : title,
      last_activity_at: later(session.updatedAt, digest?.lastActivityAt ?? null),
      last_run_status:
        digest === undefined ? null : digest.status === 'error' ? 'failed' : digest.status,
      model: header === undefined ? null : modelName(header),
      input_tokens: tokensKnown ? digest.inputTokens : null,
      output_tokens: tokensKnown ? digest.outputTokens : null,
    });
  }
  return {
    sessions,
    total: all.length,
    offset: query.offset,
    next_offset: end < all.length ? end : null,
  };
}

async function digestOf(deps: { digests: RunDigestCache }, runId: string) {
  try {
    return await deps.digests.get(runId);
  } catch (error) {
    // Deleted between the list and the read: the session is listed without it.
    if (EpisodicError.isInstance(error) && error.code === 'NOT_FOUND') return undefined;
    throw error;
  }
}
