import { describe, expect, it } from 'vitest';
import { rejection } from '../__fixtures__/episodic-errors.js';
import { createEpisodic } from '../episodic/index.js';
import type { InputItem } from '../schema/index.js';
import { call, fixedClock, logBuilder, output, say } from './__fixtures__/logs.js';
import { assemble } from './assemble.js';
import { explainEpisode } from './manifest.js';
import { INTERRUPTED_CALL_OUTPUT, type Normalizer, normalizeItems } from './normalize-items.js';

const contents = (items: readonly InputItem[]) =>
  items.map((item) =>
    item.type === 'message'
      ? item.content
      : item.type === 'function_call_output'
        ? `output:${String(item.call_id)}`
        : `${item.type}:${String((item as { call_id?: unknown }).call_id)}`,
  );

describe('assemble: start and rendering', () => {
  it('renders checkpoint, interrupt and overflow boundaries as user messages and never sends intent, segment or meta', async () => {
    const b = logBuilder();
    const intent = b.boundary('intent', 'plan the refactor');
    const segment = b.boundary('segment', 'phase 2');
    b.user('hello');
    const interrupt = b.boundary('interrupt', 'turn interrupted');
    const overflow = b.boundary('overflow', 'context overflow', 'older history was dropped');
    const usage = b.usage(50);
    const { items, manifest } = await assemble(b.log, { startAt: 'beginning' });
    expect(items).toEqual([
      say('user', 'hello'),
      say('user', '<interrupt>\nturn interrupted\n</interrupt>'),
      say('user', '<overflow>\nolder history was dropped\n</overflow>'),
    ]);
    expect(manifest.items.map((entry) => entry.episodeId)).toEqual([3, interrupt, overflow]);
    expect(manifest.dropped).toEqual([
      expect.objectContaining({ episodeId: intent, reason: 'invisible-boundary' }),
      expect.objectContaining({ episodeId: segment, reason: 'invisible-boundary' }),
      expect.objectContaining({ episodeId: usage, reason: 'meta' }),
    ]);
    expect(manifest.start).toBe('beginning');
    expect(manifest.startId).toBe(1);
    expect(manifest.truncated).toBe(false);
    expect(manifest.itemCount).toBe(3);
    expect(manifest.budget).toBeNull();
  });

  it('starts at the last checkpoint by default, inclusive, rendering its content', async () => {
    const b = logBuilder();
    b.user('old question');
    b.boundary('checkpoint', 'summary 1', 'first summary');
    b.user('middle question');
    const checkpoint = b.boundary('checkpoint', 'summary 2', 'the user asked two questions');
    b.user('new question');
    const { items, manifest } = await assemble(b.log);
    expect(items).toEqual([
      say('user', '<checkpoint>\nthe user asked two questions\n</checkpoint>'),
      say('user', 'new question'),
    ]);
    expect(manifest).toMatchObject({ startId: checkpoint, start: 'boundary', lastId: 5 });
    expect(explainEpisode(manifest, 1)).toContain('comes before the start of this input');
    expect(explainEpisode(manifest, 1)).toContain(`episode ${checkpoint}`);
  });

  it('starts at the last boundary of any reason, or of the reason asked for, else at the beginning', async () => {
    const b = logBuilder();
    b.user('one');
    const interrupt = b.boundary('interrupt', 'stopped');
    b.user('two');
    const segment = b.boundary('segment', 'phase 2');
    b.user('three');
    expect((await assemble(b.log, { startAt: 'last-boundary' })).manifest.startId).toBe(segment);
    expect((await assemble(b.log, { startAt: 'interrupt' })).manifest.startId).toBe(interrupt);
    const none = await assemble(b.log, { startAt: 'overflow' });
    expect(none.manifest).toMatchObject({ startId: 1, start: 'beginning' });
    const fromSegment = await assemble(b.log, { startAt: 'segment' });
    expect(contents(fromSegment.items)).toEqual(['three']);
    expect(fromSegment.manifest.dropped).toEqual([
      expect.objectContaining({ episodeId: segment, reason: 'invisible-boundary' }),
    ]);
  });

  it('finds a start boundary far back in a long log', async () => {
    const b = logBuilder();
    const checkpoint = b.boundary('checkpoint', 'summary', 'long ago');
    for (let index = 0; index < 300; index++) b.boundary('segment', `s${index}`);
    b.user('now');
    const { manifest, items } = await assemble(b.log);
    expect(manifest.startId).toBe(checkpoint);
    expect(items).toHaveLength(2);
  });

  it('uses the title when an interrupt boundary has no content', async () => {
    const b = logBuilder();
    b.boundary('interrupt', 'the user pressed stop');
    const { items } = await assemble(b.log);
    expect(items).toEqual([say('user', '<interrupt>\nthe user pressed stop\n</interrupt>')]);
  });

  it('returns nothing for an empty log', async () => {
    const { items, manifest } = await assemble(createEpisodic());
    expect(items).toEqual([]);
    expect(manifest).toMatchObject({
      startId: null,
      start: 'empty',
      lastId: 0,
      itemCount: 0,
      estimatedTokens: 0,
    });
  });

  it('estimates tokens per item with the default char counter or a custom one', async () => {
    const b = logBuilder();
    b.user('x'.repeat(400));
    const byChars = await assemble(b.log);
    expect(byChars.manifest.items[0]?.tokens).toBe(
      Math.ceil(JSON.stringify(say('user', 'x'.repeat(400))).length / 4),
    );
    const custom = await assemble(b.log, { countTokens: () => 7 });
    expect(custom.manifest.estimatedTokens).toBe(7);
  });
});

