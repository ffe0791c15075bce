import {
  type AccessPolicy,
  type AccessPredicate,
  effectiveMetadata,
  type Ledger,
  type TaskLifecycle,
} from '@episodic/core';
import type { EpisodicMcpLogger } from '../logger.js';
import type { ScopedArtifactStore } from '../scope/scoped-artifact-store.js';
import type { ScopedRunView } from '../scope/scoped-run-store.js';

/** What a tool handler works with: the stores seen through the bound scope and policy. */
export interface ToolContext {
  readonly scope: string;
  readonly ledger: Ledger;
  readonly runs: ScopedRunView;
  readonly artifacts: ScopedArtifactStore;
  readonly lifecycle: TaskLifecycle;
  readonly policy: AccessPolicy | undefined;
  readonly visible: AccessPredicate | undefined;
  readonly maxResultChars: number;
  readonly logger: EpisodicMcpLogger | undefined;
}

/** A tool's implementation: parsed arguments in, a JSON-serializable result out (or a throw). */
export type ToolHandler = (args: never, context: ToolContext) => Promise<unknown>;

/** True when `metadata` satisfies the context's policy (always, without a policy). */
export function allowedByPolicy(context: ToolContext, metadata: unknown): boolean {
  return context.visible === undefined || context.visible(effectiveMetadata([metadata ?? null]));
}
