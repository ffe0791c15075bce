import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';
import { runSelectionShape } from './transfer-receipts.js';

const count = z.number().int().nonnegative();
const status = z.enum(['created', 'updated', 'unchanged', 'conflict', 'skipped']);

/** What one `import claude-code|codex|openai` did with one conversation. */
const conversationReceiptSchema = z.object({
  /** The Episodic session id (derived from the source: the same on every import). */
  session_id: z.string(),
  format: z.string(),
  /** The conversation's id in its source (a Claude Code or Codex session id, an OpenAI response id, or a content hash). */
  source_key: z.string(),
  title: z.string().nullable(),
  /** The snapshot: new, continued (next revision), the same, in conflict, or not written (no session store). */
  session: status,
  runs: z.object({ created: count, extended: count, unchanged: count, conflicts: count }),
  /** Run records appended (with `--dry-run`: that would be). */
  records_written: count,
  /** Ledger events appended and already present (with `--dry-run`, `appended` counts every projected event). */
  events: z.object({ appended: count, unchanged: count }),
  /** Why the conversation was not written; empty when it was. */
  conflicts: z.array(z.string()),
  /** Why the stores refused the conversation or another of its file (nothing of the file is written), or null. */
  error: z.string().nullable(),
  /** The file it came from (`stdin` for `-`), or null. */
  source: z.string().nullable(),
  /** The session that started this one (a Claude Code sub-agent's parent session), or null. */
  parent_session_id: z.string().nullable(),
});

function importTranscriptsReceipt<Kind extends string>(kind: Kind) {
  return successReceiptSchema(kind, {
    format: z.enum(['claude-code', 'codex', 'openai']),
    /** The file or folder read (absolute), or `-` for stdin. */
    input: z.string(),
    /** How many files were read. */
    files: count,
    dry_run: z.boolean(),
    /** The ledger scope the events went to, or null with `--no-ledger`. */
    scope: z.string().nullable(),
    totals: z.object({
      conversations: count,
      sessions: z.object({ created: count, updated: count, unchanged: count, conflict: count }),
      runs: z.object({ created: count, extended: count, unchanged: count, conflicts: count }),
      records_written: count,
      events: z.object({ appended: count, unchanged: count }),
    }),
    conversations: z.array(conversationReceiptSchema),
    /**
     * Each file read (all or nothing per file): `imported` (written, or already there), `refused`
     * (the stores refused one of its conversations: nothing of it was written), `conflict`, or
     * `empty` (nothing to import). With `--dry-run`: what the import would do.
     */
    file_results: z.array(
      z.object({
        file: z.string(),
        status: z.enum(['imported', 'refused', 'conflict', 'empty']),
        conversations: count,
        reason: z.string().nullable(),
      }),
    ),
    /** Files most of whose message entries were kept as raw data (a format version the importer may not understand). */
    warnings: z.array(z.object({ source: z.string().nullable(), message: z.string() })),
    /** Damaged lines and unreadable files, all counted; the first 100 listed. */
    problems_total: count,
    problems: z.array(
      z.object({
        source: z.string().nullable(),
        line: z.number().int().positive().nullable(),
        message: z.string(),
      }),
    ),
  });
}

/** `import claude-code PATH --json`. */
export const importClaudeCodeReceiptSchema = importTranscriptsReceipt(
  'episodic.import.claude-code.v1',
);
/** `import codex PATH --json`. */
export const importCodexReceiptSchema = importTranscriptsReceipt('episodic.import.codex.v1');
/** `import openai FILE --json`. */
export const importOpenAIReceiptSchema = importTranscriptsReceipt('episodic.import.openai.v1');

/** `export --otel FILE --json`: the runs written as OTLP JSON traces. */
export const exportOtelReceiptSchema = successReceiptSchema('episodic.export.v1', {
  format: z.literal('otlp-json'),
  /** The file written (absolute). */
  output: z.string(),
  selection: z.object(runSelectionShape),
  /** Runs turned into traces. */
  runs: count,
  spans: z.object({ total: count, invoke_agent: count, chat: count, execute_tool: count }),
  /** Whether message content, tool arguments and results were recorded (`--otel-content`). */
  content: z.boolean(),
  service_name: z.string(),
  bytes: count,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  skipped_damaged_lines: count,
  warnings: z.array(z.string()),
});
