// redactRun over the harness's RunStore and ArtifactStore: both copies of a task's metadata
// scrubbed alike.
import { expect, it, type TestContext } from 'vitest';
import { createTaskLifecycle } from '../../../lifecycle/task-lifecycle.js';
import type { Metadata } from '../../../schema/metadata.js';
import { redactRun } from '../../../store/redact-run.js';
import type { RunStore } from '../../../store/run-store.js';
import type { StoredRedactionMode } from '../../../store/stored-redaction.js';
import { expectEpisodicError, requireCapability } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { AWS, GITHUB, SECRET_METADATA } from './fixtures.js';

/** Registers the tests of `redactRun` with the harness's `RunStore` and `ArtifactStore`. */
export function artifactRedactRunTests({ open }: ContractGroup<'artifacts'>): void {
  const openBoth = async (context: TestContext) => {
    const { harness, store } = await open(context);
    const runs = harness.runs as RunStore | undefined;
    if (runs === undefined) context.skip('the harness provides no RunStore (StoreHarness.runs)');
    requireCapability(context, runs?.capabilities.redaction, 'redaction (RunStore)');
    const lifecycle = createTaskLifecycle({ runs: runs as RunStore, artifacts: store });
    const createTask = async () =>
      (
        await lifecycle.createTask({
          task_description: 'Rotate the keys',
          domain: 'ops',
          task_type: 'analysis',
          metadata: SECRET_METADATA,
        })
      ).id;
    /** The run's own copy of the task metadata (`run.start`'s `task.metadata`). */
    const runCopy = async (id: string) =>
      (
        (await (runs as RunStore).read(id)).records.find(
          (record) => record.type === 'run.start',
        ) as unknown as { task: { metadata: Metadata } }
      ).task.metadata;
    return { runs: runs as RunStore, artifacts: store, createTask, runCopy };
  };

  for (const mode of ['secrets', 'content'] as StoredRedactionMode[]) {
    it(`scrubs the run and its task's metadata in the artifact store alike (${mode})`, async (context) => {
      const { runs, artifacts, createTask, runCopy } = await openBoth(context);
      const id = await createTask();
      const ref = `task:${id}`;
      expect(await artifacts.getEpisodeMetadata(ref)).toEqual(SECRET_METADATA);
      const receipt = await redactRun({ runs, artifacts }, id, { mode });
      expect(receipt).toMatchObject({ runId: id, mode });
      const copy = await artifacts.getEpisodeMetadata(ref);
      // One set of rules: the artifact store's copy is exactly the run's.
      expect(copy).toEqual(await runCopy(id));
      expect(copy).not.toEqual(SECRET_METADATA);
      const text = JSON.stringify(copy);
      for (const secret of [AWS, GITHUB]) expect(text).not.toContain(secret);
      // Again: nothing left to replace in either copy.
      expect(await redactRun({ runs, artifacts }, id, { mode })).toMatchObject({
        changedLines: 0,
        replacements: 0,
      });
      expect(await artifacts.getEpisodeMetadata(ref)).toEqual(copy);
    });
  }

  it('changes neither copy for an unknown run or bad input', async (context) => {
    const { runs, artifacts, createTask, runCopy } = await openBoth(context);
    const id = await createTask();
    // Metadata of a task whose run does not exist (an id the run store never saw).
    const missing = '0f0e0d0c-0b0a-4908-8706-00000000abcd';
    await artifacts.setEpisodeMetadata(`task:${missing}`, SECRET_METADATA);
    await expectEpisodicError(redactRun({ runs, artifacts }, missing), 'NOT_FOUND');
    expect(await artifacts.getEpisodeMetadata(`task:${missing}`)).toEqual(SECRET_METADATA);
    await expectEpisodicError(
      redactRun({ runs, artifacts }, id, { mode: 'all' as never }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(redactRun({ runs, artifacts }, '../etc'), 'VALIDATION_ERROR');
    const error = await expectEpisodicError(
      redactRun({ runs: {} as RunStore, artifacts }, id),
      'VALIDATION_ERROR',
    );
    expect(error.message).toContain('RunStore');
    await expectEpisodicError(
      redactRun({ runs, artifacts: { get: () => null } as never }, id),
      'VALIDATION_ERROR',
    );
    expect(await runCopy(id)).toEqual(SECRET_METADATA);
    expect(await artifacts.getEpisodeMetadata(`task:${id}`)).toEqual(SECRET_METADATA);
  });
}
