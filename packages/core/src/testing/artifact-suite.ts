import { describe, expect, it } from 'vitest';
import { createTaskLifecycle } from '../lifecycle/task-lifecycle.js';
import type { Metadata } from '../schema/metadata.js';
import type { Artifact, ArtifactStore } from '../store/artifact-store.js';
import { redactRun } from '../store/redact-run.js';
import type { RunStore } from '../store/run-store.js';
import type { StoredRedactionMode } from '../store/stored-redaction.js';
import type { CreateStoreHarness, StoreConformanceCapabilities } from './store-harness.js';
import { expectEpisodicError, openStore, requireCapability } from './suite-helpers.js';

const CONTRACT = 'ArtifactStore';

const TASK_1 = 'task:6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
const TASK_2 = 'task:7a2d3b5f-4c6e-4d8f-8a91-2b3c4d5e6f70';
const TASK_3 = 'task:8b3e4c60-5d7f-4e90-9ba2-3c4d5e6f7081';
const SESSION_EPISODE = 'session:9c4f5d71-6e80-4fa1-8cb3-4d5e6f708192#12';
const LEDGER_EVENT = 'ledger:01J9ZQ4V8N3K2M1P0R5S6T7U8W';

const AWS = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');
const GITHUB = ['ghp_', 'a1B2c3D4e5F6g7H8'.repeat(3).slice(0, 36)].join('');
/** Task metadata with secrets in values, in an array and in a key. */
const SECRET_METADATA: Metadata = {
  tenant: 'acme',
  token: GITHUB,
  tags: ['billing', `aws ${AWS}`],
  [`note ${AWS}`]: 'key with a secret',
  priority: 3,
};

/** Everything a store holds, read back through the public API (for "nothing changed" checks). */
async function snapshot(store: ArtifactStore, episodes: readonly string[]) {
  const artifacts = await store.list({ limit: 500 });
  const metadata = await Promise.all(episodes.map((ref) => store.getEpisodeMetadata(ref)));
  return { artifacts, metadata };
}

