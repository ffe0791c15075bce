import { parseInput } from '@episodic/core';
import * as z from 'zod';
import { parseClaudeCode } from './claude-code/parse-claude-code.js';
import { parseCodex } from './codex/parse-codex.js';
import { buildConversation } from './conversation/build-conversation.js';
import type { ImportResult } from './conversation/imported-conversation.js';
import {
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportProblem,
  type SourceConversation,
} from './conversation/source-conversation.js';
import { parseOpenAI } from './openai/parse-openai.js';

/** Options of the importers. */
export interface ImportOptions {
  /**
   * A name for the text in problem reports, e.g. its file name. It is never stored: importing the
   * same transcript from another path gives the same data.
   */
  label?: string;
  /**
   * The time of entries that carry none, when the source has no time at all (OpenAI files).
   * ISO 8601. @default '1970-01-01T00:00:00.000Z'
   */
  time?: string;
}

const optionsSchema = z
  .strictObject({
    label: z.string().optional(),
    time: z.iso.datetime({ offset: true }).optional(),
  })
  .optional();

const PARSERS: Record<
  ImportFormat,
  (text: string, problems: ImportProblem[], label?: string) => SourceConversation[]
> = {
  'claude-code': parseClaudeCode,
  codex: parseCodex,
  openai: parseOpenAI,
};

/**
 * Converts a transcript in `format` into Episodic data (sessions, runs, episodes), without
 * writing anything: pass the result to `saveImport`. Ids are derived from the source, so the same
 * transcript always converts to the same data. Never throws on damaged content: unreadable lines
 * are reported in `problems` and skipped, and entries Episodic has no place for are kept whole as
 * `import.raw` meta episodes. Throws `VALIDATION_ERROR` only for bad arguments.
 */
export function importTranscript(
  format: ImportFormat,
  text: string,
  options?: ImportOptions,
): ImportResult {
  parseInput(z.enum(IMPORT_FORMATS), format, 'import format');
  parseInput(z.string(), text, `${format} transcript text`);
  const checked = parseInput(optionsSchema, options, `${format} import options`);
  const problems: ImportProblem[] = [];
  const sources = PARSERS[format](text, problems, checked?.label);
  const conversations = sources.map((source) =>
    buildConversation(source, problems, {
      ...(checked?.time === undefined ? {} : { fallbackTime: checked.time }),
      ...(checked?.label === undefined ? {} : { label: checked.label }),
    }),
  );
  return { format, conversations, problems };
}

/** Converts a Claude Code session file (`~/.claude/projects/<project>/<session>.jsonl`). */
export function importClaudeCode(text: string, options?: ImportOptions): ImportResult {
  return importTranscript('claude-code', text, options);
}

/** Converts a Codex CLI rollout file (`~/.codex/sessions/…/rollout-….jsonl`). */
export function importCodex(text: string, options?: ImportOptions): ImportResult {
  return importTranscript('codex', text, options);
}

/** Converts OpenAI Responses input items or Chat Completions messages (JSON or JSONL). */
export function importOpenAI(text: string, options?: ImportOptions): ImportResult {
  return importTranscript('openai', text, options);
}
