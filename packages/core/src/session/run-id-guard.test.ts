// Guarantee (docs/guarantees.md, "Redaction"): a run id recorded in a session (seed 001 `run_id`
// of its snapshot and deltas) is kept by redaction, so one that looks like a secret is refused
// at the write, with the field named and the value withheld, and nothing is stored. Checked by the
// session store (every backend goes through it) and, before any model call, by runTurn and
// commitEpisodes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertIdCarriesNoContent } from '../ledger/content-guard.js';
import type { SessionState } from '../schema/index.js';
import { createMemorySessionStore } from '../store/index.js';
import { echoModel, newSession, rejection, say } from './__fixtures__/harness.js';
import { commitEpisodes } from './commit-episodes.js';
import type { ModelCall } from './model-call.js';

const secret = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');
const id = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';

function expectRefused(error: { code: string; message: string; details: object }, field: string) {
  expect(error.code).toBe('VALIDATION_ERROR');
  expect(error.message).toContain(`${field} looks like a secret (rule aws_key)`);
  expect(error.message).not.toContain(secret);
  expect(JSON.stringify(error.details)).not.toContain(secret);
  expect(error.details).toMatchObject({ field, rule: 'aws_key', kind: 'secret' });
}

describe('a run id that looks like a secret', () => {
  it('is refused by the session store (commit and save), naming the field; nothing is stored', async () => {
    const store = createMemorySessionStore();
    const state: SessionState = {
      schema_version: 1,
      session_id: id,
      updated_at: '2026-02-03T12:00:00.000Z',
      messages: [{ role: 'user', content: 'hi' }],
      run_id: `run-${secret}`,
      revision: 1,
    };
    expectRefused(await rejection(store.save(state)), 'run_id');
    expectRefused(
      await rejection(
        store.commit({
          sessionId: id,
          expectedRevision: null,
          delta: { revision: 1, updated_at: state.updated_at, run_id: `run-${secret}` },
          state,
        }),
      ),
      'delta.run_id',
    );
    expect(await store.load(id)).toBeNull();
    expect(await store.list()).toEqual([]);
    // An opaque run id is stored as given.
    await store.save({ ...state, run_id: 'run-2026-02-03-a' });
    expect((await store.load(id))?.run_id).toBe('run-2026-02-03-a');
  });

  it('is refused by runTurn before the model is called, and by commitEpisodes; the session is unchanged', async () => {
    const { session, store } = newSession();
    let modelCalls = 0;
    const model: ModelCall = (request) => {
      modelCalls++;
      return echoModel(request);
    };
    expectRefused(
      await rejection(session.runTurn('hello', model, { runId: `r-${secret}` })),
      'runId',
    );
    expect(modelCalls).toBe(0);
    expectRefused(
      await rejection(
        commitEpisodes(
          session,
          [{ type: 'item', meta: { source: 'user' }, payload: { item: say('user', 'hi') } }],
          { runId: secret },
        ),
      ),
      'runId',
    );
    expect(session.revision).toBe(0);
    expect(await store.list()).toEqual([]);
    await session.runTurn('hello', model, { runId: '00000000-0000-4000-8000-00000000aaaa' });
    expect(modelCalls).toBe(1);
    expect((await store.load(session.id))?.run_id).toBe('00000000-0000-4000-8000-00000000aaaa');
  });

  it('property: a UUID never looks like content (so run store ids, always UUIDs, need no guard)', () => {
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        expect(() => assertIdCarriesNoContent(uuid, 'run_id', 'run id')).not.toThrow();
      }),
      { numRuns: 2000 },
    );
    // Digits only, as a phone or card number would be.
    for (const uuid of [
      '12345678-1234-4234-8234-123456789012',
      '41111111-1111-4111-9111-111111111111',
    ]) {
      expect(() => assertIdCarriesNoContent(uuid, 'run_id', 'run id')).not.toThrow();
    }
  });
});
