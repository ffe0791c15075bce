import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import { parseSearchText, searchTextOfLedgerRow, searchTokens } from '@episodic/core/adapter';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { rebuildSqliteSearchIndex } from './sqlite-ledger.js';
import { RANKED_MATCHES, searchSql } from './sqlite-search.js';
import { createSqliteStore } from './sqlite-store.js';

const directories: string[] = [];
function temporaryFile(name: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-search-'));
  directories.push(directory);
  return join(directory, name);
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const event = (summary: string, index: number) => ({
  event_id: `e${index}`,
  scope: 'p',
  session_id: 's',
  agent_id: 'a',
  type: 'conversation.user' as const,
  summary,
  ts_ms: 1 + index,
});

const hostileAlphabet = fc.constantFrom(
  ...'"\'*^:()-+{}[],.;\\/|&!<>~@#$%_ \t\nNEARANDORNOTnearandornot abcxyz09ÉéüßΣσ東京🎉\u0301\u200b𞤀ꞔ'.split(
    '',
  ),
  ' NEAR(',
  ' AND ',
  ' OR ',
  ' NOT ',
  'col:',
  'text:',
  '<->',
  '𞤀',
);
const hostileText = fc.oneof(
  fc.string({ unit: hostileAlphabet, maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ maxLength: 40 }),
);

describe('SQLite search', () => {
  it('no text becomes an FTS5 error, and every hit holds every word (property, against FTS5)', async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    const texts = fc
      .sample(hostileText, { numRuns: 80, seed: 11 })
      .map((text) => text.replaceAll('\u0000', ' ').trim() || 'empty');
    await store.ledger.appendBatch(
      texts.map((text, index) => event(text, index)),
      { redact: true, allow: ['secret', 'pii', 'tool_output'] },
    );
    const stored = new Map(
      (await store.ledger.query({ scope: 'p', limit: 500 })).events.map((row) => [
        row.event_id,
        new Set(searchTokens(searchTextOfLedgerRow({ summary: row.summary }))),
      ]),
    );
    let found = 0;
    const queries = fc.oneof(
      hostileText,
      fc
        .tuple(fc.constantFrom(...texts), fc.nat(), fc.nat())
        .map(([text, a, b]) =>
          text.slice(Math.min(a, b) % (text.length + 1), Math.max(a, b) % (text.length + 1)),
        ),
    );
    await fc.assert(
      fc.asyncProperty(queries, async (text) => {
        let hits: readonly { event_id: string }[];
        try {
          hits = (await store.ledger.search({ scope: 'p', text, limit: 100 })).hits;
        } catch (error) {
          // Text with no word is refused as input; never an engine error.
          expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR'), String(error)).toBe(true);
          return;
        }
        found += hits.length;
        // FTS5's unicode61 knows Unicode 6.1 and drops only some marks, so a word can split
        // where core's tokens do not (a later letter, a Hebrew point): each word of the query
        // must be in the event's folded words, as a word or inside one, never missing.
        for (const hit of hits) {
          const words = stored.get(hit.event_id) ?? new Set<string>();
          for (const word of searchTokens(text)) {
            expect(
              [...words].some((stored) => stored.includes(word)),
              `${text} → ${hit.event_id}`,
            ).toBe(true);
          }
        }
      }),
      { numRuns: 1500 },
    );
    expect(found).toBeGreaterThan(100);
    await store.close();
  });

  it('a read-only connection searches a complete index, and says UNSUPPORTED while rows wait', async () => {
    const filename = temporaryFile('read-only.db');
    const writer = createSqliteStore({ filename });
    await writer.ledger.append(event('first lighthouse', 0));
    const reader = createSqliteStore({ filename, readOnly: true });
    const error = await reader.ledger.search({ scope: 'p', text: 'lighthouse' }).catch((e) => e);
    expect(EpisodicError.hasCode(error, 'UNSUPPORTED')).toBe(true);
    expect(error.message).toMatch(/1 events behind.*read-only.*writable/);
    expect((await writer.ledger.search({ scope: 'p', text: 'lighthouse' })).hits).toHaveLength(1);
    expect((await reader.ledger.search({ scope: 'p', text: 'lighthouse' })).hits).toHaveLength(1);
    // A redaction by the writer leaves nothing stale for the reader to fix.
    await writer.ledger.redact({ scope: 'p', eventId: 'e0' });
    expect((await reader.ledger.search({ scope: 'p', text: 'lighthouse' })).hits).toEqual([]);
    await reader.close();
    await writer.close();
  });

  it('rebuildSqliteSearchIndex builds the index from the rows alone; the mark never falls behind GC', async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    await store.ledger.appendBatch(
      ['amber fox', 'amber owl', 'grey owl'].map((text, index) => ({
        ...event(text, index),
        type: 'tool.call' as const,
      })),
    );
    const before = await store.ledger.search({ scope: 'p', text: 'owl' });
    expect(rebuildSqliteSearchIndex(store.database)).toBe(3);
    expect(await store.ledger.search({ scope: 'p', text: 'owl' })).toEqual(before);
    // GC deletes the newest row: a row appended next still gets an id above the mark.
    await store.ledger.gc({ scope: 'p', nowMs: 1_000_000_000_000, policy: { 'tool.call': 0 } });
    await store.ledger.append(event('amber again', 9));
    expect(
      (await store.ledger.search({ scope: 'p', text: 'amber' })).hits.map((hit) => hit.event_id),
    ).toEqual(['e9']);
    expect(store.database.prepare('SELECT count(*) FROM episodic_search').pluck().get()).toBe(1);
    await store.close();
  });

  it('ranks the newest matches inside the scope and filters only (the cap), each with its own snippet', async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    // Older rows match better (the word thrice in a short text), newer ones worse.
    await store.ledger.appendBatch([
      ...Array.from({ length: 6 }, (_, index) => event('owl owl owl', index)),
      ...Array.from({ length: 6 }, (_, index) =>
        event(`owl ${'word '.repeat(index + 3)}`, 6 + index),
      ),
      { ...event('owl owl owl', 12), session_id: 'other' },
      { ...event('owl owl owl', 13), scope: 'q' },
    ]);
    await store.ledger.search({ scope: 'p', text: 'owl' }); // catch up
    const ids = (
      plan: { sessionId?: string; fromTsMs?: number; toTsMs?: number },
      ranked: number,
    ) => {
      const sql = searchSql(
        { scope: 'p', match: parseSearchText('owl'), limit: 20, ...plan },
        ranked,
      );
      return (store.database.prepare(sql.text).all(sql.values) as Array<{ event_id: string }>).map(
        (row) => row.event_id,
      );
    };
    expect(RANKED_MATCHES).toBe(10_000);
    // Uncapped: the old strong matches first.
    expect(ids({ sessionId: 's' }, 100).slice(0, 6).sort()).toEqual([
      'e0',
      'e1',
      'e2',
      'e3',
      'e4',
      'e5',
    ]);
    // Capped at 3: the 3 newest matches of the scope and session (e12 is another session, e13
    // another scope), best first.
    expect(ids({ sessionId: 's' }, 3)).toEqual(['e9', 'e10', 'e11']);
    expect(ids({}, 3)).toEqual(['e12', 'e10', 'e11']);
    // A time range bounds the rowids read: the newest 3 matches inside it (e2…e8).
    expect(ids({ fromTsMs: 3, toTsMs: 9 }, 3)).toEqual(['e6', 'e7', 'e8']);
    expect(ids({ fromTsMs: 3, toTsMs: 9 }, 100).sort()).toEqual([
      'e2',
      'e3',
      'e4',
      'e5',
      'e6',
      'e7',
      'e8',
    ]);
    const hits = (await store.ledger.search({ scope: 'p', text: 'owl', limit: 3 })).hits;
    expect(hits.map((hit) => hit.event_id)).toEqual(['e0', 'e1', 'e2']);
    expect(hits.map((hit) => hit.snippet)).toEqual(Array(3).fill('«owl» «owl» «owl»'));
    const last = (
      await store.ledger.search({ scope: 'p', text: 'owl', sessionId: 's', limit: 20 })
    ).hits.at(-1);
    expect(last?.event_id).toBe('e11');
    expect(last?.snippet).toBe('«owl» word word word word word word word word');
    await store.close();
  });
});
