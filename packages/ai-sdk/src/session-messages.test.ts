import { compact, explainEpisode } from '@episodic/core';
import { describe, expect, it } from 'vitest';
import { AI_VERSIONS, newConversation } from './__fixtures__/ai-versions.js';
import { assembleModelMessages, sessionMessages } from './session-messages.js';

async function seed() {
  const conversation = newConversation();
  const { session } = conversation;
  await session.runTurn('Read a.txt', () => ({
    output: [
      { type: 'message', role: 'assistant', content: 'Reading.' },
      {
        type: 'function_call',
        call_id: 'call_a',
        name: 'read_file',
        arguments: '{"path":"a.txt"}',
      },
    ],
    usage: { inputTokens: 900, outputTokens: 10 },
  }));
  return conversation;
}

describe('sessionMessages', () => {
  it('gives the assembled history as ModelMessages, heals the unanswered call and marks every message', async () => {
    const { session } = await seed();
    const messages = await sessionMessages(session, { input: 'Go on.' });
    expect(messages).toEqual([
      { role: 'user', content: 'Read a.txt', providerOptions: { episodic: { episodeIds: [1] } } },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          {
            type: 'tool-call',
            toolCallId: 'call_a',
            toolName: 'read_file',
            input: { path: 'a.txt' },
          },
        ],
        providerOptions: { episodic: { episodeIds: [2, 3] } },
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_a',
            toolName: 'read_file',
            output: { type: 'text', value: expect.stringContaining('interrupted') },
          },
        ],
        providerOptions: { episodic: { episodeIds: [3] } },
      },
      { role: 'user', content: 'Go on.' },
    ]);
  });

  it('starts at the last checkpoint and applies the token budget, and explains it in the manifest', async () => {
    const { session } = await seed();
    await compact(session, { summarize: () => 'The user asked for a.txt; the read was cut off.' });
    await session.runTurn('Thanks', () => ({
      output: [{ type: 'message', role: 'assistant', content: 'Welcome.' }],
    }));
    const afterCheckpoint = await sessionMessages(session);
    expect(afterCheckpoint.map((message) => message.role)).toEqual(['user', 'user', 'assistant']);
    expect(afterCheckpoint[0]).toMatchObject({ content: expect.stringContaining('<checkpoint>') });

    const { messages, manifest } = await assembleModelMessages(session, {
      startAt: 'beginning',
      maxTokens: 500,
      input: [{ role: 'user', content: [{ type: 'text', text: 'Next.' }] }],
    });
    // The last usage (900 input tokens) is over 500: assembly restarts at the checkpoint.
    expect(manifest.budget).toMatchObject({ exceeded: true, limit: 500 });
    expect(manifest.start).toBe('budget-boundary');
    expect(explainEpisode(manifest, 1)).toContain('budget');
    expect(messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'Next.' }] });
    expect(messages[0]).toMatchObject({ content: expect.stringContaining('<checkpoint>') });
  });

  it('is accepted by the AI SDK as it is', async () => {
    const { session } = await seed();
    for (const version of AI_VERSIONS) {
      const model = new version.test.MockLanguageModelV3({
        doGenerate: async () =>
          ({
            content: [{ type: 'text', text: 'ok' }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
            warnings: [],
          }) as never,
      });
      const result = await version.ai.generateText({
        model,
        messages: await sessionMessages(session, { input: 'Again?' }),
      });
      expect(result.text).toBe('ok');
      expect(model.doGenerateCalls[0]?.prompt.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'user',
      ]);
    }
  });

  it('rejects bad input, naming the field', async () => {
    const { session } = await seed();
    const invalid = (promise: Promise<unknown>, message: RegExp) =>
      expect(promise).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(message),
      });
    await invalid(sessionMessages({} as never), /session.*Episodic session/);
    await invalid(sessionMessages(session, { input: '' }), /input/);
    await invalid(
      sessionMessages(session, { input: { role: 'robot', content: 'x' } as never }),
      /input/,
    );
    await invalid(sessionMessages(session, { maxTokens: -1 }), /maxTokens/);
    await invalid(sessionMessages(session, 'x' as never), /options/);
  });
});
