import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { expectValidConversation, readFixture } from '../__fixtures__/read-fixture.js';
import { importClaudeCode } from '../import-transcript.js';
import { importTranscriptFiles } from '../read-transcript-files.js';

const SESSION = '3d9e5c71-2a4b-4f6e-8c1d-0b7a6e5f4d32';
const MAIN = `claude-code-2.1/${SESSION}.jsonl`;
const AGENT = `claude-code-2.1/${SESSION}/subagents/agent-a7f3c21.jsonl`;

type Imported = ReturnType<typeof importClaudeCode>['conversations'][number];

function itemsOf(conversation: Imported | undefined) {
  return (conversation?.episodes ?? []).flatMap((episode) =>
    episode.type === 'item' ? [episode.payload.item] : [],
  );
}

function rawReasons(conversation: Imported | undefined): string[] {
  return (conversation?.episodes ?? []).flatMap((episode) =>
    episode.type === 'meta' && episode.payload.event === 'import.raw'
      ? [(episode.payload.data as { reason: string }).reason]
      : [],
  );
}

describe('Claude Code 2.1 sessions', () => {
  const result = importClaudeCode(readFixture(MAIN), { label: 'main.jsonl' });
  const main = result.conversations[0];

  it('follows the parent chain through progress, attachment and system entries', () => {
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.conversations).toHaveLength(1);
    expectValidConversation(main as Imported);
    // Every message on the chain to the leaf, in order: 16 items, not the 2 before the fix.
    const texts = itemsOf(main).map((item) =>
      item.type === 'message'
        ? `${item.role}: ${JSON.stringify(item.content).slice(0, 30)}`
        : item.type,
    );
    expect(texts).toEqual([
      'user: "Totals are off by a cent on s',
      'reasoning',
      'function_call',
      'function_call_output',
      'assistant: "I\'ll ask a sub-agent to list ',
      'function_call',
      'function_call_output',
      'function_call',
      'function_call_output',
      'assistant: "Done: `total` now sums intege',
      'user: "Also round the tax, half up, ',
      'assistant: "Tax is now rounded half up to',
      'user: "Run the tests."',
      'function_call',
      'function_call_output',
      'assistant: "All 42 tests pass."',
    ]);
    expect(main?.state.messages.length).toBe(15);
    expect(main?.runs).toHaveLength(3);
    // Only the redo is an abandoned branch; the rest of the raw data has no model meaning.
    expect(rawReasons(main).filter((reason) => reason === 'abandoned branch')).toHaveLength(2);
    expect(rawReasons(main)).toContain('progress entry');
  });

  it('keeps the compaction (with progress between boundary and summary) and the summary as checkpoints', () => {
    const boundaries = (main?.episodes ?? []).filter((episode) => episode.type === 'boundary');
    expect(boundaries.map((episode) => episode.payload)).toEqual([
      {
        reason: 'checkpoint',
        title: 'conversation compacted (auto)',
        content: expect.stringMatching(/^This session is being continued/),
      },
      { reason: 'checkpoint', title: 'summary', content: 'Integer cents for order totals and tax' },
    ]);
    expect(main?.title).toBe('Integer cents for order totals and tax');
  });

  it('imports the sub-agent file as a session that names its parent session', async () => {
    const agent = importClaudeCode(readFixture(AGENT)).conversations;
    expect(agent).toHaveLength(1);
    expect(agent[0]?.parentSessionId).toBe(main?.sessionId);
    expect(agent[0]?.state.context).toMatchObject({
      import: {
        sidechain_of: SESSION,
        agent_id: 'a7f3c21',
        parent_session_id: main?.sessionId,
      },
    });
    expect(itemsOf(agent[0]).map((item) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'message',
    ]);
    // A folder import reads the session and its subagents/ folder.
    const folder = await importTranscriptFiles(
      'claude-code',
      new URL('../../../../fixtures/transcripts/claude-code-2.1', import.meta.url).pathname,
    );
    expect(folder.conversations.map((conversation) => conversation.parentSessionId)).toEqual([
      main?.sessionId,
      undefined,
    ]);
  });

  it('warns when most message entries of a file end up as raw data', () => {
    // The leaf hangs off an entry that is not in the file: every other message is off its path.
    const lines = readFixture(MAIN).trimEnd().split('\n');
    const last = JSON.parse(lines.at(-2) as string) as Record<string, unknown>;
    const orphan = {
      ...last,
      type: 'user',
      uuid: 'f0000000-0000-4000-8000-000000000001',
      parentUuid: 'f0000000-0000-4000-8000-000000000000',
      message: { role: 'user', content: 'hello?' },
    };
    const broken = importClaudeCode(`${lines.join('\n')}\n${JSON.stringify(orphan)}\n`, {
      label: 'broken.jsonl',
    });
    expect(broken.warnings).toEqual([
      {
        source: 'broken.jsonl',
        message: expect.stringMatching(
          /^most message entries were kept as raw data.*23 abandoned branch/,
        ),
      },
    ]);
  });
});

