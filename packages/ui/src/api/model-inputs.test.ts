import { assemble, createEpisodic } from '@episodic/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { explainInInput, manifestView } from './manifest-view.js';
import { modelInputs } from './model-inputs.js';

let home: UiHome;

beforeAll(async () => {
  home = await createUiHome();
});
afterAll(() => home.close());

describe('GET /api/runs/:id/inputs', () => {
  it('shows each model input with its messages, manifest, budget and usage', async () => {
    const result = await modelInputs(home.stores, home.ids.toolRunId, {});
    expect(result.session_id).toBe(home.ids.sessionId);
    expect(result.inputs).toHaveLength(1);
    const [input] = result.inputs;
    expect(input?.messages).toEqual([
      {
        role: 'user',
        text: 'What is in the log?',
        cut: false,
        chars: 19,
        tool_calls: [],
        tool_call_id: null,
      },
    ]);
    expect(input?.usage).toEqual({ input_tokens: 150, output_tokens: 7 });
    expect(input?.manifest).toMatchObject({
      form: 'summary',
      start_id: 2,
      start: 'budget-boundary',
      budget: { limit: 100, last_input_tokens: 150, exceeded: true },
      dropped: [{ reason: 'budget', count: 1, episode_ids: [1] }],
      notes: [{ episode_id: 2, kind: 'synthesized-output' }],
    });
    expect(input?.explanation).toBeNull();
  });

  it('answers "why did the model not see episode N?" from the recorded summary', async () => {
    const explain = async (episode: number) =>
      (await modelInputs(home.stores, home.ids.toolRunId, { episode: String(episode) })).inputs[0]
        ?.explanation;
    expect(await explain(1)).toMatch(/^Episode 1 was not sent \(budget\)/);
    expect(await explain(2)).toMatch(
      /^Episode 2 was sent, changed on the way \(synthesized-output\)/,
    );
    // Episode 3 is the turn's usage meta episode, written after the model call.
    expect(await explain(3)).toMatch(/not in the log yet|meta/);
    expect(await explain(99)).toMatch(/^Episode 99 was sent/);
    await expect(
      modelInputs(home.stores, home.ids.toolRunId, { episode: '0' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('manifestView and explainInInput', () => {
  it("use core's explainEpisode for a full AssemblyManifest", async () => {
    const log = createEpisodic();
    log.append({ type: 'meta', payload: { event: 'turn.usage', data: { inputTokens: 10 } } });
    log.append({
      type: 'item',
      payload: { item: { type: 'message', role: 'user', content: 'hi' } },
    });
    const { manifest } = await assemble(log);
    const view = manifestView(manifest);
    expect(view.form).toBe('full');
    expect(view.dropped).toEqual([{ reason: 'meta', count: 1, episode_ids: [1] }]);
    expect(explainInInput(manifest, view, 1, undefined, null)).toMatch(
      /^Episode 1 was not sent \(meta\)/,
    );
    expect(explainInInput(manifest, view, 2, undefined, null)).toMatch(
      /^Episode 2 was sent as item 0/,
    );
  });

  it('say so when no manifest was recorded', () => {
    const view = manifestView(undefined);
    expect(view.form).toBe('none');
    expect(explainInInput(undefined, view, 4, undefined, null)).toMatch(/no recorded manifest/);
  });
});
