import { test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  expectValidConversation,
  mixedLines,
  readFixture,
  recordsOf,
} from '../__fixtures__/read-fixture.js';
import { importClaudeCode } from '../import-transcript.js';

const text = readFixture('claude-code/session.jsonl');

describe('importClaudeCode', () => {
  const result = importClaudeCode(text, { label: 'session.jsonl' });
  const [main, sidechain] = result.conversations;

  it('reports the torn line and imports everything else', () => {
    expect(result.problems).toEqual([
      expect.objectContaining({
        source: 'session.jsonl',
        line: 26,
        message: expect.stringMatching(/^not valid JSON/),
      }),
    ]);
    expect(result.conversations).toHaveLength(2);
    for (const conversation of result.conversations) expectValidConversation(conversation);
  });

  it('titles the session from the summary whose leaf is in the file, not a foreign one', () => {
    expect(main?.title).toBe('Fix flaky order total test');
    expect(main?.sourceKey).toBe('7f3c2b1a-5d4e-4c3b-9a8f-1e2d3c4b5a60');
    expect(main?.state.context).toMatchObject({
      title: 'Fix flaky order total test',
      import: {
        format: 'claude-code',
        session_id: '7f3c2b1a-5d4e-4c3b-9a8f-1e2d3c4b5a60',
        cwd: '/home/dev/acme-api',
        git_branch: 'main',
      },
    });
  });

  it('maps content blocks to items: text, thinking, tool_use, tool_result, images', () => {
    const items =
      main?.episodes.flatMap((episode) =>
        episode.type === 'item' ? [episode.payload.item] : [],
      ) ?? [];
    expect(items[0]).toEqual({
      type: 'message',
      role: 'user',
      content: 'The test `orders total` fails on CI about one run in five. Can you find out why?',
    });
    expect(items).toContainEqual({
      type: 'reasoning',
      summary: [
        {
          type: 'summary_text',
          text: 'Flaky totals usually mean floating point or ordering. Look at the test first.',
        },
      ],
    });
    expect(items).toContainEqual({
      type: 'function_call',
      call_id: 'toolu_01A1',
      name: 'Bash',
      arguments: JSON.stringify({
        command: 'grep -rn "orders total" test/',
        description: 'Find the failing test',
      }),
    });
    expect(items).toContainEqual({
      type: 'function_call_output',
      call_id: 'toolu_01A2',
      output: [
        { type: 'input_text', text: expect.stringContaining('export async function total') },
      ],
    });
    const image = items.find(
      (item) => item.type === 'message' && Array.isArray(item.content) && item.content.length === 2,
    );
    expect(image).toMatchObject({
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: 'Fix it by summing integer cents instead. Here is the CI log:',
        },
        { type: 'input_image', image_url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) },
      ],
    });
  });

  it('keeps what has no place in an item in meta.raw (signature, cwd, toolUseResult)', () => {
    const reasoning = main?.episodes.find(
      (episode) => episode.type === 'item' && episode.payload.item.type === 'reasoning',
    );
    expect(reasoning?.meta).toMatchObject({
      source: 'model',
      ts: '2025-06-02T09:14:06.511Z',
      origin: { format: 'claude-code', line: 4, id: 'a0000000-0000-4000-8000-000000000002' },
      raw: {
        requestId: 'req_011CPqW1aXQ',
        cwd: '/home/dev/acme-api',
        blocks: [{ type: 'thinking', signature: 'EqQBCkYIBRgCKkB...' }],
      },
    });
    const output = main?.episodes.find(
      (episode) => episode.type === 'item' && episode.payload.item.type === 'function_call_output',
    );
    expect(output?.meta.raw).toMatchObject({
      toolUseResult: { stdout: expect.any(String), interrupted: false },
    });
  });

  it('keeps abandoned branches, sidechains and entries without a model meaning as import.raw', () => {
    const raw =
      main?.episodes.filter(
        (episode) => episode.type === 'meta' && episode.payload.event === 'import.raw',
      ) ?? [];
    const reasons = raw.map(
      (episode) => (episode.payload as { data: { reason: string } }).data.reason,
    );
    expect(reasons).toEqual([
      'summary entry',
      'summary entry',
      'file-history-snapshot entry',
      'abandoned branch',
      'abandoned branch',
      'system local_command',
    ]);
    const abandoned = raw.find(
      (episode) =>
        (episode.payload as { data: { reason: string } }).data.reason === 'abandoned branch',
    );
    expect(abandoned?.payload).toMatchObject({
      data: { entry: { message: { content: 'Fix it with a rounding helper.' } } },
    });
    expect(sidechain?.sourceKey).toBe(
      '7f3c2b1a-5d4e-4c3b-9a8f-1e2d3c4b5a60:sidechain:b0000000-0000-4000-8000-000000000001',
    );
    expect(sidechain?.state.context).toMatchObject({
      import: { sidechain_of: '7f3c2b1a-5d4e-4c3b-9a8f-1e2d3c4b5a60' },
    });
    expect(sidechain?.runs).toHaveLength(1);
  });

  it('turns a compaction and its summary, and the summary of this session, into checkpoints', () => {
    const boundaries = main?.episodes.filter((episode) => episode.type === 'boundary') ?? [];
    // The summary of the session comes right after its leaf (the last message).
    expect(boundaries.map((episode) => episode.payload)).toEqual([
      expect.objectContaining({ title: 'conversation compacted (manual)' }),
      { reason: 'checkpoint', title: 'summary', content: 'Fix flaky order total test' },
    ]);
    expect(main?.episodes.at(-1)?.type).toBe('boundary');
    const boundary = boundaries[0];
    expect(boundary?.payload).toEqual({
      reason: 'checkpoint',
      title: 'conversation compacted (manual)',
      content: expect.stringMatching(/^This session is being continued/),
    });
    expect(boundary?.meta.raw).toMatchObject({
      compactMetadata: { trigger: 'manual', preTokens: 24100 },
    });
  });

  it('writes one run per user turn with responses, usage (cache included) and tool outputs', () => {
    expect(main?.runs).toHaveLength(3);
    const [first, , last] = main?.runs ?? [];
    const responses = recordsOf(first?.records ?? [], 'llm.response');
    expect(responses.map((record) => record.seq)).toEqual([1, 2, 3]);
    expect(responses[0]).toMatchObject({
      model: { provider: 'anthropic', name: 'claude-sonnet-4-20250514' },
      output: {
        usage: {
          model: 'claude-sonnet-4-20250514',
          input_tokens: 13484,
          input_cache_creation_tokens: 13480,
          output_tokens: 96,
        },
        stop_reason: 'tool_use',
      },
    });
    expect(recordsOf(first?.records ?? [], 'run.start')[0]).toMatchObject({
      input: {
        type: 'text',
        text: 'The test `orders total` fails on CI about one run in five. Can you find out why?',
      },
    });
    expect(recordsOf(first?.records ?? [], 'run.end')[0]).toMatchObject({
      outcome: 'completed',
      final: expect.stringMatching(/integer cents/),
    });
    expect(recordsOf(last?.records ?? [], 'tool.output')[0]).toMatchObject({
      tool: 'Edit',
      tool_call_id: 'toolu_01A6',
      is_error: true,
    });
    expect(main?.state.invoke_seq).toBe(5);
    expect(recordsOf(last?.records ?? [], 'header')[0]).toMatchObject({
      client: { name: 'episodic-import', version: '1' },
      server: { name: 'claude-code', version: '1.0.83' },
      runtime: { cwd: '/home/dev/acme-api' },
    });
  });

  it('derives the same ids and data every time (importing is deterministic)', () => {
    // Only the label (the file name, never stored) differs.
    const unlabelled = (conversations: typeof result.conversations) =>
      conversations.map(({ label: _label, ...rest }) => rest);
    const elsewhere = importClaudeCode(text, { label: 'elsewhere.jsonl' });
    expect(unlabelled(importClaudeCode(text).conversations)).toEqual(
      unlabelled(elsewhere.conversations),
    );
    expect(elsewhere.conversations[0]?.label).toBe('elsewhere.jsonl');
    expect(importClaudeCode(text, { label: 'session.jsonl' }).conversations).toEqual(
      result.conversations,
    );
  });

  it('imports a sub-agent file (every entry a sidechain) as its own conversation', () => {
    const agentFile = text
      .split('\n')
      .filter((line) => line.includes('"isSidechain": true'))
      .join('\n');
    const agent = importClaudeCode(agentFile);
    expect(agent.conversations.map((conversation) => conversation.sourceKey)).toEqual([
      '7f3c2b1a-5d4e-4c3b-9a8f-1e2d3c4b5a60:sidechain:b0000000-0000-4000-8000-000000000001',
    ]);
    expect(agent.conversations[0]?.sessionId).toBe(sidechain?.sessionId);
  });

  it('reports a file without messages instead of inventing a session', () => {
    const summaries = '{"type":"summary","summary":"x","leafUuid":"y"}\n';
    expect(importClaudeCode(summaries, { label: 'index.jsonl' })).toEqual({
      format: 'claude-code',
      conversations: [],
      problems: [
        {
          source: 'index.jsonl',
          message: expect.stringMatching(/no user, assistant or system entries/),
        },
      ],
      warnings: [],
    });
  });

  it('rejects bad arguments with a validation error', () => {
    expect(() => importClaudeCode(42 as unknown as string)).toThrow(/claude-code transcript text/);
    expect(() => importClaudeCode('', { time: 'yesterday' })).toThrow(/time/);
  });

  // Any mix of valid entries, other JSON and garbage: the importer never throws, reports each line
  // that is not a JSON object exactly once, and produces valid Episodic data.
  test.prop([mixedLines(text)])('never throws and reports every damaged line', (lines) => {
    const imported = importClaudeCode(lines.join('\n'));
    const bad = lines.filter((line) => {
      if (line.trim() === '' || /^[\s\0]*$/.test(line)) return false;
      try {
        const value = JSON.parse(line.replace(/^\0+|\0+$/g, '').trim());
        return typeof value !== 'object' || value === null || Array.isArray(value);
      } catch {
        return true;
      }
    });
    expect(imported.problems.filter((problem) => problem.line !== undefined).length).toBe(
      bad.length,
    );
    for (const conversation of imported.conversations) expectValidConversation(conversation);
  });
});
