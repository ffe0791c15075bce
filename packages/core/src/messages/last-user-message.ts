import type { BaseMessage } from '../schema/base-message.js';
import type { Episode } from '../schema/episode.js';
import { itemsToMessages } from './items-to-messages.js';

/** One content part as seed 001's summaries show it (Codelia's `stringifyContent`, display mode). */
function partText(part: unknown): string {
  if (typeof part !== 'object' || part === null) return '[content]';
  const { type, text, provider, kind } = part as Record<string, unknown>;
  // Array.join shows a missing text as nothing, as in Codelia.
  if (type === 'text') return text === undefined || text === null ? '' : String(text);
  if (type === 'image_url') return '[image]';
  if (type === 'document') return '[document]';
  if (type === 'other') return `[other:${String(provider)}/${String(kind)}]`;
  return '[content]';
}

/**
 * Seed 001's `last_user_message` of a session summary: the content of the last `user` message that
 * has one, as Codelia's session index shows it — text parts as they are, an image as `[image]`, a
 * document as `[document]`, a provider part as `[other:<provider>/<kind>]`, anything else as
 * `[content]`, joined with nothing; a list that shows as nothing is its JSON. Undefined when no user
 * message has content.
 */
export function lastUserMessage(messages: readonly BaseMessage[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'user' || !('content' in message)) continue;
    const { content } = message;
    if (content === undefined || content === null) return '';
    if (typeof content === 'string') return content;
    const text = content.map(partText).join('');
    return text === '' ? JSON.stringify(content) : text;
  }
  return undefined;
}

/**
 * `lastUserMessage` of a log's messages, found from the end: only the last user message episode
 * is converted, so it costs what follows that message, not the whole log.
 */
export function lastUserMessageOfEpisodes(episodes: readonly Episode[]): string | undefined {
  for (let index = episodes.length - 1; index >= 0; index--) {
    const episode = episodes[index] as Episode;
    if (episode.type !== 'item') continue;
    const { item } = episode.payload;
    if (item.type !== 'message' || item.role !== 'user') continue;
    const text = lastUserMessage(itemsToMessages([item]));
    if (text !== undefined) return text;
  }
  return undefined;
}
