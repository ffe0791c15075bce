import { describe, expect, it } from 'vitest';
import { assemble } from '../assembly/index.js';
import type { BoundaryEpisode } from '../schema/index.js';
import {
  echoModel,
  failure,
  fixedClock,
  newSession,
  rejection,
  say,
  scriptedModel,
} from './__fixtures__/harness.js';
import { type CompactOptions, compact, type SummarizeInput } from './compact.js';
import type { CheckpointInfo } from './session-types.js';

const countSummary: CompactOptions['summarize'] = ({ episodes, previous }) =>
  `${previous ? `${previous.payload.title}; then ` : ''}${episodes.length} episodes`;

describe('compact', () => {
  it('appends a checkpoint covering the episodes since the previous one, deletes nothing, and the next turn starts there', async () => {
    const events: Array<Record<string, unknown>> = [];
    const hooked: CheckpointInfo[] = [];
    const { session, store } = newSession({
      recorder: { agentEvent: (event) => events.push(event) },
      onCheckpoint: (info) => {
        hooked.push(info);
      },
    });
    await session.runTurn('Which files are large?', echoModel);
    await session.runTurn('Delete the biggest one.', echoModel);
    const inputs: SummarizeInput[] = [];
    const result = await compact(session, {
      summarize: (input) => {
        inputs.push(input);
        return {
          title: 'files',
          content: 'The user asked about large files and deleted the biggest.',
        };
      },
    });

    expect(inputs[0]?.episodes.map((episode) => episode.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(inputs[0]?.previous).toBeNull();
    expect(inputs[0]?.covers).toEqual({ fromId: 1, toId: 6 });
    expect(inputs[0]?.items).toEqual([
      say('user', 'Which files are large?'),
      say('assistant', 'echo: Which files are large?'),
      say('user', 'Delete the biggest one.'),
      say('assistant', 'echo: Delete the biggest one.'),
    ]);
    expect(result.checkpoint).toMatchObject({
      id: 7,
      type: 'boundary',
      payload: {
        reason: 'checkpoint',
        title: 'files',
        content: 'The user asked about large files and deleted the biggest.',
        covers: { fromId: 1, toId: 6 },
      },
    });
    expect(result).toMatchObject({
      covers: { fromId: 1, toId: 6 },
      episodeIds: [1, 2, 3, 4, 5, 6],
      revision: 3,
    });
    expect(session.log.size).toBe(7);
    expect(JSON.stringify((await store.load(session.id))?.episodes)).toContain(
      '"covers":{"fromId":1,"toId":6}',
    );

    // Seed 001's fields (timestamp in milliseconds, compacted), then ours.
    const timestamp = fixedClock().getTime();
    expect(events).toEqual([
      {
        type: 'compaction_start',
        timestamp,
        session_id: session.id,
        from_id: 1,
        to_id: 6,
        episode_count: 6,
      },
      {
        type: 'compaction_complete',
        timestamp,
        compacted: true,
        session_id: session.id,
        from_id: 1,
        to_id: 6,
        status: 'completed',
        checkpoint_id: 7,
        summary_chars: 57,
      },
    ]);
    expect(hooked).toEqual([
      {
        sessionId: session.id,
        checkpoint: result.checkpoint,
        covers: { fromId: 1, toId: 6 },
        episodeIds: [1, 2, 3, 4, 5, 6],
        summary: 'The user asked about large files and deleted the biggest.',
      },
    ]);

    const { model, requests } = scriptedModel({ output: [say('assistant', 'ok')] });
    await session.runTurn('What did we do?', model);
    expect(requests[0]?.items).toEqual([
      say(
        'user',
        '<checkpoint>\nThe user asked about large files and deleted the biggest.\n</checkpoint>',
      ),
      say('user', 'What did we do?'),
    ]);
    expect(requests[0]?.manifest.startId).toBe(7);
  });

  it('summarizes only what is new since the previous checkpoint and hands the previous summary over', async () => {
    const { session } = newSession();
    await session.runTurn('one', echoModel);
    const first = await compact(session, { summarize: countSummary, title: 'first summary' });
    await session.runTurn('two', echoModel);
    let seen: SummarizeInput | undefined;
    const second = await compact(session, {
      summarize: (input) => {
        seen = input;
        return countSummary(input);
      },
    });
    expect(seen?.previous?.id).toBe(first.checkpoint?.id);
    expect(seen?.items[0]).toEqual(say('user', '<checkpoint>\n3 episodes\n</checkpoint>'));
    expect(second.covers).toEqual({ fromId: 5, toId: 7 });
    expect((second.checkpoint as BoundaryEpisode).payload).toMatchObject({
      title: 'conversation summary',
      content: 'first summary; then 3 episodes',
    });
    // Every episode is still in the log.
    expect(session.log.read({ fromId: 0 }).map((episode) => episode.id)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    const { manifest } = await assemble(session.log.fork());
    expect(manifest.startId).toBe(8);
  });

  it('does nothing when there is nothing new since the last checkpoint', async () => {
    const events: unknown[] = [];
    const { session } = newSession({ recorder: { agentEvent: (event) => events.push(event) } });
    let calls = 0;
    const summarize = () => {
      calls += 1;
      return 'summary';
    };
    expect(await compact(session, { summarize })).toEqual({
      checkpoint: null,
      covers: null,
      episodeIds: [],
      revision: 0,
    });
    await session.runTurn('x', echoModel);
    await compact(session, { summarize });
    expect((await compact(session, { summarize })).checkpoint).toBeNull();
    expect(calls).toBe(1);
    expect(events).toHaveLength(2);
  });

  it('writes nothing and reports the failure when the summarizer fails or is aborted', async () => {
    const events: Array<Record<string, unknown>> = [];
    const { session } = newSession({ recorder: { agentEvent: (event) => events.push(event) } });
    await session.runTurn('x', echoModel);
    const error = await failure(
      compact(session, {
        summarize: () => {
          throw new Error('model overloaded');
        },
      }),
    );
    expect(error.message).toBe('model overloaded');
    expect(events[1]).toMatchObject({
      type: 'compaction_complete',
      compacted: false,
      status: 'failed',
      error: 'model overloaded',
    });

    const controller = new AbortController();
    const aborted = compact(session, {
      signal: controller.signal,
      summarize: () => new Promise<string>(() => {}),
    });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('user cancelled'));
    await expect(aborted).rejects.toThrow('user cancelled');
    expect(events[3]).toMatchObject({ type: 'compaction_complete', status: 'aborted' });

    const empty = await rejection(compact(session, { summarize: () => '' }));
    expect(empty.code).toBe('VALIDATION_ERROR');
    expect(empty.message).toContain('summarize result');
    expect(session.log.read({ type: 'boundary', fromId: 0 })).toEqual([]);
    expect(session.revision).toBe(1);
  });

  it("calls the call's own onCheckpoint after the session's", async () => {
    const order: string[] = [];
    const { session } = newSession({ onCheckpoint: () => order.push('session') });
    await session.runTurn('x', echoModel);
    await compact(session, { summarize: () => 's', onCheckpoint: () => order.push('call') });
    expect(order).toEqual(['session', 'call']);
  });

  it('rejects bad input naming the field and changes nothing', async () => {
    const { session } = newSession();
    await session.runTurn('x', echoModel);
    const cases: Array<[unknown, unknown, string]> = [
      [{}, { summarize: () => 's' }, 'session'],
      [session, {}, 'summarize'],
      [session, { summarize: 'nope' }, 'summarize'],
      [session, { summarize: () => 's', title: '' }, 'title'],
      [session, { summarize: () => 's', extra: 1 }, 'extra'],
      [session, { summarize: () => 's', signal: 'stop' }, 'signal'],
    ];
    for (const [target, options, field] of cases) {
      const error = await rejection(compact(target as never, options as never));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain(field);
    }
    expect(session.log.size).toBe(3);
    expect(session.revision).toBe(1);
  });
});
