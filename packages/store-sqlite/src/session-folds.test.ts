import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Episode, InputItem, SessionDelta, SessionState } from '@episodic/core';
import {
  CHAT_MESSAGE_ITEM_TYPE,
  encodeSessionBase,
  type SessionAdapterFold,
  sessionBaseLayout,
  snapshotMessages,
  stableMessageCount,
} from '@episodic/core/adapter';
import { sessionStateSchema } from '@episodic/core/schemas';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SECTION_ROWS } from './base-chunks.js';
import {
  createSqliteSessionStoreAdapter,
  sqliteSessionStoreAdapter,
} from './sqlite-session-store.js';
import { createSqliteStore, type SqliteStore } from './sqlite-store.js';

const SESSION_ID = '0193a6f0-0000-7000-8000-00000000f01d';
const TS = '2026-03-01T10:00:00.000Z';

/** A session committed turn by turn at the store level, as a framework adapter does. */
class Committer {
  episodes: unknown[] = [];
  revision = 0;
  private nextId = 1;

  constructor(private readonly store: SqliteStore) {}

  /** The whole state, its seed 001 messages derived from its episodes. */
  state(): SessionState {
    return {
      schema_version: 2,
      session_id: SESSION_ID,
      updated_at: TS,
      revision: this.revision,
      context: { turn: this.revision },
      episodes: this.episodes,
      messages: snapshotMessages(this.episodes as never),
    };
  }

  async commit(items: readonly InputItem[], options: { reset?: boolean; fold?: boolean } = {}) {
    if (options.reset === true) {
      this.episodes = [];
      this.nextId = 1;
    }
    const added = items.map((item) => ({
      id: this.nextId++,
      type: 'item',
      meta: { source: 'user', ts: TS },
      payload: { item },
    }));
    this.episodes = [...this.episodes, ...added];
    const expectedRevision = this.revision === 0 ? null : this.revision;
    this.revision += 1;
    const delta: SessionDelta = {
      revision: this.revision,
      updated_at: TS,
      episodes: added,
      context: { turn: this.revision },
      ...(options.reset === true ? { reset: true as const } : {}),
    };
    return this.store.sessions.commit({
      sessionId: SESSION_ID,
      expectedRevision,
      delta,
      ...(expectedRevision === null ? { state: this.state() } : {}),
      ...(options.fold === undefined ? {} : { fold: options.fold }),
    });
  }

  /**
   * The text of the base a fold writes whole (what a seed 001 reader must see after a fold): the
   * validated state with the messages derived from its episodes, as `snapshotMessages` gives them.
   */
  wholeText(): string {
    const state = sessionStateSchema.parse(this.state());
    const messages = snapshotMessages(state.episodes as never);
    return `${encodeSessionBase({ ...state, messages }).join('\n')}\n`;
  }
}

/** Runs `test` on a store over a private in-memory database, closed after. */
async function withMemoryStore(test: (store: SqliteStore) => Promise<void>): Promise<void> {
  const store = createSqliteStore({ filename: ':memory:', fold: { currentUpToBytes: 0 } });
  try {
    await test(store);
  } finally {
    await store.close();
  }
}

const viewText = (store: SqliteStore) =>
  store.database
    .prepare('SELECT state_json FROM episodic_session_states WHERE session_id = ?')
    .pluck()
    .get(SESSION_ID) as string;

const rowsOf = (store: SqliteStore) =>
  store.database
    .prepare(
      'SELECT chunk, generation, length(CAST(lines AS BLOB)) AS bytes FROM episodic_session_base_chunks WHERE session_id = ? ORDER BY chunk',
    )
    .all(SESSION_ID) as Array<{ chunk: number; generation: number; bytes: number }>;

type BaseRowInfo = ReturnType<typeof rowsOf>[number];

/** The rows of `after` that are rows of `before` as they were (the same chunk and generation). */
const keptRows = (before: readonly BaseRowInfo[], after: readonly BaseRowInfo[]) =>
  after.filter((row) =>
    before.some((old) => old.chunk === row.chunk && old.generation === row.generation),
  );

