import { createMemoryRunStore } from '@episodic/core';
import { fc, test } from '@fast-check/vitest';
import { type AgentInputItem, MemorySession } from '@openai/agents-core';
import { expect } from 'vitest';
import { EpisodicSession } from './episodic-session.js';
import { fromStored, toStored } from './history-values.js';
import { describeItem, sessionRunId } from './session-records.js';

// JSON values as JSON.parse gives them back (no -0, no undefined), and bytes.
const json = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const value = fc.oneof(json, fc.uint8Array({ maxLength: 8 }));
const item = fc
  .record({
    type: fc.constantFrom('message', 'function_call', 'reasoning', 'hosted_tool_call', 'unknown'),
    callId: fc.constantFrom('c1', 'c2'),
    extra: fc.dictionary(
      fc.string().filter((key) => key !== '__proto__'),
      value,
      { maxKeys: 4 },
    ),
  })
  .map(({ type, callId, extra }) => ({ ...extra, type, callId, name: 'f' }) as AgentInputItem);

type Step =
  | { op: 'add'; items: AgentInputItem[] }
  | { op: 'pop' }
  | { op: 'clear' }
  | { op: 'get'; limit?: number }
  | { op: 'mutate'; callId: string; replacement: AgentInputItem }
  | { op: 'append-tx'; id: string; items: AgentInputItem[] };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), items: fc.array(item, { maxLength: 3 }) }),
  fc.constant({ op: 'pop' as const }),
  fc.constant({ op: 'clear' as const }),
  fc.record(
    { op: fc.constant('get' as const), limit: fc.integer({ min: -1, max: 5 }) },
    { requiredKeys: ['op'] },
  ),
  fc.record({
    op: fc.constant('mutate' as const),
    callId: fc.constantFrom('c1', 'c2'),
    replacement: fc.constant({
      type: 'function_call',
      callId: 'c1',
      name: 'f',
      arguments: '{}',
    } as AgentInputItem),
  }),
  fc.record({
    op: fc.constant('append-tx' as const),
    id: fc.constantFrom('t1', 't2'),
    items: fc.constant<AgentInputItem[]>([{ role: 'user', content: 'tx' }]),
  }),
);

async function apply(session: EpisodicSession | MemorySession, s: Step): Promise<unknown> {
  try {
    switch (s.op) {
      case 'add':
        return await session.addItems(s.items);
      case 'pop':
        return await session.popItem();
      case 'clear':
        return await session.clearSession();
      case 'get':
        return await session.getItems(s.limit);
      case 'mutate':
        return await session.applyHistoryMutations({
          mutations: [
            {
              type: 'replace_function_call',
              callId: s.callId,
              replacement: { ...s.replacement, callId: s.callId } as never,
            },
          ],
        });
      case 'append-tx':
        return await session.applyHistoryTransaction({
          operationId: s.id,
          transaction: { type: 'append_items', items: s.items },
        });
    }
  } catch (error) {
    return { error: (error as Error).message };
  }
}

test.prop([fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), step), { maxLength: 25 })], {
  numRuns: 80,
})(
  'any sequence of calls, spread over three sessions on one store, answers as one MemorySession',
  async (steps) => {
    const runs = createMemoryRunStore();
    const sessions = [0, 1, 2].map(() => new EpisodicSession({ runs, sessionId: 's' }));
    const reference = new MemorySession({ sessionId: 's' });
    for (const [which, s] of steps) {
      const ours = await apply(sessions[which] as EpisodicSession, s);
      expect(ours).toStrictEqual(await apply(reference, s));
    }
    // A session that never wrote reads the whole run back: the same history.
    const fresh = new EpisodicSession({ runs, sessionId: 's' });
    expect(await fresh.getItems()).toStrictEqual(await reference.getItems());
    await runs.close();
  },
);

test.prop([fc.array(item, { maxLength: 4 })])(
  'stored values read back deep-equal through JSON (bytes included)',
  (items) => {
    const stored = toStored(items);
    const text = JSON.stringify(stored.value);
    expect(fromStored(JSON.parse(text), stored.binary)).toStrictEqual(items);
  },
);

test.prop([item])('describes any item on one short line', (anything) => {
  const line = describeItem(anything);
  expect(line).not.toMatch(/\n/);
  expect(line.length).toBeLessThanOrEqual(80);
});

test.prop([
  fc.string({ minLength: 1 }),
  fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
])('run ids are UUIDv5s, one per session and scope', (sessionId, scope) => {
  const id = sessionRunId(sessionId, scope);
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(id).toBe(sessionRunId(sessionId, scope));
  expect(id).not.toBe(sessionRunId(sessionId, `${scope ?? ''}x`));
  expect(id).not.toBe(sessionRunId(`${sessionId}x`, scope));
});
