export type { JsonParseResult, JsonValue } from './json.js';
export { deepFreeze, frozenJsonCopy, safeJsonParse } from './json.js';
