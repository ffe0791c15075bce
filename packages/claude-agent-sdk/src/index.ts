// Public exports, listed by name.
export type { EpisodicSessionStoreOptions } from './episodic-session-store.js';
export { EpisodicSessionStore } from './episodic-session-store.js';
export {
  CLAUDE_AGENT_SDK_RUN_NAMESPACE,
  ENTRY_RECORD_TYPE,
  KEY_RECORD_TYPE,
  projectRunId,
  SUMMARY_RECORD_TYPE,
  sessionRunId,
} from './session-records.js';
export { VERSION } from './version.js';
