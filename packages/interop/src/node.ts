// The Node entry: reads transcript files and folders from disk. The conversion itself lives in the
// runtime-neutral main entry (`@episodic/interop`).

// The types those signatures name, type-only (they are the main entry's).
export type { ImportedConversation, ImportedRun } from './conversation/imported-conversation.js';
export type {
  IMPORT_FORMATS,
  ImportFormat,
  ImportProblem,
} from './conversation/source-conversation.js';
export type { TranscriptFilesOptions, TranscriptFilesResult } from './read-transcript-files.js';
export { importTranscriptFiles, TRANSCRIPT_FILE_PATTERNS } from './read-transcript-files.js';
