// Public exports, listed by name.
export type { EpisodicSessionServiceOptions } from './episodic-session-service.js';
export { EpisodicSessionService } from './episodic-session-service.js';
export {
  APP_STATE_RECORD_TYPE,
  appRunId,
  EVENT_RECORD_TYPE,
  GOOGLE_ADK_RUN_NAMESPACE,
  SESSION_LISTED_RECORD_TYPE,
  SESSION_RECORD_TYPE,
  sessionRunId,
  USER_LISTED_RECORD_TYPE,
  USER_STATE_RECORD_TYPE,
  userRunId,
} from './session-records.js';
export { VERSION } from './version.js';
