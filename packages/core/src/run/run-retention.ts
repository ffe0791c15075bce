import * as z from 'zod';
import { type ErasureBy, erasureBySchema } from '../chain/schemas.js';
import type { RunRecord } from '../schema/run-record.js';
import type { RunStore } from '../store/run-store.js';
import { parseInput } from '../validation/parse-input.js';

const DAY_MS = 86_400_000;
/** The scope of a run whose header names none (the scope the CLI and MCP server default to). */
const UNSCOPED_RUN_SCOPE = 'default';

/** Which runs expire: those whose last record is older than `olderThanDays` before `nowMs`. */
export interface RunRetentionPolicy {
  /** Age in days (0 to 1000000, fractions allowed) past which a run expires. */
  olderThanDays: number;
  /** Only runs of this scope (their header's `scope`; `default` when it has none). */
  scope?: string;
  /** Only runs whose header names this session. */
  sessionId?: string;
  /** The instant ages are measured from (ms since the epoch). @default Date.now() */
  nowMs?: number;
}

/** What the planner knows of one run. */
export interface RunRetentionCandidate {
  runId: string;
  /** The header's `started_at`: the run's age when its last record is unreadable. */
  startedAt: string;
  /** The `ts` of its last readable record, when there is one. */
  lastRecordAt?: string | undefined;
  /** The header's `session_id`. */
  sessionId?: string | undefined;
  /** The run's scope (its header's `scope`, or `default`). */
  scope?: string | undefined;
}

/** The planner's decision. */
export interface RunRetentionPlan {
  /** The cutoff (ms since the epoch): runs last written before it expire. */
  cutoffMs: number;
  /** The runs that expire, in the order given. */
  expired: string[];
  /** How many runs are kept (in scope and session, but too young or of unknown age). */
  kept: number;
}

const daysSchema = z
  .number()
  .min(0, 'must be at least 0 (days)')
  .max(1_000_000, 'must be at most 1000000 (days)');
const policySchema = z.strictObject({
  olderThanDays: daysSchema,
  scope: z.string().trim().min(1, 'must not be blank').optional(),
  sessionId: z.string().min(1, 'must not be blank').optional(),
  nowMs: z.number().int().nonnegative().optional(),
});
const candidateSchema = z.object({
  runId: z.string().min(1),
  startedAt: z.string(),
  lastRecordAt: z.string().optional(),
  sessionId: z.string().optional(),
  scope: z.string().optional(),
});

