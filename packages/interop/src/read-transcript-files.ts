import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import { parseInput } from '@episodic/core/adapter';
import * as z from 'zod';
import type { ImportedConversation } from './conversation/imported-conversation.js';
import {
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportProblem,
} from './conversation/source-conversation.js';
import { importTranscript } from './import-transcript.js';

/** The files a folder import reads, by format. */
export const TRANSCRIPT_FILE_PATTERNS: Readonly<Record<ImportFormat, RegExp>> = {
  'claude-code': /\.jsonl$/,
  codex: /\.jsonl$/,
  openai: /\.jsonl?$/,
};

/** Options of `importTranscriptFiles`. */
export interface TranscriptFilesOptions {
  /**
   * The time of entries that carry none, when a source has no time at all (OpenAI files).
   * @default the file's modification time
   */
  time?: string;
}

/** What `importTranscriptFiles` read. */
export interface TranscriptFilesResult {
  readonly format: ImportFormat;
  /** The files read, in the order they were read. */
  readonly files: readonly string[];
  readonly conversations: readonly ImportedConversation[];
  /** Damaged lines and unreadable files, each naming its file. */
  readonly problems: readonly ImportProblem[];
  /** Files most of whose message entries were kept as raw data (see `ImportResult.warnings`). */
  readonly warnings: readonly ImportProblem[];
}

const optionsSchema = z
  .strictObject({ time: z.iso.datetime({ offset: true }).optional() })
  .optional();

/** Every matching file under `folder`, sorted, without following symbolic links. */
async function filesUnder(folder: string, pattern: RegExp): Promise<string[]> {
  const found: string[] = [];
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path, pattern)));
    else if (entry.isFile() && pattern.test(entry.name)) found.push(path);
  }
  return found;
}

/**
 * Reads a transcript file, or every transcript file under a folder (`*.jsonl`; `*.json` too for
 * OpenAI), and converts each with `importTranscript`. A file that cannot be read is reported in
 * `problems` and the others are still read. Throws `NOT_FOUND` when `path` does not exist.
 */
export async function importTranscriptFiles(
  format: ImportFormat,
  path: string,
  options?: TranscriptFilesOptions,
): Promise<TranscriptFilesResult> {
  parseInput(z.enum(IMPORT_FORMATS), format, 'import format');
  parseInput(z.string().min(1), path, `${format} transcript path`);
  const checked = parseInput(optionsSchema, options, `${format} import options`);
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') {
      throw new EpisodicError({
        code: 'NOT_FOUND',
        message: `No file or folder at ${path}: give the path of a ${format} transcript (or a folder of them).`,
        details: { path },
      });
    }
    throw new EpisodicError({
      code: 'STORAGE_ERROR',
      message: `Cannot read ${path}: ${error.message}`,
      cause: error,
    });
  });
  const files = info.isDirectory()
    ? await filesUnder(path, TRANSCRIPT_FILE_PATTERNS[format])
    : [path];
  const conversations: ImportedConversation[] = [];
  const problems: ImportProblem[] = [];
  const warnings: ImportProblem[] = [];
  for (const file of files) {
    let text: string;
    let modified: Date;
    try {
      [text, modified] = await Promise.all([
        readFile(file, 'utf8'),
        stat(file).then((stats) => stats.mtime),
      ]);
    } catch (error) {
      problems.push({
        source: file,
        message: `cannot be read: ${(error as Error).message}; skipped`,
      });
      continue;
    }
    const result = importTranscript(format, text, {
      label: file,
      time: checked?.time ?? modified.toISOString(),
    });
    conversations.push(...result.conversations);
    problems.push(...result.problems);
    warnings.push(...result.warnings);
  }
  return { format, files, conversations, problems, warnings };
}
