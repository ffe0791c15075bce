export { episodesToMessages, itemsToMessages } from './items-to-messages.js';
export { messagesToItems } from './messages-to-items.js';