describe('assemble: the coarse budget rule (usage mode)', () => {
  it('cuts nothing while the last known input tokens fit the budget', async () => {
    const b = logBuilder();
    b.user('a', 't1');
    b.usage(900, 't1');
    b.user('b', 't2');
    const { items, manifest } = await assemble(b.log, {
      maxTokens: 1000,
      reserveOutputTokens: 100,
      turnId: 't2',
    });
    expect(contents(items)).toEqual(['a', 'b']);
    expect(manifest.budget).toEqual({
      mode: 'usage',
      limit: 900,
      exceeded: false,
      lastInputTokens: 900,
      usageEpisodeId: 2,
    });
    expect(manifest.truncated).toBe(false);
  });

  it('restarts at the last checkpoint when over budget', async () => {
    const b = logBuilder();
    const old = b.user('old', 't1');
    const checkpoint = b.boundary('checkpoint', 'summary', 'we talked about files');
    b.user('after checkpoint', 't2');
    b.usage(5000, 't2');
    b.user('now', 't3');
    const { items, manifest } = await assemble(b.log, {
      startAt: 'beginning',
      maxTokens: 1000,
      turnId: 't3',
    });
    expect(contents(items)).toEqual([
      '<checkpoint>\nwe talked about files\n</checkpoint>',
      'after checkpoint',
      'now',
    ]);
    expect(manifest).toMatchObject({
      start: 'budget-boundary',
      startId: checkpoint,
      truncated: true,
    });
    expect(manifest.budget).toMatchObject({ exceeded: true, lastInputTokens: 5000, limit: 1000 });
    expect(manifest.dropped[0]).toMatchObject({ episodeId: old, reason: 'budget' });
    expect(explainEpisode(manifest, old)).toMatch(
      /not sent \(budget\).*5000.*exceeded the budget \(1000\).*checkpoint boundary/,
    );
  });

  it('restarts at the last interrupt when over budget', async () => {
    const b = logBuilder();
    b.user('one', 't1');
    const interrupt = b.boundary('interrupt', 'turn interrupted', undefined, 't1');
    b.user('two', 't2');
    b.usage(2000, 't2');
    const { items, manifest } = await assemble(b.log, { maxTokens: 1000 });
    expect(contents(items)).toEqual(['<interrupt>\nturn interrupted\n</interrupt>', 'two']);
    expect(manifest).toMatchObject({ start: 'budget-boundary', startId: interrupt });
  });

  it("restarts at the current turn's first episode when there is no checkpoint or interrupt", async () => {
    const b = logBuilder();
    b.user('one', 't1');
    b.model([say('assistant', 'answer one')], 't1');
    b.usage(2000, 't1');
    const first = b.user('two', 't2');
    b.model([call('c1')], 't2');
    const { items, manifest } = await assemble(b.log, { maxTokens: 1000, turnId: 't2' });
    expect(contents(items)).toEqual(['two', 'function_call:c1', 'output:c1']);
    expect(manifest).toMatchObject({ start: 'budget-turn', startId: first, truncated: true });
    expect(manifest.dropped.map((drop) => [drop.episodeId, drop.reason])).toEqual([
      [1, 'budget'],
      [2, 'budget'],
      [3, 'meta'],
    ]);
  });

  it('sends no history when over budget with no boundary and no current turn', async () => {
    const b = logBuilder();
    b.user('one');
    b.usage(2000);
    b.user('two');
    const { items, manifest } = await assemble(b.log, { maxTokens: 1000 });
    expect(items).toEqual([]);
    expect(manifest).toMatchObject({ start: 'budget-none', startId: null, truncated: true });
    expect(explainEpisode(manifest, 3)).toContain('no history was sent');
  });

  it('sends no history when the budget is zero or negative, whatever the usage', async () => {
    const b = logBuilder();
    b.user('one', 't1');
    for (const [maxTokens, reserveOutputTokens] of [
      [0, 0],
      [100, 100],
      [100, 500],
    ] as const) {
      const { items, manifest } = await assemble(b.log, {
        maxTokens,
        reserveOutputTokens,
        turnId: 't1',
      });
      expect(items).toEqual([]);
      expect(manifest.start).toBe('budget-none');
      expect(manifest.dropped).toEqual([
        expect.objectContaining({ episodeId: 1, reason: 'budget' }),
      ]);
    }
  });

  it('never leaves half a pair when the cut falls between a call and its output', async () => {
    const b = logBuilder();
    b.user('read it', 't1');
    const [callEpisode = 0] = b.model([call('c1')], 't1');
    const interrupt = b.boundary('interrupt', 'stopped', undefined, 't1');
    const late = b.tool('c1', 'file contents', 't1');
    b.usage(9999, 't1');
    b.user('next', 't2');
    const { items, manifest } = await assemble(b.log, { maxTokens: 100, turnId: 't2' });
    expect(manifest.startId).toBe(interrupt);
    expect(contents(items)).toEqual(['<interrupt>\nstopped\n</interrupt>', 'next']);
    const drop = manifest.dropped.find((entry) => entry.episodeId === late);
    expect(drop).toMatchObject({ reason: 'budget' });
    expect(drop?.detail).toContain(`its call (episode ${callEpisode}`);
  });

  it('ignores a malformed turn.usage and uses the last valid one', async () => {
    const b = logBuilder();
    b.user('one');
    b.usage(50);
    b.log.append({ type: 'meta', payload: { event: 'turn.usage', data: { inputTokens: 'lots' } } });
    const { manifest } = await assemble(b.log, { maxTokens: 100 });
    expect(manifest.budget).toMatchObject({
      lastInputTokens: 50,
      usageEpisodeId: 2,
      exceeded: false,
    });
  });
});

