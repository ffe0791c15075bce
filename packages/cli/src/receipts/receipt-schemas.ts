import { verifyReceiptSchema } from '@episodic/core/schemas';
import * as z from 'zod';
import { anchorsCreateReceiptSchema, anchorsKeygenReceiptSchema } from './anchors-receipts.js';
import { doctorReceiptSchema } from './doctor-receipt.js';
import {
  episodesAppendReceiptSchema,
  episodesGcReceiptSchema,
  episodesQueryReceiptSchema,
  episodesRedactReceiptSchema,
  episodesReplayReceiptSchema,
} from './episodes-receipts.js';
import {
  exportOtelReceiptSchema,
  importClaudeCodeReceiptSchema,
  importCodexReceiptSchema,
  importOpenAIReceiptSchema,
} from './interop-receipts.js';
import { patternsSearchReceiptSchema, patternsShowReceiptSchema } from './patterns-receipts.js';
import { runsRedactReceiptSchema, sessionsRedactReceiptSchema } from './redaction-receipts.js';
import {
  runsGcReceiptSchema,
  runsListReceiptSchema,
  runsReplayReceiptSchema,
  runsShowReceiptSchema,
  runsTailReceiptSchema,
} from './runs-receipts.js';
import { completionReceiptSchema, scopesListReceiptSchema } from './scopes-receipts.js';
import { searchReceiptSchema, searchRunsReceiptSchema } from './search-receipt.js';
import {
  sessionsFoldReceiptSchema,
  sessionsListReceiptSchema,
  sessionsShowReceiptSchema,
} from './sessions-receipts.js';
import {
  tasksCompleteReceiptSchema,
  tasksCreateReceiptSchema,
  tasksDeleteReceiptSchema,
  tasksListReceiptSchema,
  tasksShowReceiptSchema,
  tasksStepReceiptSchema,
  tasksTimelineReceiptSchema,
} from './tasks-receipts.js';
import {
  exportReceiptSchema,
  importReceiptSchema,
  migrateReceiptSchema,
} from './transfer-receipts.js';
import { uiReceiptSchema } from './ui-receipt.js';

/** The schema of every successful receipt, by `kind` (errors use `errorReceiptSchema`). */
export const RECEIPT_SCHEMAS = {
  'episodic.episodes.append.v1': episodesAppendReceiptSchema,
  'episodic.episodes.query.v1': episodesQueryReceiptSchema,
  'episodic.episodes.replay.v1': episodesReplayReceiptSchema,
  'episodic.episodes.redact.v1': episodesRedactReceiptSchema,
  'episodic.episodes.gc.v1': episodesGcReceiptSchema,
  'episodic.runs.list.v1': runsListReceiptSchema,
  'episodic.runs.show.v1': runsShowReceiptSchema,
  'episodic.runs.replay.v1': runsReplayReceiptSchema,
  'episodic.runs.tail.v1': runsTailReceiptSchema,
  'episodic.runs.gc.v1': runsGcReceiptSchema,
  'episodic.runs.redact.v1': runsRedactReceiptSchema,
  'episodic.sessions.list.v1': sessionsListReceiptSchema,
  'episodic.sessions.show.v1': sessionsShowReceiptSchema,
  'episodic.sessions.redact.v1': sessionsRedactReceiptSchema,
  'episodic.sessions.fold.v1': sessionsFoldReceiptSchema,
  'episodic.tasks.list.v1': tasksListReceiptSchema,
  'episodic.tasks.create.v1': tasksCreateReceiptSchema,
  'episodic.tasks.step.v1': tasksStepReceiptSchema,
  'episodic.tasks.complete.v1': tasksCompleteReceiptSchema,
  'episodic.tasks.show.v1': tasksShowReceiptSchema,
  'episodic.tasks.timeline.v1': tasksTimelineReceiptSchema,
  'episodic.tasks.delete.v1': tasksDeleteReceiptSchema,
  'episodic.patterns.search.v1': patternsSearchReceiptSchema,
  'episodic.patterns.show.v1': patternsShowReceiptSchema,
  'episodic.scopes.list.v1': scopesListReceiptSchema,
  /** Ledger events, or run records with `--runs` (`runs: true`). */
  'episodic.search.v1': z.union([searchReceiptSchema, searchRunsReceiptSchema]),
  'episodic.doctor.v1': doctorReceiptSchema,
  /** An Episodic export (`-o FILE`), or traces (`--otel FILE`: `format: "otlp-json"`). */
  'episodic.export.v1': z.union([exportReceiptSchema, exportOtelReceiptSchema]),
  'episodic.import.v1': importReceiptSchema,
  'episodic.migrate.v1': migrateReceiptSchema,
  'episodic.import.claude-code.v1': importClaudeCodeReceiptSchema,
  'episodic.import.codex.v1': importCodexReceiptSchema,
  'episodic.import.openai.v1': importOpenAIReceiptSchema,
  'episodic.completion.v1': completionReceiptSchema,
  'episodic.ui.v1': uiReceiptSchema,
  /**
   * The chain verification (core's `verifyReceiptSchema`): the report when no finding is an
   * error, else the failure shape (`ok: false`, `code: "CORRUPT_DATA"`) with the report under
   * `details`.
   */
  'episodic.verify.v1': verifyReceiptSchema,
  'episodic.anchors.keygen.v1': anchorsKeygenReceiptSchema,
  'episodic.anchors.create.v1': anchorsCreateReceiptSchema,
} as const;

/** The kind of a successful receipt. */
export type ReceiptKind = keyof typeof RECEIPT_SCHEMAS;
