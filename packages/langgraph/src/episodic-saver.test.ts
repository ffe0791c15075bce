import { createMemoryRunStore, EpisodicError, type RunRecord, type RunStore } from '@episodic/core';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './__fixtures__/backends.js';
import { EpisodicSaver, threadRunId } from './episodic-saver.js';
import { CHECKPOINT_RECORD_TYPE, WRITES_RECORD_TYPE } from './langgraph-records.js';

const PARAGRAPH = 'The agent looked at the next file and wrote down what it found there. '.repeat(
  4,
);

/** A graph that adds one ~300-character message per step until it has `steps` of them. */
function chatGraph(saver: EpisodicSaver, steps: number) {
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', (state) => ({
      messages: [
        new AIMessage({
          content: `${state.messages.length}: ${PARAGRAPH}`,
          id: `m${state.messages.length}`,
        }),
      ],
    }))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) => (state.messages.length > steps ? END : 'agent'))
    .compile({ checkpointer: saver });
}

async function threadRecords(runs: RunStore, threadId: string): Promise<RunRecord[]> {
  return (await runs.read(threadRunId(threadId))).records;
}

function size(record: RunRecord): number {
  return Buffer.byteLength(JSON.stringify(record));
}

describe.each(BACKENDS)('EpisodicSaver on $name', (backend) => {
  it('stores per-step deltas: bytes per step stay flat while the state grows', async () => {
    const store = await backend.open();
    try {
      const saver = new EpisodicSaver({ runs: store.runs });
      const graph = chatGraph(saver, 60);
      const config = { configurable: { thread_id: 'growing' }, recursionLimit: 200 };
      const result = await graph.invoke(
        { messages: [new HumanMessage({ content: 'start', id: 'h0' })] },
        config,
      );
      expect(result.messages).toHaveLength(61);

      const records = await threadRecords(store.runs, 'growing');
      const checkpoints = records.filter((record) => record.type === CHECKPOINT_RECORD_TYPE);
      expect(checkpoints.length).toBeGreaterThan(60);
      const sizes = checkpoints.map(size);
      const stateBytes = Buffer.byteLength(JSON.stringify(result.messages));
      // The state at the end is ~60 messages; storing it whole each step would cost that each time.
      expect(stateBytes).toBeGreaterThan(20_000);
      const early = sizes.slice(5, 10);
      const late = sizes.slice(-5);
      // Every step after the first few stores about the same: one message, not the whole list.
      expect(Math.max(...late)).toBeLessThan(Math.max(...early) * 1.15);
      expect(Math.max(...sizes.slice(3))).toBeLessThan(stateBytes / 10);
      const appends = checkpoints.filter((record) => {
        const values = (
          record as unknown as { values: Record<string, { append?: { json?: unknown } }> }
        ).values;
        return Array.isArray(values.messages?.append?.json);
      });
      expect(appends.length).toBeGreaterThan(55);
      // Writes are the node outputs: one message each.
      const writes = records.filter((record) => record.type === WRITES_RECORD_TYPE).map(size);
      expect(Math.max(...writes.slice(-5))).toBeLessThan(Math.max(...writes.slice(5, 10)) * 1.15);

      // A fresh saver on the same store rebuilds exactly the same state from the deltas.
      const fresh = new EpisodicSaver({ runs: store.runs });
      const state = await chatGraph(fresh, 60).getState(config);
      expect(state.values.messages.map((message: AIMessage) => message.content)).toEqual(
        result.messages.map((message) => message.content),
      );
    } finally {
      await store.close();
    }
  });

  it('keeps forks apart: a branch from an old checkpoint has its own values', async () => {
    const store = await backend.open();
    try {
      const saver = new EpisodicSaver({ runs: store.runs });
      const graph = chatGraph(saver, 3);
      const config = { configurable: { thread_id: 'forked' }, recursionLimit: 50 };
      await graph.invoke({ messages: [new HumanMessage({ content: 'go', id: 'h0' })] }, config);
      const history = [];
      for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
      const early = history.find((snapshot) => snapshot.values.messages?.length === 2);
      expect(early).toBeDefined();
      const forkConfig = await graph.updateState(early?.config ?? config, {
        messages: [new HumanMessage({ content: 'a different turn', id: 'fork' })],
      });
      const forked = await new EpisodicSaver({ runs: store.runs }).getTuple(forkConfig);
      const forkedMessages = (forked?.checkpoint.channel_values.messages ?? []) as HumanMessage[];
      expect(forkedMessages.map((message) => message.content)).toEqual([
        'go',
        `1: ${PARAGRAPH}`,
        'a different turn',
      ]);
      const main = await new EpisodicSaver({ runs: store.runs }).getTuple({
        configurable: {
          thread_id: 'forked',
          checkpoint_id: history[0]?.config.configurable?.checkpoint_id,
        },
      });
      expect(main?.checkpoint.channel_values.messages).toHaveLength(4);
    } finally {
      await store.close();
    }
  });
});

