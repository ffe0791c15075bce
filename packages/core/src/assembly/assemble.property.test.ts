import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEpisodic } from '../episodic/index.js';
import { BOUNDARY_REASONS, type InputItem } from '../schema/index.js';
import { episodeArbitrary, itemArbitrary } from './__fixtures__/arbitraries.js';
import { fixedClock } from './__fixtures__/logs.js';
import { type AssembleOptions, assemble } from './assemble.js';

/** True when every output follows a call with its id and every call is followed by its output. */
function isPaired(items: readonly InputItem[]): boolean {
  const calls = new Set<string>();
  for (const item of items) {
    if (item.type === 'function_call') calls.add(String(item.call_id));
    if (item.type === 'function_call_output' && !calls.has(String(item.call_id))) return false;
  }
  const answered = new Set<string>();
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index] as InputItem;
    if (item.type === 'function_call_output') answered.add(String(item.call_id));
    if (item.type === 'function_call' && !answered.has(String(item.call_id))) return false;
  }
  return true;
}

const optionsArbitrary: fc.Arbitrary<AssembleOptions> = fc
  .record(
    {
      startAt: fc.constantFrom('beginning', 'last-boundary', ...BOUNDARY_REASONS),
      turnId: fc.constantFrom('t1', 't2', 't3'),
      maxTokens: fc.nat({ max: 600 }),
      reserveOutputTokens: fc.nat({ max: 100 }),
      budgetMode: fc.constantFrom('usage' as const, 'estimate' as const),
      maxToolOutputChars: fc.integer({ min: 2, max: 20 }),
    },
    { requiredKeys: [] },
  )
  .map((options) => {
    // Budget fields only make sense with maxTokens.
    if (options.maxTokens === undefined) {
      const { reserveOutputTokens: _reserve, budgetMode: _mode, ...rest } = options;
      return rest;
    }
    return options;
  });

const logArbitrary = fc.array(episodeArbitrary, { maxLength: 40 });
const pluginItemsArbitrary = fc.array(itemArbitrary, { maxLength: 4 });

describe('assemble: properties', () => {
  it('never sends an unpaired call or an orphan output under synthesize or drop', async () => {
    await fc.assert(
      fc.asyncProperty(
        logArbitrary,
        optionsArbitrary,
        fc.constantFrom('synthesize' as const, 'drop' as const),
        pluginItemsArbitrary,
        async (episodes, options, danglingCalls, pluginItems) => {
          const log = createEpisodic(undefined, { now: fixedClock });
          for (const episode of episodes) log.append(episode);
          const { items, manifest } = await assemble(log, {
            ...options,
            danglingCalls,
            plugins: [{ name: 'extra', extendInput: () => pluginItems }],
          });
          expect(isPaired(items)).toBe(true);
          expect(manifest.itemCount).toBe(items.length);
          expect(manifest.items).toHaveLength(items.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accounts for every episode from the start on: sent or dropped with a reason', async () => {
    await fc.assert(
      fc.asyncProperty(logArbitrary, optionsArbitrary, async (episodes, options) => {
        const log = createEpisodic(undefined, { now: fixedClock });
        for (const episode of episodes) log.append(episode);
        const { manifest } = await assemble(log, options);
        const sent = new Set(
          manifest.items.filter((item) => !item.synthetic).map((item) => item.episodeId),
        );
        const dropped = new Set(manifest.dropped.map((drop) => drop.episodeId));
        const firstConsidered = Math.min(
          manifest.startId ?? Number.POSITIVE_INFINITY,
          ...manifest.dropped.map((drop) => drop.episodeId ?? Number.POSITIVE_INFINITY),
        );
        for (const episode of log.read({ fromId: 0 })) {
          if (episode.id < firstConsidered) continue;
          expect(sent.has(episode.id) !== dropped.has(episode.id)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never changes the log', async () => {
    await fc.assert(
      fc.asyncProperty(
        logArbitrary,
        optionsArbitrary,
        fc.constantFrom('synthesize' as const, 'keep' as const, 'drop' as const),
        async (episodes, options, danglingCalls) => {
          const log = createEpisodic(undefined, { now: fixedClock });
          for (const episode of episodes) log.append(episode);
          const before = log.toJSONL();
          await assemble(log, { ...options, danglingCalls });
          expect(log.toJSONL()).toBe(before);
          expect(log.size).toBe(episodes.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
