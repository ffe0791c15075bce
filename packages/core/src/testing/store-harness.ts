import type { Sha256 } from '../chain/formulas.js';
import type { ArtifactStore } from '../store/artifact-store.js';
import type { Ledger } from '../store/ledger-store.js';
import type { RunStore } from '../store/run-store.js';
import type { SessionStore } from '../store/session-store.js';
import type { ConformanceChildResult, ConformanceChildTask } from './conformance-child.js';

/**
 * Hooks that write raw bytes underneath a store, so the conformance suite can check that reads
 * tolerate damage a crash or another tool leaves behind. Each hook is optional; the tests that need
 * one run only when the matching capability is declared.
 */
export interface StoreDamageHooks {
  /** Appends raw bytes to an existing run's stored data (a torn write, a NUL run…). */
  appendRawToRun?(runId: string, bytes: Uint8Array): Promise<void>;
  /** Replaces an existing run's stored data with raw bytes (e.g. a BOM-prefixed or garbage file). */
  replaceRawRun?(runId: string, bytes: Uint8Array): Promise<void>;
  /** Writes raw bytes as a session's stored snapshot (creating or replacing it). */
  writeRawSnapshot?(sessionId: string, bytes: Uint8Array): Promise<void>;
  /** Appends raw bytes after a session's stored deltas (a torn commit, garbage). */
  appendRawToDeltas?(sessionId: string, bytes: Uint8Array): Promise<void>;
  /**
   * Changes a stored ledger event's summary or session id underneath the ledger (`'delete'`:
   * deletes its row), as another program editing the store would. Runs the ledger chain's tamper
   * tests.
   */
  changeLedgerRow?(
    eventId: string,
    change: { summary: string } | { session_id: string } | 'delete',
  ): Promise<void>;
  /**
   * Inserts a ledger event as another program that shares the store does (openclaw-mem: its own
   * column list, no position, no chain columns). Runs the ledger chain's shared-stream tests.
   */
  insertForeignLedgerRow?(row: {
    event_id: string;
    scope: string;
    session_id: string;
    ts_ms: number;
    summary: string;
  }): Promise<void>;
}

/**
 * One fresh, empty set of stores, created per test (a new directory or database). A harness
 * provides the contracts its backend implements; the suites of the others are skipped with a
 * stated reason.
 */
export interface StoreHarness {
  /** The run store under test. */
  runs?: RunStore;
  /** The session store under test. */
  sessions?: SessionStore;
  /** The ledger under test, created with the default options (caps, guards, retention). */
  ledger?: Ledger;
  /**
   * The same ledger (same store) with chaining off, for a chaining ledger: what an Episodic that
   * predates chaining (or runs with it off) appends. Runs the unchained-prefix test.
   */
  unchainedLedger?: Ledger;
  /** The SHA-256 the ledger chains with (`Ledger.verifyChain` needs it); set with `capabilities.chain`. */
  chainSha256?: Sha256;
  /** The artifact store under test (artifacts, associations, episode metadata). */
  artifacts?: ArtifactStore;
  /** Raw-damage hooks (see `StoreConformanceCapabilities`). */
  damage?: StoreDamageHooks;
  /**
   * Runs `task` in a real child process that opens the same stores as this harness and calls
   * `runConformanceChild(stores, task)` from `@episodic/core/testing/child`, and resolves with
   * the result it printed. Needed by `capabilities.crossProcess`.
   */
  runInChild?(task: ConformanceChildTask): Promise<ConformanceChildResult>;
  /**
   * Drops the ledger's search index and builds it again from the stored rows. Runs the rebuild
   * test of `Ledger.search` (skipped without it: the memory ledger keeps no index to drop).
   */
  rebuildSearchIndex?(): Promise<void>;
  /**
   * Drops the run store's search index and builds it again from the stored records. Runs the
   * rebuild test of `RunStore.search` (skipped without it: the memory run store keeps no index).
   */
  rebuildRunSearchIndex?(): Promise<void>;
  /**
   * For a run store that declares `chain`: what the chain tests need to verify what it stored
   * (the runs/chain spec's verification tests are skipped without it).
   */
  chain?: StoreHarnessChain;
  /** Closes the stores and removes what the harness created. */
  close(): Promise<void>;
}

/** A chaining harness's hooks (`StoreHarness.chain`). */
export interface StoreHarnessChain {
  /** A synchronous SHA-256 (Node: `crypto.hash('sha256', bytes, 'buffer')`), for the verifier. */
  sha256(bytes: Uint8Array): Uint8Array;
  /** The run's stored lines, unparsed (the adapter's `readChain`), or null when it does not exist. */
  readRunChain(runId: string): Promise<readonly { line: number; text: string }[] | null>;
  /**
   * The erasure entries the store recorded (its erasure log, parsed), for the verifier's
   * `erasures`; absent when the store keeps no erasure log (redaction tests are skipped).
   */
  readErasures?(): Promise<readonly unknown[]>;
  /** The store takes the run's lock on every plain append (`chain: 'strict'`): no forks. */
  strict?: boolean;
}

/** Creates a fresh harness; called once per test. */
export type CreateStoreHarness = () => StoreHarness | Promise<StoreHarness>;

/** Optional features of a harness, declared as data. Undeclared features are skipped, with a reason. */
export interface StoreConformanceCapabilities {
  /** `damage.appendRawToRun` and `damage.replaceRawRun` work: runs the damaged-run tests. @default false */
  readonly runDamage?: boolean;
  /** `damage.writeRawSnapshot` works: runs the damaged-snapshot tests. @default false */
  readonly snapshotDamage?: boolean;
  /**
   * Session deltas are stored as text lines (files) and `damage.appendRawToDeltas` works: runs
   * the torn-commit tests. @default false
   */
  readonly deltaDamage?: boolean;
  /**
   * Runs are stored as text lines (run files, the memory store): a last line can lack its newline
   * (a torn write) and blank lines are no entries. Runs the torn-tail and blank-line position tests.
   * @default false
   */
  readonly runText?: boolean;
  /**
   * `runInChild` works: runs the cross-process tests (several child processes racing
   * compare-and-appends on one run) for stores that declare `crossProcessAppends`. @default false
   */
  readonly crossProcess?: boolean;
  /**
   * A session load reads the base and its deltas as one snapshot of the store, even while other
   * processes fold: the cross-process read race then asserts that no load had to read a session
   * a second time (a store without it, files for one, may). @default false
   */
  readonly snapshotLoads?: boolean;
}
