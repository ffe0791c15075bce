// Public exports of the package: the zod schemas of every `--json` receipt, listed by name.
export { anchorsCreateReceiptSchema, anchorsKeygenReceiptSchema } from './anchors-receipts.js';
export { doctorProblemSchema, doctorReceiptSchema } from './doctor-receipt.js';
export {
  episodesAppendReceiptSchema,
  episodesGcReceiptSchema,
  episodesQueryReceiptSchema,
  episodesRedactReceiptSchema,
  episodesReplayReceiptSchema,
} from './episodes-receipts.js';
export {
  exportOtelReceiptSchema,
  importClaudeCodeReceiptSchema,
  importCodexReceiptSchema,
  importOpenAIReceiptSchema,
} from './interop-receipts.js';
export { patternsSearchReceiptSchema, patternsShowReceiptSchema } from './patterns-receipts.js';
export type { ErrorReceipt } from './receipt-base.js';
export {
  errorReceiptSchema,
  RECEIPT_ERROR_CODES,
  receiptVersionSchema,
  successReceiptSchema,
} from './receipt-base.js';
export { RECEIPT_SCHEMAS, type ReceiptKind } from './receipt-schemas.js';
export {
  runRedactionSchema,
  runsRedactReceiptSchema,
  sessionRedactionSchema,
  sessionsRedactReceiptSchema,
} from './redaction-receipts.js';
export {
  runDamageSchema,
  runsGcReceiptSchema,
  runsListReceiptSchema,
  runsReplayReceiptSchema,
  runsShowReceiptSchema,
  runsTailDamageLineSchema,
  runsTailReceiptSchema,
  runsTailRecordLineSchema,
} from './runs-receipts.js';
export { completionReceiptSchema, scopesListReceiptSchema } from './scopes-receipts.js';
export { searchReceiptSchema, searchRunsReceiptSchema } from './search-receipt.js';
export {
  sessionsFoldReceiptSchema,
  sessionsListReceiptSchema,
  sessionsShowReceiptSchema,
} from './sessions-receipts.js';
export {
  tasksCompleteReceiptSchema,
  tasksCreateReceiptSchema,
  tasksDeleteReceiptSchema,
  tasksListReceiptSchema,
  tasksShowReceiptSchema,
  tasksStepReceiptSchema,
  tasksTimelineReceiptSchema,
} from './tasks-receipts.js';
export {
  exportReceiptSchema,
  importReceiptSchema,
  migrateReceiptSchema,
} from './transfer-receipts.js';
export { uiReceiptSchema } from './ui-receipt.js';
