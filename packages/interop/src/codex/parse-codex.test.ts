import { test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  expectValidConversation,
  mixedLines,
  readFixture,
  recordsOf,
} from '../__fixtures__/read-fixture.js';
import { importCodex } from '../import-transcript.js';

const ROLLOUT = 'codex/rollout-2025-10-29T00-59-38-0199a2f4-6b1c-7d22-9e31-4c5a6b7c8d9e.jsonl';

describe('importCodex', () => {
  const text = readFixture(ROLLOUT);
  const result = importCodex(text, { label: 'rollout.jsonl' });
  const conversation = result.conversations[0];

  it('reads a rollout into one session, reporting the damaged line', () => {
    expect(result.problems).toEqual([
      expect.objectContaining({ source: 'rollout.jsonl', line: 14 }),
    ]);
    expect(result.conversations).toHaveLength(1);
    expectValidConversation(conversation as NonNullable<typeof conversation>);
    expect(conversation).toMatchObject({
      sourceKey: '0199a2f4-6b1c-7d22-9e31-4c5a6b7c8d9e',
      title: 'Fix npm test on clean checkout',
      state: {
        context: {
          import: {
            format: 'codex',
            session_id: '0199a2f4-6b1c-7d22-9e31-4c5a6b7c8d9e',
            cli_version: '0.46.0',
            git: { branch: 'main' },
          },
        },
      },
    });
  });

  it('keeps Responses items as they are, and event_msg and turn_context lines as import.raw', () => {
    const items = conversation?.episodes.flatMap((episode) =>
      episode.type === 'item' ? [episode.payload.item] : [],
    );
    expect(items?.map((item) => item.type)).toEqual([
      'message',
      'message',
      'reasoning',
      'function_call',
      'function_call_output',
      'message',
      'message',
      'custom_tool_call',
      'custom_tool_call_output',
      'message',
    ]);
    expect(items?.[2]).toMatchObject({
      type: 'reasoning',
      encrypted_content: 'gAAAAABo_enc_reasoning_1',
    });
    const reasons = conversation?.episodes
      .filter((episode) => episode.type === 'meta' && episode.payload.event === 'import.raw')
      .map((episode) => (episode.payload as { data: { reason: string } }).data.reason);
    expect(reasons).toContain('turn_context');
    expect(reasons).toContain('event_msg patch_apply_end');
    expect(
      conversation?.episodes.find((episode) => episode.type === 'boundary')?.payload,
    ).toMatchObject({
      reason: 'checkpoint',
      content: expect.stringMatching(/pretest script/),
    });
  });

  it('recovers prompts recorded only as user_message events (Codex Desktop), once each', () => {
    const desktop = importCodex(
      readFixture('codex/desktop-rollout-019b1e7a-3c2d-7f40-8a61-5e4d3c2b1a09.jsonl'),
    );
    expect(desktop.problems).toEqual([]);
    expect(desktop.warnings).toEqual([]);
    const imported = desktop.conversations[0];
    expectValidConversation(imported as NonNullable<typeof imported>);
    const typed = imported?.state.messages
      .filter((message) => message.role === 'user')
      .map((message) => JSON.stringify(message.content));
    expect(typed).toEqual([
      expect.stringContaining('<environment_context>'),
      expect.stringContaining('Which files define the order routes?'),
      expect.stringContaining('Thanks. Now add a 404 test for the admin one.'),
    ]);
    // One run per prompt (before: one run, started by the injected context, and no prompt).
    expect(imported?.runs).toHaveLength(2);
    const starts = imported?.runs.map(
      (run) => recordsOf(run.records, 'run.start')[0]?.input as { text: string },
    );
    expect(starts?.map((input) => input.text)).toEqual([
      'Which files define the order routes?',
      'Thanks. Now add a 404 test for the admin one.',
    ]);
    // The CLI rollout holds each prompt twice (a response_item and an event): one message each.
    const cli = conversation?.state.messages.filter(
      (message) =>
        message.role === 'user' && JSON.stringify(message.content).includes('npm test` fail'),
    );
    expect(cli).toHaveLength(1);
  });

  it('starts runs at the typed request, not the injected environment context', () => {
    expect(conversation?.runs).toHaveLength(2);
    const [first, second] = conversation?.runs ?? [];
    expect(recordsOf(first?.records ?? [], 'run.start')[0]?.input).toEqual({
      type: 'text',
      text: 'Why does `npm test` fail on a clean checkout?',
    });
    expect(recordsOf(first?.records ?? [], 'header')[0]).toMatchObject({
      server: { name: 'codex', version: '0.46.0' },
      model: { provider: 'openai', name: 'gpt-5-codex' },
      prompts: { system: 'You are Codex, a coding agent running in a terminal.' },
    });
    expect(recordsOf(second?.records ?? [], 'tool.output')[0]).toMatchObject({
      tool: 'apply_patch',
      tool_call_id: 'call_Wm2Pz9Lk4Rt1',
    });
  });

  it('attaches token_count usage to the response it follows', () => {
    const responses = recordsOf(conversation?.runs[0]?.records ?? [], 'llm.response');
    expect(responses.map((record) => (record.output as { usage?: unknown }).usage)).toEqual([
      {
        model: 'gpt-5-codex',
        input_tokens: 5210,
        output_tokens: 188,
        total_tokens: 5398,
        input_cached_tokens: 3072,
      },
      {
        model: 'gpt-5-codex',
        input_tokens: 5592,
        output_tokens: 57,
        total_tokens: 5649,
        input_cached_tokens: 5120,
      },
    ]);
    const usage = conversation?.episodes.filter(
      (episode) => episode.type === 'meta' && episode.payload.event === 'turn.usage',
    );
    expect(usage?.map((episode) => (episode.payload as { data: unknown }).data)).toEqual([
      { inputTokens: 5210, outputTokens: 188, totalTokens: 5398 },
      { inputTokens: 5592, outputTokens: 57, totalTokens: 5649 },
      { inputTokens: 6248, outputTokens: 155, totalTokens: 6403 },
    ]);
  });

  it('reads the legacy layout (bare header and items, state records)', () => {
    const legacy = importCodex(readFixture('codex/legacy-rollout.jsonl'));
    expect(legacy.problems).toEqual([]);
    const [only] = legacy.conversations;
    expectValidConversation(only as NonNullable<typeof only>);
    expect(only?.sourceKey).toBe('5973b6c0-94b8-487b-a530-2aeb6098ae0e');
    const items = only?.episodes.flatMap((episode) =>
      episode.type === 'item' ? [episode.payload.item] : [],
    );
    // `"id": null` is dropped (Responses ids are strings); `{ content, success }` outputs become text.
    expect(items?.[0]).toEqual({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'List the files in src.' }],
    });
    expect(items?.[3]).toEqual({
      type: 'function_call_output',
      call_id: 'call_Q2nV7',
      output: 'index.ts\norders.ts\ninvoices.ts\n',
    });
    expect(recordsOf(only?.runs[0]?.records ?? [], 'tool.output')[0]).toMatchObject({
      tool: 'local_shell_call',
      is_error: false,
    });
  });

  it('derives the session id from the content when there is no session_meta id', () => {
    const bare = '{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}\n';
    const first = importCodex(bare);
    expect(first.problems).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/no session_meta/) }),
    ]);
    expect(importCodex(bare).conversations[0]?.sessionId).toBe(first.conversations[0]?.sessionId);
  });

  test.prop([mixedLines(text)])(
    'never throws on arbitrary lines and yields valid data',
    (lines) => {
      const imported = importCodex(lines.join('\n'));
      for (const converted of imported.conversations) expectValidConversation(converted);
    },
  );
});
