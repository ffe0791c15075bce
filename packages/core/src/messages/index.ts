export type { ChatMessageMarker } from './chat-message-marker.js';
export { CHAT_MESSAGE_ITEM_TYPE, CHAT_MESSAGE_KEY } from './chat-message-marker.js';
export { episodesToMessages, itemsToMessages } from './items-to-messages.js';
export { lastUserMessage, lastUserMessageOfEpisodes } from './last-user-message.js';
export { messagesToEpisodes } from './message-episodes.js';
export { messagesToItems } from './messages-to-items.js';
export { baseMessages, snapshotMessages, stableMessageCount } from './snapshot-messages.js';