function ageMs(candidate: RunRetentionCandidate): number | undefined {
  for (const value of [candidate.lastRecordAt, candidate.startedAt]) {
    if (value === undefined) continue;
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  return undefined;
}

/**
 * Decides which runs expire under `policy` (no I/O). A run's time is its last record's `ts`, or
 * its `startedAt` when that is unreadable; it expires when that time is before `nowMs -
 * olderThanDays`. A run of unknown time is kept, and so is any run outside `scope` or `sessionId`.
 * A run that has not ended is treated like any other: kept while its last record is recent.
 */
export function planRunRetention(
  candidates: readonly RunRetentionCandidate[],
  policy: RunRetentionPolicy,
): RunRetentionPlan {
  const parsed = parseInput(policySchema, policy, 'run retention policy');
  parseInput(z.array(candidateSchema), candidates, 'run retention candidates');
  const cutoffMs = (parsed.nowMs ?? Date.now()) - parsed.olderThanDays * DAY_MS;
  const expired: string[] = [];
  let kept = 0;
  for (const candidate of candidates) {
    if (parsed.sessionId !== undefined && candidate.sessionId !== parsed.sessionId) continue;
    if (
      parsed.scope !== undefined &&
      (candidate.scope ?? UNSCOPED_RUN_SCOPE) !== parsed.scope.trim()
    ) {
      continue;
    }
    const time = ageMs(candidate);
    if (time !== undefined && time < cutoffMs) expired.push(candidate.runId);
    else kept += 1;
  }
  return { cutoffMs, expired, kept };
}

/** Options of `collectExpiredRuns`. */
export interface CollectExpiredRunsOptions extends RunRetentionPolicy {
  /** Count (and name) the runs that would be deleted; delete nothing. */
  dryRun?: boolean;
  /**
   * Who asks, recorded as the `by` of each `collect` erasure entry a chained store writes (a
   * command and its flag names, never their values). @default the library call
   */
  by?: ErasureBy;
}

/** What `collectExpiredRuns` did. */
export interface CollectExpiredRunsResult {
  dryRun: boolean;
  cutoffMs: number;
  /** Runs deleted, or that would be with `dryRun`. */
  deleted: number;
  /** The same count per scope (a scope with none deleted is left out). */
  byScope: Record<string, number>;
  /** Runs `list()` could not summarize (kept; never deleted). */
  unreadable: number;
  /** With `dryRun`, the runs that would be deleted. */
  runIds?: string[];
}

function scopeOfHeader(records: readonly RunRecord[]): string {
  const header = records.find((record) => record.type === 'header') as
    | Record<string, unknown>
    | undefined;
  const scope = header?.scope;
  return typeof scope === 'string' && scope !== '' ? scope : UNSCOPED_RUN_SCOPE;
}

/**
 * Deletes the runs of `runs` that `planRunRetention` expires under `options` (see there): lists
 * the runs (of `sessionId` only, when given), reads each one's last record, and reads in full
 * each run old enough to expire, to learn its scope from its header (a run that cannot be read is
 * kept). Runs `list()` cannot summarize are kept and counted.
 */
export async function collectExpiredRuns(
  runs: RunStore,
  options: CollectExpiredRunsOptions,
): Promise<CollectExpiredRunsResult> {
  const {
    dryRun = false,
    by,
    ...policy
  } = parseInput(
    policySchema.extend({ dryRun: z.boolean().optional(), by: erasureBySchema.optional() }),
    options,
    'run retention options',
  );
  const nowMs = policy.nowMs ?? Date.now();
  const resolved = { ...policy, nowMs };
  const listed = await runs.list(
    policy.sessionId === undefined ? {} : { sessionId: policy.sessionId },
  );
  const cutoffMs = nowMs - resolved.olderThanDays * DAY_MS;
  const candidates: RunRetentionCandidate[] = [];
  for (const summary of listed.runs) {
    const tail = await runs.tail(summary.runId, { count: 1 }).catch(() => undefined);
    const last = tail?.records.at(-1) as { ts?: unknown } | undefined;
    const candidate: RunRetentionCandidate = {
      runId: summary.runId,
      startedAt: summary.startedAt,
      lastRecordAt: typeof last?.ts === 'string' ? last.ts : undefined,
      sessionId: summary.sessionId,
    };
    const time = ageMs(candidate);
    // Only a run old enough to expire needs its header read, to learn its scope.
    if (time !== undefined && time < cutoffMs) {
      const read = await runs.read(summary.runId).catch(() => undefined);
      if (read === undefined) continue;
      candidate.scope = scopeOfHeader(read.records);
    }
    candidates.push(candidate);
  }
  const plan = planRunRetention(candidates, resolved);
  const scopes = new Map(candidates.map((candidate) => [candidate.runId, candidate.scope]));
  const byScope: Record<string, number> = {};
  let deleted = 0;
  for (const runId of plan.expired) {
    if (!dryRun && !(await runs.delete(runId, by === undefined ? undefined : { by }))) continue;
    deleted += 1;
    const scope = scopes.get(runId) ?? UNSCOPED_RUN_SCOPE;
    byScope[scope] = (byScope[scope] ?? 0) + 1;
  }
  return {
    dryRun,
    cutoffMs: plan.cutoffMs,
    deleted,
    byScope,
    unreadable: listed.errors.length,
    ...(dryRun ? { runIds: plan.expired } : {}),
  };
}