describe('assemble: the estimate budget mode', () => {
  const big = 'x'.repeat(400);

  it('drops the oldest whole turns first and keeps the current turn', async () => {
    const b = logBuilder();
    b.user(big, 't1');
    b.model([say('assistant', big)], 't1');
    b.user(big, 't2');
    b.model([say('assistant', big)], 't2');
    b.user('short', 't3');
    const countTokens = (item: InputItem) =>
      item.type === 'message' ? String(item.content).length : 1;
    const { items, manifest } = await assemble(b.log, {
      maxTokens: 900,
      budgetMode: 'estimate',
      countTokens,
      turnId: 't3',
    });
    expect(items.map((item) => String((item as { content: string }).content).length)).toEqual([
      400, 400, 5,
    ]);
    expect(manifest.dropped.map((drop) => [drop.episodeId, drop.reason])).toEqual([
      [1, 'budget'],
      [2, 'budget'],
    ]);
    expect(manifest.budget).toEqual({ mode: 'estimate', limit: 900, exceeded: true, fits: true });
    expect(manifest.estimatedTokens).toBe(805);
    expect(manifest.truncated).toBe(true);
    expect(explainEpisode(manifest, 1)).toContain('token estimate');
  });

  it('never separates a call from its output, even across turns', async () => {
    const b = logBuilder();
    b.user(big, 't1');
    b.model([call('c1')], 't1');
    b.tool('c1', 'result', 't2');
    b.user('x', 't3');
    const countTokens = (item: InputItem) =>
      item.type === 'message'
        ? String(item.content).length
        : item.type === 'function_call'
          ? 10
          : 50;
    const { items, manifest } = await assemble(b.log, {
      maxTokens: 100,
      budgetMode: 'estimate',
      countTokens,
      turnId: 't3',
    });
    // Dropping turn t1 alone would fit, but would orphan t2's output: both go.
    expect(contents(items)).toEqual(['x']);
    expect(manifest.dropped.map((drop) => drop.episodeId)).toEqual([1, 2, 3]);
    expect(manifest.estimatedTokens).toBe(1);
  });

  it('keeps every call sharing a call_id with its output (a repeated id never leaves a call unpaired)', async () => {
    // Found by the pairing property (seed 1295820235): the current turn's call d, then another
    // call d and one output d. The budget used to cut the second call with the output, sending
    // the first call alone.
    const log = createEpisodic(undefined, { now: fixedClock });
    const callD = { type: 'function_call', call_id: 'd', name: 'tool', arguments: '{}' } as const;
    log.append({ type: 'item', meta: { source: 'model', turnId: 't2' }, payload: { item: callD } });
    log.append({ type: 'item', meta: { source: 'model' }, payload: { item: callD } });
    log.append({
      type: 'item',
      meta: { source: 'model' },
      payload: { item: { type: 'function_call_output', call_id: 'd', output: 'done' } },
    });
    const { items, manifest } = await assemble(log, {
      turnId: 't2',
      maxTokens: 1,
      budgetMode: 'estimate',
      danglingCalls: 'synthesize',
    });
    expect(items.map((item) => item.type)).toEqual([
      'function_call',
      'function_call',
      'function_call_output',
    ]);
    expect(manifest.budget?.exceeded).toBe(true);
  });

  it('keeps the start checkpoint and plugin items, and reports when even they do not fit', async () => {
    const b = logBuilder();
    b.boundary('checkpoint', 'summary', big);
    b.user(big, 't1');
    b.user('now', 't2');
    const { items, manifest } = await assemble(b.log, {
      maxTokens: 100,
      budgetMode: 'estimate',
      turnId: 't2',
      plugins: [{ name: 'journal', extendInput: () => [say('user', 'prefers short answers')] }],
    });
    expect(contents(items)).toEqual([
      `<checkpoint>\n${big}\n</checkpoint>`,
      'now',
      'prefers short answers',
    ]);
    expect(manifest.budget).toMatchObject({ exceeded: true, fits: false });
    expect(manifest.items.map((entry) => entry.plugin)).toEqual([undefined, undefined, 'journal']);
  });

  it('keeps everything when it fits', async () => {
    const b = logBuilder();
    b.user('a', 't1');
    const { manifest } = await assemble(b.log, { maxTokens: 1000, budgetMode: 'estimate' });
    expect(manifest.budget).toEqual({ mode: 'estimate', limit: 1000, exceeded: false, fits: true });
    expect(manifest.truncated).toBe(false);
  });
});

