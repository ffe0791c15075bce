import { cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TRANSCRIPTS } from './__fixtures__/read-fixture.js';
import { importTranscriptFiles } from './read-transcript-files.js';

const fixtures = TRANSCRIPTS.pathname;

describe('importTranscriptFiles', () => {
  const folder = mkdtempSync(join(tmpdir(), 'episodic-interop-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('reads every .jsonl under a Claude Code projects folder, sorted, reporting problems per file', async () => {
    const project = join(folder, 'projects', '-home-dev-acme-api');
    mkdirSync(project, { recursive: true });
    cpSync(join(fixtures, 'claude-code', 'session.jsonl'), join(project, 'b.jsonl'));
    writeFileSync(
      join(project, 'a.jsonl'),
      '{"type":"summary","summary":"only a title","leafUuid":"x"}\n',
    );
    writeFileSync(join(project, 'notes.txt'), 'not a transcript');
    const result = await importTranscriptFiles('claude-code', join(folder, 'projects'));
    expect(result.files).toEqual([join(project, 'a.jsonl'), join(project, 'b.jsonl')]);
    expect(result.conversations).toHaveLength(2);
    expect(result.problems.map((problem) => [problem.source, problem.line])).toEqual([
      [join(project, 'a.jsonl'), undefined],
      [join(project, 'b.jsonl'), 26],
    ]);
  });

  it('uses the file time for sources without times, and the same file gives the same data', async () => {
    const file = join(folder, 'chat.json');
    cpSync(join(fixtures, 'openai', 'chat-messages.json'), file);
    utimesSync(file, new Date('2025-05-05T05:05:05Z'), new Date('2025-05-05T05:05:05Z'));
    const first = await importTranscriptFiles('openai', file);
    expect(first.conversations[0]?.state.updated_at).toBe('2025-05-05T05:05:05.000Z');
    const pinned = await importTranscriptFiles('openai', file, { time: '2024-01-01T00:00:00Z' });
    expect(pinned.conversations[0]?.state.updated_at).toBe('2024-01-01T00:00:00.000Z');
    expect(pinned.conversations[0]?.sessionId).toBe(first.conversations[0]?.sessionId);
    expect((await importTranscriptFiles('openai', file)).conversations).toEqual(
      first.conversations,
    );
  });

  it('says what is missing instead of failing obscurely', async () => {
    await expect(importTranscriptFiles('codex', join(folder, 'nope.jsonl'))).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/No file or folder at .*nope\.jsonl/),
    });
    await expect(importTranscriptFiles('gemini' as never, folder)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});
