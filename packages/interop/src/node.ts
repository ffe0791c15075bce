// The Node entry: reads transcript files and folders from disk. The conversion itself lives in the
// runtime-neutral main entry (`@episodic/interop`).
export type { TranscriptFilesOptions, TranscriptFilesResult } from './read-transcript-files.js';
export { importTranscriptFiles, TRANSCRIPT_FILE_PATTERNS } from './read-transcript-files.js';
