import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { createMemoryRunStore } from '@episodic/core';
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { EpisodicSessionStore } from './episodic-session-store.js';
import { describeEntry, projectRunId, sessionRunId } from './session-records.js';

// JSON values as JSON.parse gives them back (no -0, no undefined): what an entry may hold.
const json = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const entry = fc
  .record({
    type: fc.string(),
    uuid: fc.option(fc.constantFrom('u1', 'u2', 'u3'), { nil: undefined }),
    fields: fc.dictionary(
      fc.string().filter((name) => name !== 'uuid'),
      json,
      { maxKeys: 5 },
    ),
  })
  .map(
    ({ type, uuid, fields }) =>
      ({ ...fields, type, ...(uuid === undefined ? {} : { uuid }) }) as SessionStoreEntry,
  );

test.prop([fc.array(fc.array(entry, { maxLength: 4 }), { maxLength: 4 })], { numRuns: 60 })(
  'any JSON entries load back deep-equal, in order (uuid duplicates once)',
  async (batches) => {
    const runs = createMemoryRunStore();
    const store = new EpisodicSessionStore({ runs });
    const key = { projectKey: 'p', sessionId: 's' };
    for (const batch of batches) await store.append(key, batch);
    const seen = new Set<unknown>();
    const expected = batches.flat().filter((item) => {
      if (typeof item.uuid !== 'string') return true;
      if (seen.has(item.uuid)) return false;
      seen.add(item.uuid);
      return true;
    });
    expect(await store.load(key)).toEqual(expected.length === 0 ? null : expected);
    await runs.close();
  },
);

test.prop([entry])('describes any entry on one short line', (item) => {
  const line = describeEntry(item);
  expect(line).not.toMatch(/\n/);
  expect(line.length).toBeLessThanOrEqual(80 + 11);
});

test.prop([
  fc.string({ minLength: 1 }),
  fc.string({ minLength: 1 }),
  fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
])(
  'run ids are UUIDv5s, one per key, apart from the project run',
  (projectKey, sessionId, subpath) => {
    const id = sessionRunId({ projectKey, sessionId, subpath });
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(id).toBe(sessionRunId({ projectKey, sessionId, subpath }));
    expect(id).not.toBe(sessionRunId({ projectKey, sessionId, subpath: `${subpath ?? ''}/x` }));
    expect(id).not.toBe(projectRunId(projectKey));
  },
);
