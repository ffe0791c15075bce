import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { newEpisodeArbitrary } from '../episodic/__fixtures__/arbitraries.js';
import { createEpisodic } from '../episodic/create-episodic.js';
import { EpisodicError } from '../errors/episodic-error.js';
import { sessionStateSchema } from '../schema/session-state.js';
import { buildSnapshot } from '../session/session-snapshot.js';
import { isBuiltState } from './built-state.js';
import { createMemorySessionStore } from './memory-session-store.js';
import { encodeSessionBase } from './session-format.js';

const SESSION_ID = '3e4f5061-7283-4940-8a5b-6c7d8e9f0a1b';
const TS = '2026-02-03T12:00:00.000Z';

const context = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 3,
});
const carried = fc.record(
  { run_id: fc.string({ minLength: 1, maxLength: 8 }), invoke_seq: fc.nat(50) },
  { requiredKeys: [] },
);

/** The state a new session (no carried fields, empty context) at revision 1 builds from `log`. */
function snapshotOf(log: ReturnType<typeof createEpisodic>) {
  return buildSnapshot({
    sessionId: SESSION_ID,
    log,
    context: {},
    revision: 1,
    updatedAt: TS,
    carried: {},
  });
}

describe('states core builds', () => {
  test.prop([fc.array(newEpisodeArbitrary, { maxLength: 20 }), context, carried, fc.nat(1000)])(
    'encode as the same state validated would: skipping the validation changes nothing stored',
    (episodes, contextValue, carriedValue, revision) => {
      const log = createEpisodic(undefined, { now: () => new Date(TS) });
      for (const episode of episodes) log.append(episode);
      const state = buildSnapshot({
        sessionId: SESSION_ID,
        log,
        context: contextValue,
        revision,
        updatedAt: TS,
        carried: carriedValue,
      });
      expect(isBuiltState(state)).toBe(true);
      const lines = encodeSessionBase(state);
      const validated = encodeSessionBase(sessionStateSchema.parse(state));
      // The same document (a validated message may list its keys in another order), and the same
      // head line, byte for byte: what list() and the fs fast path read.
      expect(JSON.parse(lines.join('\n'))).toEqual(JSON.parse(validated.join('\n')));
      expect(lines[0]).toBe(validated[0]);
      expect(lines).toHaveLength(validated.length);
    },
  );

  it('are frozen, with their episode and message lists', () => {
    const log = createEpisodic();
    log.append({
      type: 'item',
      payload: { item: { type: 'message', role: 'user', content: 'hi' } },
    });
    const state = snapshotOf(log);
    expect(Object.isFrozen(state)).toBe(true);
    expect(Object.isFrozen(state.episodes)).toBe(true);
    expect(Object.isFrozen(state.messages)).toBe(true);
  });

  it('are the only ones a store takes unvalidated: a look-alike is validated and stores nothing', async () => {
    const store = createMemorySessionStore();
    const built = snapshotOf(createEpisodic());
    const lookAlike = { ...built, updated_at: 'yesterday' };
    expect(isBuiltState(lookAlike)).toBe(false);
    const error = await store
      .commit({
        sessionId: SESSION_ID,
        expectedRevision: null,
        delta: { revision: 1, updated_at: TS },
        state: lookAlike,
      })
      .catch((caught: unknown) => caught);
    expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
    expect((error as EpisodicError).message).toContain('updated_at');
    expect(await store.read(SESSION_ID)).toBeNull();
  });
});
