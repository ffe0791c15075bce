// Public exports, listed by name.
export type { EpisodicSessionOptions } from './episodic-session.js';
export { EpisodicSession } from './episodic-session.js';
export {
  CLEAR_RECORD_TYPE,
  ITEM_RECORD_TYPE,
  MUTATIONS_RECORD_TYPE,
  OPENAI_AGENTS_RUN_NAMESPACE,
  POP_RECORD_TYPE,
  sessionRunId,
  TRANSACTION_RECORD_TYPE,
} from './session-records.js';
export { VERSION } from './version.js';