describe('assemble: normalization', () => {
  it('drops orphan outputs, truncates long outputs and synthesizes outputs for dangling calls', async () => {
    const b = logBuilder();
    const orphan = b.tool('ghost', 'no call for me');
    b.user('go');
    const [callA = 0, callB = 0] = b.model([call('a'), call('b')]);
    const long = b.tool('b', 'y'.repeat(8001));
    b.user('next');
    const { items, manifest } = await assemble(b.log);
    expect(contents(items)).toEqual([
      'go',
      'function_call:a',
      'function_call:b',
      'output:b',
      'output:a',
      'next',
    ]);
    expect(manifest.dropped).toEqual([
      expect.objectContaining({ episodeId: orphan, reason: 'orphan-output' }),
    ]);
    const truncated = items[3] as { output: string };
    expect(truncated.output).toBe(
      `${'y'.repeat(4000)}\n\n(truncated: 1 chars omitted)\n\n${'y'.repeat(4000)}`,
    );
    expect(manifest.items[3]).toMatchObject({
      episodeId: long,
      note: { kind: 'truncated-output' },
    });
    expect(items[4]).toEqual({
      type: 'function_call_output',
      call_id: 'a',
      output: INTERRUPTED_CALL_OUTPUT,
    });
    expect(manifest.items[4]).toMatchObject({
      episodeId: callA,
      synthetic: true,
      note: { kind: 'synthesized-output' },
    });
    expect(explainEpisode(manifest, long)).toContain('1 characters in the middle omitted');
    expect(explainEpisode(manifest, callB)).toBe(`Episode ${callB} was sent as item 2.`);
    // The log keeps the full output.
    const stored = b.log.read({ fromId: long - 1 })[0];
    expect(stored?.type === 'item' && stored.payload.item.output === 'y'.repeat(8001)).toBe(true);
  });

  it('keeps an output of exactly 8,000 characters unchanged and honours maxToolOutputChars', async () => {
    const b = logBuilder();
    b.model([call('a')]);
    b.tool('a', 'z'.repeat(8000));
    expect((await assemble(b.log)).items[1]).toEqual(output('a', 'z'.repeat(8000)));
    const short = await assemble(b.log, { maxToolOutputChars: 10 });
    expect((short.items[1] as { output: string }).output).toBe(
      'zzzzz\n\n(truncated: 7990 chars omitted)\n\nzzzzz',
    );
  });

  it('keeps or drops dangling calls when asked', async () => {
    const b = logBuilder();
    b.user('go');
    const [dangling = 0] = b.model([call('a')]);
    b.user('next');
    const kept = await assemble(b.log, { danglingCalls: 'keep' });
    expect(contents(kept.items)).toEqual(['go', 'function_call:a', 'next']);
    expect(kept.manifest.items[1]?.note?.kind).toBe('dangling-call-kept');
    const dropped = await assemble(b.log, { danglingCalls: 'drop' });
    expect(contents(dropped.items)).toEqual(['go', 'next']);
    expect(dropped.manifest.dropped).toEqual([
      expect.objectContaining({ episodeId: dangling, reason: 'dangling-call' }),
    ]);
  });

  it('uses a replacement normalize step, and reports removals it did not explain', async () => {
    const b = logBuilder();
    b.user('keep me');
    const secret = b.user('SECRET');
    const redact: Normalizer = (items, options) => {
      const result = normalizeItems(items, options);
      return {
        ...result,
        items: result.items.filter((entry) => !JSON.stringify(entry.item).includes('SECRET')),
      };
    };
    const { items, manifest } = await assemble(b.log, { normalize: redact });
    expect(contents(items)).toEqual(['keep me']);
    expect(manifest.dropped).toEqual([
      expect.objectContaining({ episodeId: secret, reason: 'normalize' }),
    ]);
  });

  it('rejects a normalize step that returns the wrong shape', async () => {
    const b = logBuilder();
    b.user('x');
    const error = await rejection(
      assemble(b.log, { normalize: (() => ({ items: 'nope' })) as unknown as Normalizer }),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('normalize');
    expect(error.message).toContain('items');
  });
});

describe('assemble: plugins', () => {
  it("appends a plugin's items after the history, normalized, without touching the log", async () => {
    const b = logBuilder();
    b.user('what do I like?', 't1');
    const before = b.log.toJSONL();
    const seen: unknown[] = [];
    const { items, manifest } = await assemble(b.log, {
      turnId: 't1',
      context: { user: 'ada' },
      plugins: [
        {
          name: 'recent-items',
          extendInput: ({ episodic, turnId, context, signal }) => {
            seen.push({ size: episodic.size, turnId, context, aborted: signal.aborted });
            return [];
          },
        },
        {
          name: 'journal',
          extendInput: async () => [
            say('user', 'User prefers concise answers.'),
            output('nobody-called', 'orphan from a plugin'),
            call('p1'),
          ],
        },
        { name: 'silent' },
      ],
    });
    expect(seen).toEqual([{ size: 1, turnId: 't1', context: { user: 'ada' }, aborted: false }]);
    expect(contents(items)).toEqual([
      'what do I like?',
      'User prefers concise answers.',
      'function_call:p1',
      'output:p1',
    ]);
    expect(manifest.items.map((entry) => entry.plugin)).toEqual([
      undefined,
      'journal',
      'journal',
      'journal',
    ]);
    expect(manifest.dropped).toEqual([
      expect.objectContaining({ plugin: 'journal', reason: 'orphan-output' }),
    ]);
    expect(b.log.toJSONL()).toBe(before);
  });

  it('fails with PLUGIN_ERROR naming the plugin that throws', async () => {
    const b = logBuilder();
    b.user('x');
    const error = await rejection(
      assemble(b.log, {
        plugins: [
          { name: 'fine', extendInput: () => [] },
          {
            name: 'broken-memory',
            extendInput: () => {
              throw new Error('database is locked');
            },
          },
        ],
      }),
    );
    expect(error.code).toBe('PLUGIN_ERROR');
    expect(error.message).toContain('"broken-memory"');
    expect(error.message).toContain('database is locked');
    expect(error.details).toMatchObject({ plugin: 'broken-memory' });
  });

  it('fails with PLUGIN_ERROR when a plugin returns invalid items', async () => {
    const b = logBuilder();
    const bad = [
      'not an array',
      [{ type: 'message', role: 'robot', content: 'x' }],
      [{ type: 'function_call_output', call_id: 'c', output: 'x', when: new Date() }],
    ];
    for (const returned of bad) {
      const error = await rejection(
        assemble(b.log, {
          plugins: [{ name: 'sloppy', extendInput: () => returned as never }],
        }),
      );
      expect(error.code).toBe('PLUGIN_ERROR');
      expect(error.message).toContain('"sloppy"');
    }
  });

  it('rejects duplicate or nameless plugins', async () => {
    const b = logBuilder();
    const duplicate = await rejection(assemble(b.log, { plugins: [{ name: 'a' }, { name: 'a' }] }));
    expect(duplicate.code).toBe('VALIDATION_ERROR');
    expect(duplicate.message).toContain('plugins[1].name');
    const nameless = await rejection(assemble(b.log, { plugins: [{ name: '' }] }));
    expect(nameless.message).toContain('plugins[0]');
  });

  it('stops with ABORTED when the signal fires', async () => {
    const b = logBuilder();
    b.user('x');
    const controller = new AbortController();
    const error = await rejection(
      assemble(b.log, {
        signal: controller.signal,
        plugins: [
          {
            name: 'slow',
            extendInput: () => {
              controller.abort();
              return [];
            },
          },
        ],
      }),
    );
    expect(error.code).toBe('ABORTED');
    controller.abort();
    expect((await rejection(assemble(b.log, { signal: controller.signal }))).code).toBe('ABORTED');
  });
});

describe('assemble: bad input', () => {
  const cases: Array<[string, unknown, unknown, string]> = [
    ['a non-log', { entries: [] }, undefined, 'assemble log'],
    ['an unknown startAt', createEpisodic(), { startAt: 'middle' }, 'startAt'],
    ['a negative maxTokens', createEpisodic(), { maxTokens: -1 }, 'maxTokens'],
    ['a fractional maxTokens', createEpisodic(), { maxTokens: 1.5 }, 'maxTokens'],
    [
      'reserveOutputTokens without maxTokens',
      createEpisodic(),
      { reserveOutputTokens: 5 },
      'reserveOutputTokens',
    ],
    ['budgetMode without maxTokens', createEpisodic(), { budgetMode: 'estimate' }, 'budgetMode'],
    [
      'an unknown budgetMode',
      createEpisodic(),
      { maxTokens: 5, budgetMode: 'exact' },
      'budgetMode',
    ],
    ['an unknown danglingCalls', createEpisodic(), { danglingCalls: 'heal' }, 'danglingCalls'],
    [
      'a tiny maxToolOutputChars',
      createEpisodic(),
      { maxToolOutputChars: 1 },
      'maxToolOutputChars',
    ],
    ['a non-function countTokens', createEpisodic(), { countTokens: 4 }, 'countTokens'],
    ['an empty turnId', createEpisodic(), { turnId: '' }, 'turnId'],
    ['an unknown option', createEpisodic(), { maxToken: 5 }, 'maxToken'],
    ['a non-signal', createEpisodic(), { signal: {} }, 'signal'],
  ];
  it.each(cases)(
    'rejects %s with VALIDATION_ERROR naming the field',
    async (_, log, options, field) => {
      const error = await rejection(assemble(log as never, options as never));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain(field);
    },
  );

  it('rejects a token counter that returns a bad count', async () => {
    const b = logBuilder();
    b.user('x');
    const error = await rejection(assemble(b.log, { countTokens: () => Number.NaN }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('countTokens');
  });
});

describe('explainEpisode', () => {
  it('explains sent, dropped, before-start and not-yet-logged episodes', async () => {
    const b = logBuilder(createEpisodic(undefined, { now: fixedClock }));
    b.user('before');
    const checkpoint = b.boundary('checkpoint', 'summary', 'sum');
    const usage = b.usage(1);
    const { manifest } = await assemble(b.log);
    expect(explainEpisode(manifest, checkpoint)).toBe(`Episode ${checkpoint} was sent as item 0.`);
    expect(explainEpisode(manifest, usage)).toMatch(/not sent \(meta\)/);
    expect(explainEpisode(manifest, 1)).toContain('before the start');
    expect(explainEpisode(manifest, 99)).toContain('not in the log yet');
    expect(() => explainEpisode(manifest, 0)).toThrow(/episode id/);
    expect(() => explainEpisode({} as never, 1)).toThrow(/manifest/);
  });
});