/** Registers the `ArtifactStore` contract tests (see `describeStoreConformance`). */
export function describeArtifactStoreSuite(
  createHarness: CreateStoreHarness,
  _capabilities: StoreConformanceCapabilities,
): void {
  const open = async (context: Parameters<typeof openStore>[0]) =>
    openStore(context, createHarness, 'artifacts', CONTRACT);

  describe(CONTRACT, () => {
    it('declares its capabilities as data', async (context) => {
      const { store } = await open(context);
      expect(typeof store.name).toBe('string');
      expect(typeof store.capabilities.atomicWrites).toBe('boolean');
      expect(typeof store.capabilities.crossProcess).toBe('boolean');
    });

    it('upserts an artifact with its episodes and reads it back; a missing key reads as null', async (context) => {
      const { store } = await open(context);
      expect(await store.get('pattern:none')).toBeNull();
      const created = await store.upsert({
        key: 'tool_sequence:abc',
        kind: 'pattern',
        content: { type: 'tool_sequence', tools: ['planner', 'coder'] },
        episodes: [TASK_1, SESSION_EPISODE, LEDGER_EVENT],
      });
      expect(created).toMatchObject({
        key: 'tool_sequence:abc',
        kind: 'pattern',
        content: { type: 'tool_sequence', tools: ['planner', 'coder'] },
        episodes: [TASK_1, SESSION_EPISODE, LEDGER_EVENT],
        effectiveMetadata: {},
      });
      expect(created.createdAt).toBe(created.updatedAt);
      expect(await store.get('tool_sequence:abc')).toEqual(created);
    });

    it('adds associations on a repeated upsert, never duplicating one, and keeps their order', async (context) => {
      const { store } = await open(context);
      const first = await store.upsert({
        key: 'p:1',
        kind: 'pattern',
        content: { version: 1 },
        episodes: [TASK_1, TASK_2],
      });
      const second = await store.upsert({
        key: 'p:1',
        kind: 'pattern',
        content: { version: 2 },
        episodes: [TASK_2, TASK_3, TASK_1, TASK_3],
      });
      expect(second.episodes).toEqual([TASK_1, TASK_2, TASK_3]);
      expect(second.content).toEqual({ version: 2 });
      expect(second.createdAt).toBe(first.createdAt);
      expect(second.updatedAt >= first.updatedAt).toBe(true);
      expect((await store.list()).artifacts.map((artifact) => artifact.key)).toEqual(['p:1']);
    });

    it('normalizes episode references: an upper-case UUID is the same episode', async (context) => {
      const { store } = await open(context);
      await store.upsert({ key: 'p:1', kind: 'pattern', content: 1, episodes: [TASK_1] });
      const again = await store.upsert({
        key: 'p:1',
        kind: 'pattern',
        content: 1,
        episodes: [TASK_1.toUpperCase().replace('TASK:', 'task:')],
      });
      expect(again.episodes).toEqual([TASK_1]);
      await store.setEpisodeMetadata(TASK_1.toUpperCase().replace('TASK:', 'task:'), { a: 1 });
      expect(await store.getEpisodeMetadata(TASK_1)).toEqual({ a: 1 });
    });

    it('rejects an upsert of an existing key with another kind with CONFLICT, changing nothing', async (context) => {
      const { store } = await open(context);
      await store.upsert({ key: 'k:1', kind: 'pattern', content: 'a', episodes: [TASK_1] });
      const before = await snapshot(store, [TASK_1, TASK_2]);
      const error = await expectEpisodicError(
        store.upsert({ key: 'k:1', kind: 'reflection', content: 'b', episodes: [TASK_2] }),
        'CONFLICT',
      );
      expect(error.message).toContain('k:1');
      expect(await snapshot(store, [TASK_1, TASK_2])).toEqual(before);
    });

    it("projects effective metadata: per key, distinct values in first-seen order (seed 003's example)", async (context) => {
      const { store } = await open(context);
      await store.setEpisodeMetadata(TASK_1, { source: 'crm', priority: 5 });
      await store.setEpisodeMetadata(TASK_2, { source: 'support_ticket', reviewed: true });
      await store.upsert({
        key: 'edge:1',
        kind: 'pattern',
        content: {},
        episodes: [TASK_1, TASK_2],
      });
      expect((await store.get('edge:1'))?.effectiveMetadata).toStrictEqual({
        source: ['crm', 'support_ticket'],
        priority: [5],
        reviewed: [true],
      });
      // Metadata set after the association is projected too; clearing it removes the contribution.
      await store.setEpisodeMetadata(TASK_2, { source: 'crm', tags: ['a', 'b'] });
      expect((await store.get('edge:1'))?.effectiveMetadata).toStrictEqual({
        source: ['crm'],
        priority: [5],
        tags: ['a', 'b'],
      });
      await store.setEpisodeMetadata(TASK_1, null);
      expect(await store.getEpisodeMetadata(TASK_1)).toBeNull();
      expect((await store.get('edge:1'))?.effectiveMetadata).toStrictEqual({
        source: ['crm'],
        tags: ['a', 'b'],
      });
    });

    it('matches a filter only when ONE associated episode satisfies the whole group', async (context) => {
      const { store } = await open(context);
      await store.setEpisodeMetadata(TASK_1, { source: 'crm', priority: 1 });
      await store.setEpisodeMetadata(TASK_2, { source: 'support_ticket', priority: 9 });
      await store.upsert({
        key: 'a:split',
        kind: 'pattern',
        content: 1,
        episodes: [TASK_1, TASK_2],
      });
      await store.upsert({ key: 'b:other', kind: 'pattern', content: 2, episodes: [TASK_2] });
      const crmAndUrgent = {
        type: 'and' as const,
        filters: [
          { property_name: 'source', comparison_operator: '=' as const, property_value: 'crm' },
          { property_name: 'priority', comparison_operator: '>=' as const, property_value: 5 },
        ],
      };
      const keys = async (filter: typeof crmAndUrgent | object) =>
        (await store.list({ filter: filter as typeof crmAndUrgent })).artifacts.map(
          (artifact) => artifact.key,
        );
      // source=crm holds in TASK_1 and priority>=5 in TASK_2: never in one episode.
      expect(await keys(crmAndUrgent)).toEqual([]);
      expect(await keys({ ...crmAndUrgent, type: 'or' })).toEqual(['a:split', 'b:other']);
      await store.setEpisodeMetadata(TASK_3, { source: 'crm', priority: 7 });
      await store.upsert({ key: 'a:split', kind: 'pattern', content: 1, episodes: [TASK_3] });
      expect(await keys(crmAndUrgent)).toEqual(['a:split']);
      expect(
        await keys({
          type: 'and',
          filters: [{ property_name: 'reviewed', comparison_operator: 'IS NULL' }],
        }),
      ).toEqual(['a:split', 'b:other']);
    });

    it('hides artifacts whose effective metadata does not satisfy the access policy', async (context) => {
      const { store } = await open(context);
      await store.setEpisodeMetadata(TASK_1, { tenant: 'acme' });
      await store.setEpisodeMetadata(TASK_2, { tenant: 'globex' });
      await store.upsert({ key: 'a:acme', kind: 'pattern', content: 1, episodes: [TASK_1] });
      await store.upsert({
        key: 'b:both',
        kind: 'pattern',
        content: 2,
        episodes: [TASK_1, TASK_2],
      });
      await store.upsert({ key: 'c:untagged', kind: 'pattern', content: 3, episodes: [TASK_3] });
      const acme = { required: { tenant: 'acme' } };
      expect(
        (await store.list({ policy: acme })).artifacts.map((artifact) => artifact.key),
      ).toEqual(['a:acme']);
      expect(await store.get('b:both', { policy: acme })).toBeNull();
      expect(await store.get('c:untagged', { policy: acme })).toBeNull();
      expect((await store.get('a:acme', { policy: acme }))?.key).toBe('a:acme');
      expect(
        (await store.list({ policy: { required: { tenant: ['acme', 'globex'] } } })).artifacts.map(
          (artifact) => artifact.key,
        ),
      ).toEqual(['a:acme', 'b:both']);
    });

    it('deletes an artifact only when its last associated episode is deleted', async (context) => {
      const { store } = await open(context);
      await store.setEpisodeMetadata(TASK_1, { source: 'crm' });
      await store.setEpisodeMetadata(TASK_2, { source: 'erp' });
      await store.upsert({ key: 'only:1', kind: 'pattern', content: 1, episodes: [TASK_1] });
      await store.upsert({
        key: 'shared:1',
        kind: 'pattern',
        content: 2,
        episodes: [TASK_1, TASK_2],
      });
      const receipt = await store.deleteEpisode(TASK_1);
      expect(receipt).toEqual({
        episode: TASK_1,
        deletedArtifacts: ['only:1'],
        updatedArtifacts: ['shared:1'],
        removedMetadata: true,
      });
      expect(await store.get('only:1')).toBeNull();
      const shared = await store.get('shared:1');
      expect(shared?.episodes).toEqual([TASK_2]);
      // TASK_1's contribution to the effective metadata is gone.
      expect(shared?.effectiveMetadata).toStrictEqual({ source: ['erp'] });
      expect(await store.getEpisodeMetadata(TASK_1)).toBeNull();
      expect(await store.deleteEpisode(TASK_2)).toEqual({
        episode: TASK_2,
        deletedArtifacts: ['shared:1'],
        updatedArtifacts: [],
        removedMetadata: true,
      });
      expect((await store.list()).artifacts).toEqual([]);
      expect(await store.deleteEpisode(TASK_3)).toEqual({
        episode: TASK_3,
        deletedArtifacts: [],
        updatedArtifacts: [],
        removedMetadata: false,
      });
    });

    it('lists in key order, by kind and by episode, with paging', async (context) => {
      const { store } = await open(context);
      for (const key of ['c', 'a', 'e', 'b', 'd']) {
        await store.upsert({
          key: `x:${key}`,
          kind: key === 'e' ? 'reflection' : 'pattern',
          content: key,
          episodes: key === 'a' || key === 'd' ? [TASK_2] : [TASK_1],
        });
      }
      const first = await store.list({ limit: 2 });
      expect(first.artifacts.map((artifact) => artifact.key)).toEqual(['x:a', 'x:b']);
      expect(first.nextKey).toBe('x:b');
      const second = await store.list({ limit: 2, afterKey: first.nextKey as string });
      expect(second.artifacts.map((artifact) => artifact.key)).toEqual(['x:c', 'x:d']);
      const last = await store.list({ limit: 2, afterKey: second.nextKey as string });
      expect(last.artifacts.map((artifact) => artifact.key)).toEqual(['x:e']);
      expect(last.nextKey).toBeNull();
      expect(
        (await store.list({ kind: 'reflection' })).artifacts.map((artifact) => artifact.key),
      ).toEqual(['x:e']);
      expect(
        (await store.list({ episode: TASK_2 })).artifacts.map((artifact) => artifact.key),
      ).toEqual(['x:a', 'x:d']);
      expect(
        (
          await store.list({ episode: TASK_1, kind: 'pattern', limit: 1, afterKey: 'x:b' })
        ).artifacts.map((artifact) => artifact.key),
      ).toEqual(['x:c']);
    });

    it('pages through more artifacts than one backend batch, with a filter', async (context) => {
      const { store } = await open(context);
      await store.setEpisodeMetadata(TASK_1, { even: true });
      await store.setEpisodeMetadata(TASK_2, { even: false });
      for (let index = 0; index < 450; index++) {
        await store.upsert({
          key: `n:${String(index).padStart(4, '0')}`,
          kind: 'pattern',
          content: index,
          episodes: [index % 2 === 0 ? TASK_1 : TASK_2],
        });
      }
      const filter = {
        type: 'and' as const,
        filters: [
          { property_name: 'even', comparison_operator: '=' as const, property_value: true },
        ],
      };
      const seen: number[] = [];
      let afterKey: string | undefined;
      for (;;) {
        const page = await store.list({ filter, limit: 150, afterKey });
        seen.push(...page.artifacts.map((artifact) => artifact.content as number));
        if (page.nextKey === null) break;
        afterKey = page.nextKey;
      }
      expect(seen).toEqual(Array.from({ length: 225 }, (_, index) => index * 2));
    });

    it('returns fresh copies: changing what was read never changes the store', async (context) => {
      const { store } = await open(context);
      await store.setEpisodeMetadata(TASK_1, { tags: ['a'] });
      await store.upsert({
        key: 'p:1',
        kind: 'pattern',
        content: { tools: ['a'] },
        episodes: [TASK_1],
      });
      const artifact = (await store.get('p:1')) as Artifact;
      try {
        (artifact.content as { tools: string[] }).tools.push('mutated');
        artifact.episodes.push(TASK_2);
        artifact.effectiveMetadata.tags?.push('mutated');
      } catch {
        // Frozen results are fine too.
      }
      const metadata = (await store.getEpisodeMetadata(TASK_1)) as Metadata;
      try {
        (metadata.tags as string[]).push('mutated');
      } catch {
        // Frozen results are fine too.
      }
      expect(await store.get('p:1')).toMatchObject({
        content: { tools: ['a'] },
        episodes: [TASK_1],
        effectiveMetadata: { tags: ['a'] },
      });
      expect(await store.getEpisodeMetadata(TASK_1)).toEqual({ tags: ['a'] });
    });

    it("redacts an episode's metadata in place, values and keys, idempotently", async (context) => {
      const { store } = await open(context);
      await store.setEpisodeMetadata(TASK_1, SECRET_METADATA);
      await store.upsert({ key: 'p:1', kind: 'pattern', content: 1, episodes: [TASK_1] });
      const receipt = await store.redactEpisodeMetadata(
        TASK_1.toUpperCase().replace('TASK:', 'task:'),
      );
      expect(receipt).toEqual({ episode: TASK_1, changed: true, replacements: 3 });
      const redacted = (await store.getEpisodeMetadata(TASK_1)) as Metadata;
      const text = JSON.stringify(redacted);
      for (const secret of [AWS, GITHUB]) expect(text).not.toContain(secret);
      expect(redacted).toMatchObject({ tenant: 'acme', priority: 3 });
      expect(Object.keys(redacted)).toHaveLength(Object.keys(SECRET_METADATA).length);
      // Artifacts derive their effective metadata from the redacted copy.
      expect(JSON.stringify((await store.get('p:1'))?.effectiveMetadata)).not.toContain(AWS);
      expect(await store.redactEpisodeMetadata(TASK_1)).toEqual({
        episode: TASK_1,
        changed: false,
        replacements: 0,
      });
      const content = await store.redactEpisodeMetadata(TASK_1, { mode: 'content' });
      expect(content.changed).toBe(true);
      const blank = (await store.getEpisodeMetadata(TASK_1)) as Metadata;
      // Every string and every caller key is blanked; numbers stay.
      expect(JSON.stringify(blank)).not.toMatch(/acme|billing|tenant/);
      expect(Object.values(blank)).toContain(3);
      // No metadata: nothing to redact.
      expect(await store.redactEpisodeMetadata(TASK_2)).toEqual({
        episode: TASK_2,
        changed: false,
        replacements: 0,
      });
      expect(await store.getEpisodeMetadata(TASK_2)).toBeNull();
    });

    it('rejects a bad episode reference or bad redaction options, changing nothing', async (context) => {
      const { store } = await open(context);
      await store.setEpisodeMetadata(TASK_1, SECRET_METADATA);
      const before = await snapshot(store, [TASK_1]);
      for (const call of [
        () => store.redactEpisodeMetadata('task:nope'),
        () => store.redactEpisodeMetadata(TASK_1, { mode: 'everything' as never }),
        () => store.redactEpisodeMetadata(TASK_1, { kinds: [] }),
      ]) {
        const error = await expectEpisodicError(call(), 'VALIDATION_ERROR');
        expect(error.message).toMatch(/nothing was changed/);
      }
      expect(await snapshot(store, [TASK_1])).toEqual(before);
    });

    describe("redactRun (with the harness's RunStore)", () => {
      const openBoth = async (context: Parameters<typeof openStore>[0]) => {
        const { harness, store } = await open(context);
        const runs = harness.runs as RunStore | undefined;
        if (runs === undefined)
          context.skip('the harness provides no RunStore (StoreHarness.runs)');
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
    });

    it('rejects bad input with VALIDATION_ERROR and changes nothing', async (context) => {
      const { store } = await open(context);
      await store.setEpisodeMetadata(TASK_1, { a: 1 });
      await store.upsert({ key: 'p:1', kind: 'pattern', content: 1, episodes: [TASK_1] });
      const before = await snapshot(store, [TASK_1, TASK_2]);
      const eleven = Object.fromEntries(
        Array.from({ length: 11 }, (_, index) => [`k${index}`, index]),
      ) as Metadata;
      const bad: Array<[string, () => Promise<unknown>]> = [
        [
          'bad key',
          () => store.upsert({ key: ' spaced', kind: 'pattern', content: 1, episodes: [TASK_1] }),
        ],
        [
          'bad kind',
          () => store.upsert({ key: 'p:1', kind: 'Pattern', content: 1, episodes: [TASK_1] }),
        ],
        [
          'no episodes',
          () => store.upsert({ key: 'p:2', kind: 'pattern', content: 1, episodes: [] }),
        ],
        [
          'bad reference',
          () =>
            store.upsert({
              key: 'p:1',
              kind: 'pattern',
              content: 2,
              episodes: [TASK_2, '../etc/passwd'],
            }),
        ],
        [
          'content not JSON',
          () =>
            store.upsert({
              key: 'p:1',
              kind: 'pattern',
              content: { n: Number.NaN },
              episodes: [TASK_2],
            }),
        ],
        [
          'content too large',
          () =>
            store.upsert({
              key: 'p:1',
              kind: 'pattern',
              content: 'x'.repeat(70_000),
              episodes: [TASK_2],
            }),
        ],
        ['eleven metadata keys', () => store.setEpisodeMetadata(TASK_2, eleven)],
        ['nested metadata', () => store.setEpisodeMetadata(TASK_1, { a: { b: 1 } } as never)],
        ['bad metadata reference', () => store.setEpisodeMetadata('task:nope', { a: 1 })],
        ['bad delete reference', () => store.deleteEpisode('session:x#1')],
        ['bad filter', () => store.list({ filter: { type: 'xor' } as never })],
        ['bad policy', () => store.list({ policy: { required: {} } })],
        ['bad limit', () => store.list({ limit: 0 })],
        ['unknown query key', () => store.list({ kinds: 'pattern' } as never)],
        ['bad get key', () => store.get('')],
      ];
      for (const [what, call] of bad) {
        const error = await expectEpisodicError(call(), 'VALIDATION_ERROR');
        expect(error.message, what).toMatch(/nothing was changed|Invalid/);
      }
      expect(await snapshot(store, [TASK_1, TASK_2])).toEqual(before);
    });
  });
}
