/**
 * Issue 29, item 6: wherever an access policy hides data, a hidden object and a missing one get
 * the identical answer. Property test over random tenants: for every hidden event, `query` and
 * `replay` with it as `afterId` fail exactly like an unknown id (same code, message and details
 * once the id is replaced), and an artifact the policy hides reads exactly like a missing one.
 */
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { EpisodicError } from '../errors/episodic-error.js';
import { createMemoryArtifactStore } from './memory-artifact-store.js';
import { createMemoryLedger } from './memory-ledger.js';

const POLICY = { required: { tenant: 'acme' } };
const SESSION = 'session-1';

/** The error `call` fails with, as plain data, with `id` replaced; or the page it returned. */
async function outcome(call: () => Promise<unknown>, id: string): Promise<unknown> {
  let result: unknown;
  try {
    result = { ok: await call() };
  } catch (error) {
    if (!EpisodicError.isInstance(error)) throw error;
    const { code, message, details } = error;
    result = { error: { code, message, details } };
  }
  return JSON.parse(JSON.stringify(result).split(id).join('<id>'));
}

/** An id of the same shape that the ledger does not hold. */
function unknownLike(id: string, taken: ReadonlySet<string>): string {
  for (const last of '0123456789ABCDEFGHJKMNPQRSTVWXYZ') {
    const candidate = `${id.slice(0, -1)}${last}`;
    if (!taken.has(candidate)) return candidate;
  }
  throw new Error(`no unknown id like ${id}`);
}

test.prop([fc.array(fc.constantFrom('acme', 'globex', null), { minLength: 1, maxLength: 12 })], {
  numRuns: 30,
})('a hidden afterId answers like an unknown one, in query and replay', async (tenants) => {
  const ledger = createMemoryLedger();
  const ids: string[] = [];
  for (const [index, tenant] of tenants.entries()) {
    const receipt = await ledger.append({
      scope: 'team',
      session_id: SESSION,
      agent_id: 'agent',
      type: 'ops.decision',
      summary: `event ${index}`,
      ...(tenant === null ? {} : { metadata: { tenant } }),
    });
    ids.push(receipt.event.event_id);
  }
  const taken = new Set(ids);
  for (const [index, id] of ids.entries()) {
    const unknown = unknownLike(id, taken);
    const calls = [
      (afterId: string) => ledger.query({ scope: 'team', afterId, policy: POLICY }),
      (afterId: string) => ledger.query({ scope: 'team', afterId, policy: POLICY, limit: 1 }),
      (afterId: string) => ledger.replay(SESSION, { scope: 'team', afterId, policy: POLICY }),
    ];
    for (const call of calls) {
      const forId = await outcome(() => call(id), id);
      const forUnknown = await outcome(() => call(unknown), unknown);
      if (tenants[index] === 'acme') {
        // A visible event is a valid cursor: the page after it holds only visible events.
        expect(forId).toHaveProperty('ok');
      } else {
        expect(forId).toEqual(forUnknown);
      }
    }
  }
  // Every page under the policy holds only visible events, and its cursor is one of them.
  const page = await ledger.query({ scope: 'team', policy: POLICY, limit: 1 });
  const visible = ids.filter((_, index) => tenants[index] === 'acme');
  expect(page.events.map((event) => event.event_id)).toEqual(visible.slice(0, 1));
  if (page.next_after_id !== null) expect(visible).toContain(page.next_after_id);
});

test.prop([fc.constantFrom('globex', null)], { numRuns: 4 })(
  'an artifact the policy hides reads exactly like a missing one',
  async (tenant) => {
    const store = createMemoryArtifactStore();
    const episode = 'task:6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
    if (tenant !== null) await store.setEpisodeMetadata(episode, { tenant });
    await store.upsert({ key: 'p:hidden', kind: 'pattern', content: 1, episodes: [episode] });
    expect(await store.get('p:hidden', { policy: POLICY })).toEqual(
      await store.get('p:missing', { policy: POLICY }),
    );
    expect(await store.get('p:hidden', { policy: POLICY })).toBeNull();
    const listed = await store.list({ policy: POLICY });
    expect(listed.artifacts).toEqual([]);
  },
);
