// The runtime-neutral entry: converting transcripts (no I/O), saving them into any Episodic
// stores, and recording runs as OpenTelemetry spans. File reading lives at `@episodic/interop/node`.
export type {
  ImportedConversation,
  ImportedRun,
  ImportResult,
} from './conversation/imported-conversation.js';
export type { ImportFormat, ImportProblem } from './conversation/source-conversation.js';
export { IMPORT_FORMATS } from './conversation/source-conversation.js';
export { IMPORT_CLIENT } from './conversation/turn-records.js';
export type { ImportOptions } from './import-transcript.js';
export {
  importClaudeCode,
  importCodex,
  importOpenAI,
  importTranscript,
} from './import-transcript.js';
export type { RunSpanOptions, RunSpanSummary } from './otel/record-run-spans.js';
export { EPISODIC_SPAN_ATTRIBUTES, recordRunSpans } from './otel/record-run-spans.js';
export type {
  ConversationImportReceipt,
  ImportStatus,
  ImportStores,
  SaveImportOptions,
  SaveImportReceipt,
} from './save/save-import.js';
export { saveImport } from './save/save-import.js';
export { VERSION } from './version.js';
