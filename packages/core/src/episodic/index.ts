export type { Episodic, EpisodicOptions } from './create-episodic.js';
export {
  createEpisodic,
  createEpisodicFromParsed,
  DEFAULT_READ_LIMIT,
  PARSE_ERROR_SAMPLE,
} from './create-episodic.js';
export type { JsonlLine } from './jsonl-lines.js';
export { isNulRun, splitJsonlLines } from './jsonl-lines.js';
