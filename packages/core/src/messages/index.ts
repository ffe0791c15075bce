export type { ChatMessageMarker } from './chat-message-marker.js';
export { CHAT_MESSAGE_ITEM_TYPE, CHAT_MESSAGE_KEY } from './chat-message-marker.js';
export { episodesToMessages, itemsToMessages } from './items-to-messages.js';
export { lastUserMessage } from './last-user-message.js';
export { messagesToItems } from './messages-to-items.js';