/**
 * What a fold keeps of a base of one episode row: that row (all but the last episode, whose row
 * follows), the row opening the messages, the first message row (all before the last turn) and
 * the closing row.
 */
const FIRST_ROWS_KEPT = [
  SECTION_ROWS.episodes,
  SECTION_ROWS.messagesOpen,
  SECTION_ROWS.messages,
  SECTION_ROWS.close,
];

const storedBytes = (store: SqliteStore) =>
  store.database
    .prepare('SELECT base_bytes FROM episodic_session_sizes WHERE session_id = ?')
    .pluck()
    .get(SESSION_ID) as number;

const message = (role: string, content: string): InputItem => ({ type: 'message', role, content });
const call = (id: string): InputItem => ({
  type: 'function_call',
  call_id: id,
  name: 'read',
  arguments: '{}',
});
const output = (id: string): InputItem => ({
  type: 'function_call_output',
  call_id: id,
  output: `out ${id}`,
});

const callId = fc.constantFrom('a', 'b', 'c');
const item: fc.Arbitrary<InputItem> = fc.oneof(
  fc.record({
    type: fc.constant('message'),
    role: fc.constantFrom('user', 'user', 'assistant', 'system'),
    content: fc.string({ maxLength: 6 }),
  }),
  fc.record({
    type: fc.constant('function_call'),
    call_id: callId,
    name: fc.constant('read'),
    arguments: fc.constant('{}'),
  }),
  fc.record({ type: fc.constant('function_call_output'), call_id: callId, output: fc.string() }),
  fc.record({
    type: fc.constant('reasoning'),
    summary: fc.constant([{ type: 'summary_text', text: 'hm' }]),
  }),
  fc.record({
    type: fc.constant(CHAT_MESSAGE_ITEM_TYPE),
    message: fc.constant({ role: 'assistant', content: null }),
  }),
) as fc.Arbitrary<InputItem>;
const turn = fc.record({
  items: fc.array(item, { maxLength: 6 }),
  fold: fc.boolean(),
  reset: fc.integer({ min: 0, max: 19 }).map((value) => value === 0),
});

