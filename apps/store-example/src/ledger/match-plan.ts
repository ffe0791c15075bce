import type { LedgerEventType, LedgerQueryPlan, LedgerRow } from '../core-kit.js';

/** Whether a row is in a query plan's scope, session, time bounds, types and page. */
export function matchesQueryPlan(row: LedgerRow, plan: LedgerQueryPlan): boolean {
  if (plan.scope !== null && row.scope !== plan.scope) return false;
  if (plan.sessionId !== undefined && row.session_id !== plan.sessionId) return false;
  if (plan.fromTsMs !== undefined && row.ts_ms < plan.fromTsMs) return false;
  if (plan.toTsMs !== undefined && row.ts_ms > plan.toTsMs) return false;
  if (plan.types !== undefined && !plan.types.includes(row.type as LedgerEventType)) return false;
  const after = plan.after;
  if (after === undefined) return true;
  return row.ts_ms > after.tsMs || (row.ts_ms === after.tsMs && row.sequence > after.sequence);
}
