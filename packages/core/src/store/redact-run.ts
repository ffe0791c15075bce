import * as z from 'zod';
import { taskEpisodeRef } from '../schema/artifact.js';
import { parseInput } from '../validation/parse-input.js';
import { storeSchema } from '../validation/store-schema.js';
import type { ArtifactStore } from './artifact-store.js';
import type { RunRedactReceipt, RunStore } from './run-store.js';
import type { StoredRedactionOptions } from './stored-redaction.js';

/** The stores that hold a run's caller-supplied bytes. */
export interface RunRedactionStores {
  /** The run store: the run's records, damaged lines and cached tool outputs. */
  runs: RunStore;
  /**
   * The artifact store, which keeps a copy of a task's metadata (the task episode `task:<run id>`,
   * whose metadata artifacts derive their effective metadata from; `run.start`'s `task.metadata`
   * is the run's own copy). Leave it out only when no task metadata was ever set there.
   */
  artifacts?: ArtifactStore | undefined;
}

const storesSchema = z.looseObject({
  runs: storeSchema<RunStore>(['redact'], 'a RunStore (see createRunStore)'),
  artifacts: storeSchema<ArtifactStore>(
    ['redactEpisodeMetadata'],
    'an ArtifactStore (see createArtifactStore)',
  ).optional(),
});

/**
 * Redacts a run with every stored copy of its caller-supplied bytes: the run itself
 * (`RunStore.redact`) and the metadata of its task episode in the artifact store
 * (`ArtifactStore.redactEpisodeMetadata`), with the same rules, each backend then removing the old
 * bytes from its files. The run goes first: `VALIDATION_ERROR`, `NOT_FOUND` or `UNSUPPORTED`
 * change nothing. Redacting again is harmless, so a call that failed half-way can be repeated.
 * Returns the run's receipt.
 *
 * ```ts
 * const store = createSqliteStore({ filename: 'episodic.db' });
 * await redactRun(store, runId); // or redactRun({ runs, artifacts }, runId, { mode: 'content' })
 * ```
 */
export async function redactRun(
  stores: RunRedactionStores,
  runId: string,
  options?: StoredRedactionOptions,
): Promise<RunRedactReceipt> {
  const { runs, artifacts } = parseInput(storesSchema, stores, 'redactRun stores');
  const receipt = await runs.redact(runId, options);
  await artifacts?.redactEpisodeMetadata(taskEpisodeRef(receipt.runId), options);
  return receipt;
}