describe('folds that keep the rows a base shares', () => {
  it('leave the same text as a base written whole, and load the same session', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 25 }), async (turns) => {
        const store = createSqliteStore({ filename: ':memory:' });
        try {
          const committer = new Committer(store);
          for (const { items, fold, reset } of turns) {
            const receipt = await committer.commit(items, { fold, reset });
            if (receipt.folded) {
              expect(viewText(store)).toBe(committer.wholeText());
              expect(storedBytes(store)).toBe(Buffer.byteLength(committer.wholeText()));
            }
          }
          const loaded = await store.sessions.load(SESSION_ID);
          expect(loaded).toEqual(sessionStateSchema.parse(committer.state()));
        } finally {
          await store.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('write only the rows from the last episode and the last turn on', () =>
    withMemoryStore(async (store) => {
      const committer = new Committer(store);
      const chat = (index: number) => [
        message('user', `question ${index}`),
        call(`c${index}`),
        output(`c${index}`),
        message('assistant', `answer ${index}`),
      ];
      await committer.commit(chat(0));
      for (let index = 1; index < 40; index++) await committer.commit(chat(index));
      await committer.commit(chat(40), { fold: true });
      const first = rowsOf(store);
      expect(first.map((row) => row.chunk)).toEqual([
        SECTION_ROWS.head,
        SECTION_ROWS.episodes,
        SECTION_ROWS.episodes + 163, // the last episode alone
        SECTION_ROWS.messagesOpen,
        SECTION_ROWS.messages,
        SECTION_ROWS.messages + 160, // the last turn's messages (its user message on)
        SECTION_ROWS.close,
      ]);
      for (let index = 41; index < 60; index++) await committer.commit(chat(index));
      await committer.commit(chat(60), { fold: true });
      expect(viewText(store)).toBe(committer.wholeText());
      const second = rowsOf(store);
      // Kept as they were: the rows of episodes and messages before the last turn of the first
      // base, and the rows opening the messages and closing the base.
      const kept = keptRows(first, second);
      expect(kept.map((row) => row.chunk)).toEqual(FIRST_ROWS_KEPT);
      // Written again: what the second fold added, and the first fold's last episode and turn.
      const written = second.filter((row) => !kept.includes(row));
      expect(written.map((row) => row.chunk)).toEqual([
        SECTION_ROWS.head,
        SECTION_ROWS.episodes + 163,
        SECTION_ROWS.episodes + 243,
        SECTION_ROWS.messages + 160,
        SECTION_ROWS.messages + 240,
      ]);
      expect(storedBytes(store)).toBe(second.reduce((sum, row) => sum + row.bytes, 0));
    }));

  it('write the whole base after a delta that emptied the log, or after a save', () =>
    withMemoryStore(async (store) => {
      const committer = new Committer(store);
      await committer.commit([message('user', 'one'), message('assistant', 'two')]);
      await committer.commit([message('user', 'three')], { fold: true });
      const generations = () => new Set(rowsOf(store).map((row) => row.generation));
      expect(generations().size).toBe(1);
      // Emptied, then longer than the base: its first episodes are not the base's.
      await committer.commit([message('user', 'again')], { reset: true });
      await committer.commit(
        [message('assistant', 'from'), message('user', 'the'), message('assistant', 'start')],
        { fold: true },
      );
      expect(generations().size).toBe(1);
      expect(viewText(store)).toBe(committer.wholeText());
      // A save of messages its episodes do not give keeps them as given: a fold cannot extend it.
      committer.revision += 1;
      await store.sessions.save(
        { ...committer.state(), messages: [{ role: 'user', content: 'as saved' }] },
        { expectedRevision: committer.revision - 1 },
      );
      expect(rowsOf(store).map((row) => row.chunk)).toEqual([0]);
      await committer.commit([message('user', 'after the save')], { fold: true });
      expect(viewText(store)).toBe(committer.wholeText());
    }));

  it('lay out a save whose messages its episodes give as a fold does, and extend it', () =>
    withMemoryStore(async (store) => {
      const committer = new Committer(store);
      for (let index = 0; index < 10; index++) {
        await committer.commit([message('user', `q${index}`), message('assistant', `a${index}`)]);
      }
      committer.revision += 1;
      await store.sessions.save(committer.state(), { expectedRevision: committer.revision - 1 });
      const saved = rowsOf(store);
      expect(saved.map((row) => row.chunk)).toContain(SECTION_ROWS.messagesOpen);
      expect(viewText(store)).toBe(committer.wholeText());
      // A save's checks still hold: a stale expected revision changes nothing.
      await expect(
        store.sessions.save(committer.state(), { expectedRevision: committer.revision - 1 }),
      ).rejects.toMatchObject({ code: 'CONFLICT' });
      expect(rowsOf(store)).toEqual(saved);
      await committer.commit([message('user', 'q10'), message('assistant', 'a10')], { fold: true });
      expect(viewText(store)).toBe(committer.wholeText());
      expect(keptRows(saved, rowsOf(store)).map((row) => row.chunk)).toEqual(FIRST_ROWS_KEPT);
    }));

  it('leave a load the base and deltas of its snapshot when another connection folds after it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'episodic-session-folds-'));
    const path = join(directory, 'folds.db');
    const writer = createSqliteStore({ filename: path });
    const reader = createSqliteStore({ filename: path });
    try {
      const committer = new Committer(writer);
      for (let index = 0; index < 30; index++) {
        await committer.commit([message('user', `q${index}`), message('assistant', `a${index}`)]);
      }
      await committer.commit([message('user', 'q30')], { fold: true });
      await committer.commit([message('assistant', 'a30'), message('user', 'q31')]);
      const readerAdapter = createSqliteSessionStoreAdapter(reader.database);
      // A base larger than a load's snapshot (here: past its first row) reads the rest later.
      const partAdapter = sqliteSessionStoreAdapter(reader.database, 1);
      type Loaded = { base: Iterable<string>; deltas: string[] };
      const loadNow = () => readerAdapter.load(SESSION_ID) as Loaded;
      const whole = (loaded: Loaded) => ({ base: [...loaded.base], deltas: loaded.deltas });
      const expected = whole(loadNow());
      const state = sessionStateSchema.parse(committer.state());
      const log = state.episodes as Episode[];
      const messages = snapshotMessages(log);
      expect(whole(partAdapter.load(SESSION_ID) as Loaded)).toEqual(expected);
      const loaded = loadNow();
      const partly = partAdapter.load(SESSION_ID) as Loaded;
      const before = rowsOf(writer);
      // Another process folds before core decodes what the load returned: rows of the base it
      // listed are rewritten.
      createSqliteSessionStoreAdapter(writer.database).fold?.(SESSION_ID, {
        revision: committer.revision,
        base: sessionBaseLayout({ ...state, episodes: log, messages }),
        keptMessages: (count) => stableMessageCount(log, count, messages),
      });
      const rewritten = rowsOf(writer).filter(
        (row) => !before.some((old) => old.generation === row.generation),
      );
      expect(rewritten.length).toBeGreaterThan(0);
      expect(whole(loaded)).toEqual(expected);
      // The rows read after the snapshot: a replaced one says so, never a line of the new base.
      expect(() => whole(partly)).toThrow(/was replaced \(by a fold or a save\)/);
    } finally {
      await reader.close();
      await writer.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('never mix with a load that reads the base while another connection folds it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'episodic-session-folds-'));
    const path = join(directory, 'folds.db');
    const writer = createSqliteStore({ filename: path });
    const reader = createSqliteStore({ filename: path });
    const statement = Object.getPrototypeOf(reader.database.prepare('SELECT 1'));
    const get = statement.get;
    try {
      const committer = new Committer(writer);
      for (let index = 0; index < 30; index++) {
        await committer.commit([message('user', `q${index}`), message('assistant', `a${index}`)]);
      }
      await committer.commit([message('user', 'q30')], { fold: true });
      await committer.commit([message('assistant', 'a30'), message('user', 'q31')]);
      // Another process's fold, as core hands it to the adapter, in one transaction on its own
      // connection: it keeps the first episode rows and rewrites the last ones.
      const adapter = createSqliteSessionStoreAdapter(writer.database);
      const state = sessionStateSchema.parse(committer.state());
      const log = state.episodes as Episode[];
      const messages = snapshotMessages(log);
      const fold: SessionAdapterFold = {
        revision: committer.revision,
        base: sessionBaseLayout({ ...state, episodes: log, messages }),
        keptMessages: (count) => stableMessageCount(log, count, messages),
      };
      const before = rowsOf(writer);
      // It lands after the load listed the rows and read the first, before it reads the second.
      let folded = 0;
      statement.get = function (this: { source: string }, ...args: unknown[]) {
        if (folded === 0 && this.source.includes('AND generation = ?')) {
          folded = 1;
          adapter.fold?.(SESSION_ID, fold);
        }
        return get.apply(this, args);
      };
      const loaded = await reader.sessions.load(SESSION_ID);
      expect(folded).toBe(1);
      const after = rowsOf(writer);
      expect(
        after.filter((row) => before.some((old) => old.generation === row.generation)).length,
      ).toBeGreaterThan(0);
      expect(
        after.filter((row) => !before.some((old) => old.generation === row.generation)).length,
      ).toBeGreaterThan(0);
      expect(loaded).toEqual(state);
      expect(viewText(writer)).toBe(committer.wholeText());
    } finally {
      statement.get = get;
      await reader.close();
      await writer.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
