// SessionStore reads of damaged data: torn commits (`deltaDamage`), damaged snapshots
// (`snapshotDamage`).
import { expect, it } from 'vitest';
import { SESSION_TS } from '../../session-fixtures.js';
import { expectEpisodicError, requireCapability, utf8 } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { commitTurns, SESSION_1, SESSION_2, SESSION_3, stateOf } from './fixtures.js';

/** Registers the tests of damaged sessions. */
export function sessionDamagedDataTests({ open, capabilities }: ContractGroup<'sessions'>): void {
  it('ignores a torn last delta (a commit never acknowledged), and the next commit repairs it', async (context) => {
    requireCapability(context, capabilities.deltaDamage, 'deltaDamage');
    const { store, harness } = await open(context);
    const append = harness.damage?.appendRawToDeltas;
    if (append === undefined)
      throw new Error('capabilities.deltaDamage needs damage.appendRawToDeltas');
    const log = await commitTurns(store, SESSION_1, 0, 3);
    await append(SESSION_1, utf8('{"revision":4,"updated_at":"2026-02-03T12:00:00.000Z","epi'));
    expect((await store.load(SESSION_1))?.revision).toBe(3);
    const after = await commitTurns(store, SESSION_1, 3, 1, log);
    expect((await store.load(SESSION_1))?.episodes).toEqual(after);
    // Damage before the last line is not a torn commit: the session is CORRUPT_DATA.
    await append(SESSION_1, utf8('not a delta\n'));
    await append(SESSION_1, utf8(`${JSON.stringify({ revision: 5, updated_at: SESSION_TS })}\n`));
    const error = await expectEpisodicError(store.load(SESSION_1), 'CORRUPT_DATA');
    expect(error.message).toContain(SESSION_1);
  });

  it('loads a damaged snapshot as CORRUPT_DATA and leaves it out of the list', async (context) => {
    requireCapability(context, capabilities.snapshotDamage, 'snapshotDamage');
    const { store, harness } = await open(context);
    const write = harness.damage?.writeRawSnapshot;
    if (write === undefined)
      throw new Error('capabilities.snapshotDamage needs damage.writeRawSnapshot');
    await store.save(stateOf(SESSION_1, 1));
    await store.save(stateOf(SESSION_2, 1));
    await write(SESSION_2, utf8('{"schema_version":1,"session_id":"'));
    await write(SESSION_3, utf8(''));
    const error = await expectEpisodicError(store.load(SESSION_2), 'CORRUPT_DATA');
    expect(error.message).toContain(SESSION_2);
    await expectEpisodicError(store.load(SESSION_3), 'CORRUPT_DATA');
    expect((await store.list()).map((summary) => summary.sessionId)).toEqual([SESSION_1]);
    await store.save(stateOf(SESSION_2, 2));
    expect((await store.load(SESSION_2))?.revision).toBe(2);
  });
}
