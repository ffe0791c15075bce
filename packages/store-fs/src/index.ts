export type { EpisodicHomeOptions } from './episodic-home.js';
export { resolveEpisodicHome } from './episodic-home.js';
