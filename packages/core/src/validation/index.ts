export { lazyCompiled } from './compiled-schema.js';
export { describeValue, formatPath } from './describe-value.js';
export type { InputIssue } from './parse-input.js';
export { invalidField, parseInput, toInputIssues, validationError } from './parse-input.js';
export { storeSchema } from './store-schema.js';