interface Entry {
  readonly uuid: string;
  readonly parentUuid: string | null;
  readonly type: string;
  readonly text?: string;
}

const NON_MESSAGES = ['progress', 'attachment', 'system'] as const;

/**
 * A chain of messages with non-message links between them, and abandoned branches off any link,
 * written before the chain's last message (so that message is the leaf).
 */
const chains = fc
  .record({
    steps: fc.array(
      fc.record({
        kind: fc.constantFrom('user', 'assistant', ...NON_MESSAGES),
        branch: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 40 },
    ),
  })
  .map(({ steps }) => {
    const lines: Entry[] = [];
    const chain: Entry[] = [];
    let count = 0;
    const uuid = () => `e0000000-0000-4000-8000-${String(++count).padStart(12, '0')}`;
    let parent: string | null = null;
    steps.forEach((step, index) => {
      const entry: Entry =
        step.kind === 'user' || step.kind === 'assistant'
          ? { uuid: uuid(), parentUuid: parent, type: step.kind, text: `m${index}` }
          : { uuid: uuid(), parentUuid: parent, type: step.kind };
      lines.push(entry);
      chain.push(entry);
      parent = entry.uuid;
      if (step.branch !== undefined) {
        // A redo: messages (and a link) off this entry that the chain does not continue.
        let branchParent = entry.uuid;
        for (let position = 0; position < step.branch; position++) {
          const branch: Entry = {
            uuid: uuid(),
            parentUuid: branchParent,
            type: position % 2 === 0 ? 'user' : 'progress',
            ...(position % 2 === 0 ? { text: `b${index}.${position}` } : {}),
          };
          lines.push(branch);
          branchParent = branch.uuid;
        }
      }
    });
    const leaf: Entry = { uuid: uuid(), parentUuid: parent, type: 'assistant', text: 'leaf' };
    lines.push(leaf);
    chain.push(leaf);
    return { lines, chain };
  });

function toLine(entry: Entry, index: number): string {
  const common = {
    parentUuid: entry.parentUuid,
    isSidechain: false,
    sessionId: 'prop-session',
    uuid: entry.uuid,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
  };
  if (entry.type === 'user')
    return JSON.stringify({
      ...common,
      type: 'user',
      message: { role: 'user', content: entry.text },
    });
  if (entry.type === 'assistant')
    return JSON.stringify({
      ...common,
      type: 'assistant',
      message: {
        id: `msg_${index}`,
        role: 'assistant',
        content: [{ type: 'text', text: entry.text }],
      },
    });
  if (entry.type === 'system')
    return JSON.stringify({ ...common, type: 'system', subtype: 'stop_hook_summary' });
  return JSON.stringify({ ...common, type: entry.type, data: { type: 'hook_progress' } });
}

test.prop([chains])(
  'imports every message on the chain to the leaf, in order, whatever lies between them',
  ({ lines, chain }) => {
    const imported = importClaudeCode(lines.map(toLine).join('\n'));
    expect(imported.conversations).toHaveLength(1);
    const texts = itemsOf(imported.conversations[0]).map((item) =>
      item.type === 'message'
        ? typeof item.content === 'string'
          ? item.content
          : (item.content as Array<{ text: string }>)[0]?.text
        : item.type,
    );
    expect(texts).toEqual(chain.flatMap((entry) => (entry.text === undefined ? [] : [entry.text])));
    const abandoned = rawReasons(imported.conversations[0]).filter(
      (reason) => reason === 'abandoned branch',
    );
    expect(abandoned).toHaveLength(
      lines.filter((entry) => entry.text?.startsWith('b') === true).length,
    );
    expect(imported.warnings.length).toBe(abandoned.length > texts.length ? 1 : 0);
  },
);
