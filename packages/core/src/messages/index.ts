export { episodesToMessages, itemsToMessages } from './items-to-messages.js';
export { messagesToEpisodes } from './message-episodes.js';
export { messagesToItems } from './messages-to-items.js';
