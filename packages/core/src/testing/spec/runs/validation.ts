// RunStore input validation: every method rejects bad input with VALIDATION_ERROR and writes
// nothing.
import { expect, it } from 'vitest';
import type { RunRecord } from '../../../schema/run-record.js';
import { agentEvent, headerFor, runIdFor } from '../../run-fixtures.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

/** Registers the tests of how every `RunStore` method rejects bad input. */
export function runValidationTests({ open }: ContractGroup<'runs'>): void {
  it('rejects bad input with VALIDATION_ERROR before touching storage, writing nothing', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(6);
    await store.append(runId, [headerFor(runId)]);
    const cases: Array<[string, unknown, unknown]> = [
      ['a path in the id', '../../etc/passwd', [agentEvent(runId, 0)]],
      ['an empty id', '', [agentEvent(runId, 0)]],
      ['no records', runId, []],
      ['a negative seq', runId, [agentEvent(runId, 0), agentEvent(runId, -1)]],
      ['a header not first', runId, [agentEvent(runId, 0), headerFor(runId)]],
      ['another run id', runId, [agentEvent(runIdFor(99), 0)]],
      [
        'an unnamespaced unknown type',
        runId,
        [{ type: 'checkpoint', run_id: runId, ts: '2026-02-03T12:00:00.000Z' }],
      ],
      [
        'a typo of a seed type',
        runId,
        [{ type: 'run.strat', run_id: runId, ts: '2026-02-03T12:00:00.000Z' }],
      ],
      ['a bad timestamp', runId, [{ ...agentEvent(runId, 0), ts: 'yesterday' }]],
      [
        'a lone surrogate',
        runId,
        [{ ...agentEvent(runId, 0), event: { type: 'text', content: 'cut \ud83d' } }],
      ],
    ];
    for (const [label, id, records] of cases) {
      const error = await expectEpisodicError(
        store.append(id as string, records as RunRecord[]),
        'VALIDATION_ERROR',
      );
      expect(error.message, label).toMatch(/Invalid/);
    }
    await expectEpisodicError(store.read('not-a-uuid'), 'VALIDATION_ERROR');
    await expectEpisodicError(store.tail(runId, { count: 0 }), 'VALIDATION_ERROR');
    await expectEpisodicError(store.list({ sessionId: 'nope' }), 'VALIDATION_ERROR');
    await expectEpisodicError(store.list({ limit: 0 }), 'VALIDATION_ERROR');
    await expectEpisodicError(store.list({ runIds: ['not-a-uuid'] }), 'VALIDATION_ERROR');
    await expectEpisodicError(
      store.list({ from: '2026-02-05T00:00:00.000Z', to: '2026-02-04T00:00:00.000Z' }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(store.delete('RUN-1'), 'VALIDATION_ERROR');
    const read = await store.read(runId);
    expect(read.records).toHaveLength(1);
  });
}
