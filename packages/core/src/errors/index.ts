export type { EpisodicErrorCode, EpisodicErrorOptions } from './episodic-error.js';
export { EpisodicError } from './episodic-error.js';
