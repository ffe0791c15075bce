import type { ArtifactStoreOptions, LedgerOptions } from '@episodic/core';

/** How a command opens the stores. */
export interface StoreAccess {
  /**
   * The command only reads: nothing is created or changed (a missing home or database reads as
   * empty). Every listing and `show` command opens the stores this way.
   * @default false
   */
  readonly readOnly?: boolean;
  /** Ledger rules for this command (caps, clock). @default core's defaults */
  readonly ledger?: LedgerOptions;
  /** The artifact store's clock (import stamps artifacts with their exported times). */
  readonly artifacts?: ArtifactStoreOptions;
}
