// The fold policy: a small session's base is current after every commit (what seed 001 readers
// open); a large one folds every so often; `fold: 'always'` folds every commit at any size.
import { describe, expect, it } from 'vitest';
import { echoModel, newSession, rejection } from '../session/__fixtures__/harness.js';
import { createMemorySessionStore } from './memory-session-store.js';
import type { SessionStore, SessionStoreOptions } from './session-store.js';

/** Runs `turns` echo turns and, after each, what the store holds: deltas after the base. */
async function deltasAfterEachTurn(
  store: SessionStore,
  turns: number,
  text = (turn: number) => `turn ${turn}`,
): Promise<number[]> {
  const { session } = newSession({}, store);
  const pending: number[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    await session.runTurn(text(turn), echoModel);
    const stored = await store.read(session.id);
    pending.push(stored?.deltas.length ?? -1);
    // Whatever the store did, the base and its deltas give the session's current messages.
    expect((await store.load(session.id))?.messages).toHaveLength(turn * 2);
  }
  return pending;
}

/** A user text that makes each turn add about 300 KB. */
const bulky = (turn: number) => `${turn}: ${'x'.repeat(75_000)}`;

describe('the fold policy', () => {
  it('folds every commit of a small session, so its base alone is the current state', async () => {
    const store = createMemorySessionStore();
    expect(await deltasAfterEachTurn(store, 6)).toEqual([0, 0, 0, 0, 0, 0]);
    const [summary] = await store.list();
    expect(summary).toMatchObject({ revision: 6, baseRevision: 6, messageCount: 12 });
  });

  it('keeps deltas once the session passes currentUpToBytes (1 MiB by default)', async () => {
    // About 300 KB per turn (the user text and its echo, in the episodes and the messages):
    // turns 1–3 stay under 1 MiB and fold; later turns append deltas until the share rule folds.
    const pending = await deltasAfterEachTurn(createMemorySessionStore(), 6, bulky);
    expect(pending.slice(0, 3)).toEqual([0, 0, 0]);
    expect(pending.slice(3)).toContain(1);
  });

  it('takes currentUpToBytes from the options: 0 turns the per-commit fold off', async () => {
    const off = createMemorySessionStore({ fold: { currentUpToBytes: 0 } });
    expect(await deltasAfterEachTurn(off, 4)).toEqual([0, 1, 2, 3]);
    // A threshold between two sizes: the first turns fold, the later ones append.
    const small = createMemorySessionStore({ fold: { currentUpToBytes: 3_000 } });
    const pending = await deltasAfterEachTurn(small, 8);
    expect(pending[1]).toBe(0);
    expect(pending.at(-1)).toBeGreaterThan(0);
  });

  it("folds every commit at any size with fold: 'always'", async () => {
    const always = createMemorySessionStore({ fold: 'always' });
    expect(await deltasAfterEachTurn(always, 6, bulky)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('lists the message count and the last user message of one state, the last commit', async () => {
    // Deltas after the base: the base alone would say 2 messages and "turn 1".
    const store = createMemorySessionStore({ fold: { currentUpToBytes: 0 } });
    const { session } = newSession({}, store);
    for (const text of ['turn 1', 'turn 2', 'turn 3']) await session.runTurn(text, echoModel);
    const [summary] = await store.list();
    expect(summary).toMatchObject({
      revision: 3,
      baseRevision: 1,
      messageCount: (await store.load(session.id))?.messages.length,
      lastUserMessage: 'turn 3',
    });
    expect(summary?.messageCount).toBe(6);
  });

  it('refuses a bad fold option with VALIDATION_ERROR naming it', async () => {
    for (const fold of ['sometimes', { currentUpToBytes: -1 }, { currentUpToBytes: 1.5 }]) {
      const error = await rejection(
        (async () => createMemorySessionStore({ fold } as unknown as SessionStoreOptions))(),
      );
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain('fold');
    }
  });
});
