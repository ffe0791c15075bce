export type { ExactJsonParseResult, ExactJsonValue } from './exact-json.js';
export {
  ExactJsonError,
  parseJsonExact,
  safeParseJsonExact,
  stringifyJson,
} from './exact-json.js';
export type { JsonParseResult, JsonValue } from './json.js';
export { deepFreeze, frozenJsonCopy, safeJsonParse } from './json.js';
export { jsonEqual } from './json-equal.js';
export { findJsonShapeProblem, type JsonShapeProblem } from './json-shape.js';
export { pauseAfterLostRace } from './lost-race-pause.js';
