import {
  createMemoryLedger,
  createMemoryRunStore,
  createMemorySessionStore,
  type Ledger,
  type RunStore,
  type SessionStore,
} from '@episodic/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../__fixtures__/read-fixture.js';
import { importClaudeCode, importCodex } from '../import-transcript.js';
import { saveImport } from './save-import.js';

const CLAUDE = readFixture('claude-code/session.jsonl');

describe('saveImport', () => {
  let stores: { sessions: SessionStore; runs: RunStore; ledger: Ledger };

  beforeEach(() => {
    stores = {
      sessions: createMemorySessionStore(),
      runs: createMemoryRunStore(),
      ledger: createMemoryLedger({ now: () => new Date('2026-01-01T00:00:00Z') }),
    };
  });

  async function ledgerEvents(sessionId: string) {
    return (
      await stores.ledger.replay(sessionId, { scope: 'imports', limit: 500, includePayload: true })
    ).events;
  }

  it('writes sessions, runs and ledger events, and a second import changes nothing', async () => {
    const { conversations } = importClaudeCode(CLAUDE);
    const first = await saveImport(stores, conversations, { scope: 'imports' });
    expect(first.conversations.map((receipt) => receipt.session)).toEqual(['created', 'created']);
    expect(first.conversations[0]).toMatchObject({
      runs: { created: 3, extended: 0, unchanged: 0, conflicts: 0 },
      records_written: conversations[0]?.runs.reduce((sum, run) => sum + run.records.length, 0),
      conflicts: [],
    });
    const main = conversations[0] as (typeof conversations)[number];
    expect(await stores.sessions.load(main.sessionId)).toEqual(main.state);
    const run = await stores.runs.read(main.runs[0]?.runId as string);
    expect(run.records).toEqual(main.runs[0]?.records);
    const events = await ledgerEvents(main.sessionId);
    expect(events.length).toBe(first.conversations[0]?.events.appended);
    expect(new Set(events.map((event) => event.type))).toEqual(
      new Set([
        'conversation.user',
        'conversation.assistant',
        'tool.call',
        'tool.result',
        'ops.decision',
      ]),
    );
    expect(events.every((event) => event.agent_id === 'claude-code')).toBe(true);

    const again = await saveImport(stores, importClaudeCode(CLAUDE).conversations, {
      scope: 'imports',
    });
    expect(again.conversations[0]).toMatchObject({
      session: 'unchanged',
      runs: { created: 0, extended: 0, unchanged: 3, conflicts: 0 },
      records_written: 0,
      events: { appended: 0, unchanged: events.length },
    });
    expect(await ledgerEvents(main.sessionId)).toEqual(events);
  });

  it('continues a grown transcript: the snapshot gets the next revision, the open run is extended', async () => {
    const lines = CLAUDE.trimEnd().split('\n');
    // The transcript as it was while the last tool call was still running.
    const earlier = lines.slice(0, -2).join('\n');
    await saveImport(stores, importClaudeCode(earlier).conversations, { scope: 'imports' });
    const receipt = await saveImport(stores, importClaudeCode(CLAUDE).conversations, {
      scope: 'imports',
    });
    expect(receipt.conversations[0]).toMatchObject({
      session: 'updated',
      runs: { created: 0, extended: 1, unchanged: 2, conflicts: 0 },
      conflicts: [],
    });
    const main = importClaudeCode(CLAUDE).conversations[0] as NonNullable<
      ReturnType<typeof importClaudeCode>['conversations'][number]
    >;
    expect(await stores.sessions.load(main.sessionId)).toEqual({ ...main.state, revision: 2 });
    expect((await stores.runs.read(main.runs[2]?.runId as string)).records).toEqual(
      main.runs[2]?.records,
    );
  });

  it('writes nothing of a conversation whose session holds another history, and says why', async () => {
    const { conversations } = importClaudeCode(CLAUDE);
    const main = conversations[0] as (typeof conversations)[number];
    // The same session id, continued in Episodic with a history the transcript does not hold.
    const other = conversations[1]?.state.episodes;
    await stores.sessions.save({ ...main.state, episodes: other }, { expectedRevision: null });
    const receipt = await saveImport(stores, conversations, { scope: 'imports' });
    expect(receipt.conversations[0]).toMatchObject({
      session: 'conflict',
      records_written: 0,
      events: { appended: 0, unchanged: 0 },
      conflicts: [expect.stringMatching(/exists with a history this transcript does not continue/)],
    });
    expect(await stores.runs.list({ sessionId: main.sessionId })).toMatchObject({ runs: [] });
    // The other conversation (the sidechain) is imported.
    expect(receipt.conversations[1]?.session).toBe('created');
  });

  it('plans without writing in a dry run', async () => {
    const { conversations } = importCodex(readFixture('codex/legacy-rollout.jsonl'));
    const receipt = await saveImport(stores, conversations, { scope: 'imports', dryRun: true });
    expect(receipt).toMatchObject({
      dry_run: true,
      conversations: [{ session: 'created', runs: { created: 1 } }],
    });
    expect(await stores.sessions.list()).toEqual([]);
    expect((await stores.runs.list()).runs).toEqual([]);
  });

  it('writes a file all or nothing: a file the stores refuse is left out whole, in a dry run too', async () => {
    const good = importClaudeCode(CLAUDE, { label: 'a.jsonl' }).conversations;
    // Another session whose tool call has an empty name: the run store refuses its records.
    const bad = importClaudeCode(
      CLAUDE.replaceAll(
        '7f3c2b1a-5d4e-4c3b-9a8f-1e2d3c4b5a60',
        '11111111-2222-4333-8444-555555555555',
      )
        .replaceAll('"a0000000-', '"c0000000-')
        .replaceAll('"b0000000-', '"d0000000-')
        .replace('"name": "Bash"', '"name": ""'),
      { label: 'b.jsonl' },
    ).conversations;
    const all = [...good, ...bad];
    const dry = await saveImport(stores, all, { scope: 'imports', dryRun: true });
    const real = await saveImport(stores, all, { scope: 'imports' });
    for (const receipt of [dry, real]) {
      expect(
        receipt.conversations.map((conversation) => [conversation.source, conversation.session]),
      ).toEqual([
        ['a.jsonl', 'created'],
        ['a.jsonl', 'created'],
        ['b.jsonl', 'skipped'],
        ['b.jsonl', 'skipped'],
      ]);
      expect(receipt.conversations[2]?.error).toMatch(/function\.name/);
      // The sidechain of the bad file is valid, and left out with it.
      expect(receipt.conversations[3]?.error).toMatch(/another conversation of the same file/);
    }
    expect((await stores.sessions.list()).map((session) => session.sessionId).sort()).toEqual(
      good.map((conversation) => conversation.sessionId).sort(),
    );
    for (const conversation of bad) {
      expect(await stores.sessions.load(conversation.sessionId)).toBeNull();
      expect((await stores.runs.list({ sessionId: conversation.sessionId })).runs).toEqual([]);
      expect(await ledgerEvents(conversation.sessionId)).toEqual([]);
    }
  });

  it('replaces flagged content by placeholders in the ledger only', async () => {
    const secret = 'AKIAIOSFODNN7EXAMPLE';
    const text = `${JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's1', timestamp: '2025-01-01T00:00:00Z', message: { role: 'user', content: `use key ${secret}` } })}\n`;
    const { conversations } = importClaudeCode(text);
    await saveImport(stores, conversations, { scope: 'imports' });
    const [event] = await ledgerEvents(conversations[0]?.sessionId as string);
    expect(JSON.stringify(event)).not.toContain(secret);
    expect(
      JSON.stringify(await stores.sessions.load(conversations[0]?.sessionId as string)),
    ).toContain(secret);
  });

  it('needs a scope for the ledger and validates its arguments', async () => {
    const { conversations } = importClaudeCode(CLAUDE);
    await expect(saveImport(stores, conversations)).rejects.toMatchObject({
      code: 'SCOPE_REQUIRED',
    });
    await expect(
      saveImport({ sessions: stores.sessions }, conversations, { dryRun: 'yes' as never }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(saveImport({ runs: {} as RunStore }, conversations)).rejects.toThrow(/RunStore/);
    expect(await stores.sessions.list()).toEqual([]);
  });
});
