export { MAX_TOOL_TEXT, sanitizeText } from './sanitize-text.js';
