// Public exports, listed by name.
export type { AiSdkDetail, ProviderOptionsRecord } from './convert/ai-sdk-detail.js';
export { AI_SDK_DETAIL_KEY } from './convert/ai-sdk-detail.js';
export { EPISODIC_PROVIDER_KEY } from './convert/history-tag.js';
export { itemsToModelMessages, modelMessagesToItems } from './convert/model-messages.js';
export type { EpisodicMiddleware, EpisodicMiddlewareOptions } from './episodic-middleware.js';
export { episodicMiddleware } from './episodic-middleware.js';
export type { FinishEventLike } from './record/conversation-recorder.js';
export type { AssembledModelMessages, SessionMessagesOptions } from './session-messages.js';
export { assembleModelMessages, sessionMessages } from './session-messages.js';
export { VERSION } from './version.js';
