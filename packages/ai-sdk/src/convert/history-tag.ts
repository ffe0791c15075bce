import type { ProviderOptionsRecord } from './ai-sdk-detail.js';

/**
 * The provider options key that marks a message as history the session already holds.
 * `sessionMessages` sets `providerOptions.episodic = { episodeIds }` on every message it returns, so
 * the middleware records only the rest of a prompt. Providers read only their own key and ignore it.
 */
export const EPISODIC_PROVIDER_KEY = 'episodic';

/** The history mark of a message, or null for a message the session does not hold yet. */
export function historyMarkOf(message: {
  providerOptions?: unknown;
}): { episodeIds: number[] } | null {
  const options = message.providerOptions as ProviderOptionsRecord | undefined;
  const mark = options?.[EPISODIC_PROVIDER_KEY];
  if (typeof mark !== 'object' || mark === null) return null;
  const ids = (mark as { episodeIds?: unknown }).episodeIds;
  return {
    episodeIds: Array.isArray(ids) ? ids.filter((id): id is number => typeof id === 'number') : [],
  };
}

/** Provider options without the history mark, or undefined when nothing else is left. */
export function withoutHistoryMark(options: unknown): ProviderOptionsRecord | undefined {
  if (typeof options !== 'object' || options === null) return undefined;
  const { [EPISODIC_PROVIDER_KEY]: _mark, ...rest } = options as ProviderOptionsRecord;
  return Object.keys(rest).length === 0 ? undefined : rest;
}
