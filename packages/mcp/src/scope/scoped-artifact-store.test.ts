import { createMemoryArtifactStore } from '@episodic/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindScope, DEFAULT_SCOPE } from './bound-scope.js';
import {
  artifactKeyPrefix,
  createScopedArtifactStore,
  scopeOfArtifactKey,
} from './scoped-artifact-store.js';

const TASK = 'task:6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';

// Scopes chosen to stress key ordering: prefixes of each other, and every scope character
// that sorts below "@" ("-", ".", "/", digits, ":") right after a shared prefix.
const scopeArbitrary = fc.constantFrom(
  DEFAULT_SCOPE,
  'a',
  'a-b',
  'a.b',
  'a/b',
  'a0',
  'a:b',
  'ab',
  'z'.repeat(128),
  'scope',
);
const keyArbitrary = fc.constantFrom(
  'p:1',
  'p:2',
  'reflection:x',
  'scope:1',
  'tool_sequence:9',
  'zz',
  'A',
  '0',
);

async function listAll(store: ReturnType<typeof createScopedArtifactStore>, limit: number) {
  const keys: string[] = [];
  let afterKey: string | undefined;
  for (;;) {
    const page = await store.list({ limit, ...(afterKey === undefined ? {} : { afterKey }) });
    keys.push(...page.artifacts.map((artifact) => artifact.key));
    if (page.nextKey === null) return keys;
    afterKey = page.nextKey;
  }
}

describe('scoped artifact store', () => {
  it('gives every scope exactly its own keys, in order, through any page size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(scopeArbitrary, keyArbitrary), { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 5 }),
        async (writes, limit) => {
          const shared = createMemoryArtifactStore();
          const expected = new Map<string, Set<string>>();
          for (const [scope, key] of writes) {
            const store = createScopedArtifactStore(shared, scope);
            const stored = await store.upsert({
              key,
              kind: 'pattern',
              content: { scope, key },
              episodes: [TASK],
            });
            expect(stored.key).toBe(key);
            expected.set(scope, (expected.get(scope) ?? new Set()).add(key));
          }
          for (const scope of new Set(writes.map(([scope]) => scope))) {
            const store = createScopedArtifactStore(shared, scope);
            const mine = [...(expected.get(scope) ?? [])].sort();
            expect(await listAll(store, limit)).toEqual(mine);
            for (const key of mine) {
              expect((await store.get(key))?.content).toEqual({ scope, key });
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("uses a prefix no other scope's prefix starts with", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        (left, right) => {
          let a: string;
          let b: string;
          try {
            a = bindScope(left);
            b = bindScope(right);
          } catch {
            return;
          }
          if (a === b) return;
          const prefixA = artifactKeyPrefix(a);
          const prefixB = artifactKeyPrefix(b);
          if (prefixA === '' || prefixB === '') return;
          expect(prefixA.startsWith(prefixB) || prefixB.startsWith(prefixA)).toBe(false);
        },
      ),
    );
  });

  it('reads the scope and local key back from every stored key (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.string({ minLength: 1, maxLength: 60 }),
        (name, key) => {
          let scope: string;
          try {
            scope = bindScope(name);
          } catch {
            return;
          }
          if (scope === 'default' && key.startsWith('scope=')) return;
          expect(scopeOfArtifactKey(`${artifactKeyPrefix(scope)}${key}`)).toEqual({ scope, key });
        },
      ),
    );
  });

  it("strips other scopes' artifacts from a deletion receipt", async () => {
    const shared = createMemoryArtifactStore();
    const teamA = createScopedArtifactStore(shared, 'team-a');
    const teamB = createScopedArtifactStore(shared, 'team-b');
    await teamA.upsert({ key: 'p:1', kind: 'pattern', content: 1, episodes: [TASK] });
    await teamB.upsert({ key: 'p:2', kind: 'pattern', content: 2, episodes: [TASK] });
    expect(await teamA.deleteEpisode(TASK)).toMatchObject({
      deletedArtifacts: ['p:1'],
      updatedArtifacts: [],
    });
  });

  it("redacts an episode's metadata in the shared store (episode calls pass through)", async () => {
    const shared = createMemoryArtifactStore();
    const scoped = createScopedArtifactStore(shared, 'team-a');
    const secret = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');
    await scoped.setEpisodeMetadata(TASK, { note: secret });
    expect(await scoped.redactEpisodeMetadata(TASK)).toEqual({
      episode: TASK,
      changed: true,
      replacements: 1,
    });
    expect(await shared.getEpisodeMetadata(TASK)).toEqual({ note: '[REDACTED:aws_key]' });
  });
});