describe('EpisodicSaver', () => {
  it('sees what another saver appended to the same thread', async () => {
    const runs = createMemoryRunStore();
    const first = new EpisodicSaver({ runs });
    const second = new EpisodicSaver({ runs });
    const config = { configurable: { thread_id: 't', checkpoint_ns: '' } };
    const checkpoint = {
      ...emptyCheckpoint(),
      id: uuid6(-1),
      channel_values: { a: [1] },
      channel_versions: { a: 1 },
    };
    const saved = await first.put(
      config,
      checkpoint,
      { source: 'input', step: -1, parents: {} },
      { a: 1 },
    );
    expect((await second.getTuple(config))?.checkpoint.channel_values).toEqual({ a: [1] });
    const next = {
      ...emptyCheckpoint(),
      id: uuid6(-1),
      channel_values: { a: [1, 2] },
      channel_versions: { a: 2 },
    };
    await second.put(saved, next, { source: 'loop', step: 0, parents: {} }, { a: 2 });
    await second.putWrites(
      { configurable: { thread_id: 't', checkpoint_ns: '', checkpoint_id: next.id } },
      [['a', 3]],
      'task-1',
    );
    const latest = await first.getTuple(config);
    expect(latest?.checkpoint.channel_values).toEqual({ a: [1, 2] });
    expect(latest?.pendingWrites).toEqual([['task-1', 'a', 3]]);
  });

  it("sees another saver's records that landed just before its own append", async () => {
    const runs = createMemoryRunStore();
    const first = new EpisodicSaver({ runs });
    const second = new EpisodicSaver({ runs });
    const config = { configurable: { thread_id: 't', checkpoint_ns: '' } };
    const meta = { source: 'loop' as const, step: 0, parents: {} };
    const root = { ...emptyCheckpoint(), id: uuid6(-1) };
    const saved = await first.put(config, root, meta, {});
    await second.getTuple(config);
    const theirs = {
      ...emptyCheckpoint(),
      id: uuid6(-1),
      channel_values: { b: 'B' },
      channel_versions: { b: 1 },
    };
    await second.put(saved, theirs, meta, { b: 1 });
    // The first saver appends right after without reading: its tail then ends with its own record.
    await first.putWrites(saved, [['x', 1]], 'task');
    expect((await first.getTuple(config))?.checkpoint.id).toBe(theirs.id);
  });

  it('keeps a thread in a run whose header names it, and deleteThread removes the run', async () => {
    const runs = createMemoryRunStore();
    const saver = new EpisodicSaver({ runs });
    const config = { configurable: { thread_id: 'thread-1' } };
    await saver.put(
      config,
      { ...emptyCheckpoint(), id: uuid6(-1) },
      { source: 'input', step: -1, parents: {} },
      {},
    );
    const run = await runs.read(threadRunId('thread-1'));
    expect(run.header).toMatchObject({
      client: { name: '@episodic/langgraph' },
      meta: { langgraph: { thread_id: 'thread-1' } },
    });
    expect(run.records.map((record) => record.type)).toEqual(['header', CHECKPOINT_RECORD_TYPE]);
    expect((run.records[1] as { summary?: string }).summary).toMatch(
      /^step -1 \(input\): no channel changed \[checkpoint .*\]$/,
    );
    await saver.deleteThread('thread-1');
    await expect(runs.read(threadRunId('thread-1'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await saver.getTuple(config)).toBeUndefined();
  });

  it('rejects bad input, naming the field and the fix', async () => {
    expect(() => new EpisodicSaver({} as never)).toThrow(/runs.*RunStore/);
    expect(() => new EpisodicSaver({ runs: createMemoryRunStore(), serde: {} as never })).toThrow(
      /serde/,
    );
    const saver = new EpisodicSaver({ runs: createMemoryRunStore() });
    const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1) };
    const meta = { source: 'input' as const, step: -1, parents: {} };
    await expect(saver.put({}, checkpoint, meta, {})).rejects.toThrow(/configurable/);
    await expect(
      saver.put({ configurable: { thread_id: '' } }, checkpoint, meta, {}),
    ).rejects.toThrow(/thread_id.*non-empty string/);
    await expect(
      saver.put({ configurable: { thread_id: 't' } }, { ...checkpoint, id: '' }, meta, {}),
    ).rejects.toThrow(/checkpoint.id/);
    const error = await saver
      .putWrites({ configurable: { thread_id: 't' } }, [['a', 1]], 'task')
      .catch((caught: unknown) => caught);
    expect(EpisodicError.isInstance(error) && error.code).toBe('VALIDATION_ERROR');
    expect(String(error)).toMatch(/checkpoint_id/);
    // Nothing was written.
    expect([...(await createMemoryRunStore().list()).runs]).toEqual([]);
  });

  it('refuses a run that another program wrote under a thread run id', async () => {
    const runs = createMemoryRunStore();
    const runId = threadRunId('mine');
    await runs.append(runId, [
      {
        type: 'header',
        schema_version: 1,
        run_id: runId,
        started_at: new Date().toISOString(),
        meta: { langgraph: { thread_id: 'someone else' } },
      },
    ]);
    const saver = new EpisodicSaver({ runs });
    await expect(saver.getTuple({ configurable: { thread_id: 'mine' } })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  it('reads an unchanged channel from the checkpoint it follows, not from a fork that reached the same version', async () => {
    const runs = createMemoryRunStore();
    const saver = new EpisodicSaver({ runs });
    const thread = { configurable: { thread_id: 'forks', checkpoint_ns: '' } };
    const meta = (step: number) => ({ source: 'loop' as const, step, parents: {} });
    const checkpoint = (values: Record<string, unknown>, versions: Record<string, number>) => ({
      ...emptyCheckpoint(),
      id: uuid6(-1),
      channel_values: values,
      channel_versions: versions,
    });
    const root = await saver.put(
      thread,
      checkpoint({ a: ['x0'], b: 'B' }, { a: 1, b: 1 }),
      meta(0),
      { a: 1, b: 1 },
    );
    // Two branches from the root both bring `a` to version 2, with different values.
    const left = await saver.put(
      root,
      checkpoint({ a: ['x0', 'left'], b: 'B' }, { a: 2, b: 1 }),
      meta(1),
      { a: 2 },
    );
    await saver.put(root, checkpoint({ a: ['x0', 'right'], b: 'B' }, { a: 2, b: 1 }), meta(1), {
      a: 2,
    });
    // The left branch goes on with `a` unchanged (still version 2).
    const next = await saver.put(
      left,
      checkpoint({ a: ['x0', 'left'], b: 'B2' }, { a: 2, b: 2 }),
      meta(2),
      { b: 2 },
    );
    for (const reader of [saver, new EpisodicSaver({ runs })]) {
      expect((await reader.getTuple(next))?.checkpoint.channel_values).toEqual({
        a: ['x0', 'left'],
        b: 'B2',
      });
    }
  });

  it('builds a checkpoint again when another process deleted and restarted the thread meanwhile', async () => {
    const runs = createMemoryRunStore();
    const first = new EpisodicSaver({ runs });
    const config = { configurable: { thread_id: 'restarted', checkpoint_ns: '' } };
    const meta = { source: 'loop' as const, step: 0, parents: {} };
    const entries = (count: number) =>
      Array.from({ length: count }, (_, index) => `entry ${index}`);
    const withA = (count: number) => ({
      ...emptyCheckpoint(),
      id: uuid6(-1),
      channel_values: { a: entries(count) },
      channel_versions: { a: count },
    });
    let parent = await first.put(config, withA(20), meta, { a: 20 });
    parent = await first.put(parent, withA(21), meta, { a: 21 });
    parent = await first.put(parent, withA(22), meta, { a: 22 });
    // Another saver deletes the thread and starts it again, shorter than what the first has read.
    const second = new EpisodicSaver({ runs });
    await second.deleteThread('restarted');
    await second.put(
      config,
      { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { z: 0 }, channel_versions: { z: 1 } },
      meta,
      { z: 1 },
    );
    // The first saver's parent is gone: its checkpoint must hold `a` whole, not as an append to
    // a record that is no longer there.
    const saved = await first.put(parent, withA(23), { ...meta, step: 1 }, { a: 23 });
    const records = (await runs.read(threadRunId('restarted'))).records;
    expect(records.map((record) => record.type)).toEqual([
      'header',
      CHECKPOINT_RECORD_TYPE,
      CHECKPOINT_RECORD_TYPE,
    ]);
    expect((records[2] as unknown as { values: unknown }).values).toMatchObject({
      a: { value: { type: 'json' } },
    });
    expect((await new EpisodicSaver({ runs }).getTuple(saved))?.checkpoint.channel_values).toEqual({
      a: entries(23),
    });
  });
});
