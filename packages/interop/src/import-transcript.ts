import { parseInput } from '@episodic/core/adapter';
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
  const parsed = problems.length;
  const conversations = sources.map((source) =>
    buildConversation(source, problems, {
      ...(checked?.time === undefined ? {} : { fallbackTime: checked.time }),
      ...(checked?.label === undefined ? {} : { label: checked.label }),
    }),
  );
  // Every problem of the build is an item the log refused (kept as raw data).
  const warning = mostlyRaw(sources, problems.length - parsed, checked?.label);
  return { format, conversations, problems, warnings: warning === undefined ? [] : [warning] };
}

/**
 * A warning when most of the message entries of a text ended up as raw data: more entries kept as
 * `import.raw` for a reason other than having no model meaning (abandoned branches, messages
 * without content, refused items) than entries mapped to items and boundaries.
 */
function mostlyRaw(
  sources: readonly SourceConversation[],
  refused: number,
  label: string | undefined,
): ImportProblem | undefined {
  let mapped = -refused;
  let unmapped = refused;
  const reasons = new Map<string, number>();
  for (const source of sources) {
    for (const entry of source.entries) {
      if (entry.kind === 'item' || entry.kind === 'boundary') mapped++;
      else if (entry.kind === 'raw' && entry.routine !== true) {
        unmapped++;
        reasons.set(entry.reason, (reasons.get(entry.reason) ?? 0) + 1);
      }
    }
  }
  if (unmapped === 0 || unmapped <= mapped) return undefined;
  if (refused > 0) reasons.set('refused by the log', refused);
  const why = [...reasons]
    .sort((left, right) => right[1] - left[1])
    .slice(0, 3)
    .map(([reason, count]) => `${count} ${reason}`)
    .join(', ');
  return {
    ...(label === undefined ? {} : { source: label }),
    message: `most message entries were kept as raw data, not as messages, calls and outputs (${unmapped} of ${unmapped + Math.max(mapped, 0)}: ${why}); this may be a version of the format the importer does not understand: check the session, and report it with the agent's version`,
  };
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
