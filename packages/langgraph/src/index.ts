// Public exports, listed by name.
export type { EpisodicSaverOptions } from './episodic-saver.js';
export { EpisodicSaver, LANGGRAPH_RUN_NAMESPACE, threadRunId } from './episodic-saver.js';
export { CHECKPOINT_RECORD_TYPE, WRITES_RECORD_TYPE } from './langgraph-records.js';
export { VERSION } from './version.js';
