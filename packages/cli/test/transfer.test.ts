import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSession, type ModelCall } from '@episodic/core';
import { completedRun, headerFor, runIdFor } from '@episodic/core/testing';
import { createFsStore } from '@episodic/store-fs';
import { describe, expect, it } from 'vitest';
import { exportReceiptSchema, importReceiptSchema } from '../src/receipts/index.js';
import {
  appendEvent,
  episodic,
  episodicJson,
  expectError,
  ledgerRows,
  temporaryDirectory,
  temporaryHome,
} from './helpers.js';

const model: ModelCall = async () => ({
  output: [{ type: 'message', role: 'assistant', content: 'Hello!' }],
  usage: { inputTokens: 3, outputTokens: 2 },
});

/** A home with a session (snapshot + its runs), another run, and ledger events in two scopes. */
async function seedHome(home: string): Promise<{ sessionId: string }> {
  mkdirSync(home, { recursive: true });
  const store = createFsStore({ root: home, durability: 'none' });
  let sessionId: string;
  try {
    const session = createSession({ store: store.sessions, context: { project: 'demo' } });
    await session.runTurn('Say hello', model);
    sessionId = session.id;
    const first = runIdFor(1);
    const records = completedRun(first, 2, sessionId);
    records[0] = headerFor(first, { sessionId, startedAt: '2026-01-02T00:00:00.000Z' });
    await store.runs.append(first, records);
    await store.runs.append(
      runIdFor(2),
      completedRun(runIdFor(2), 1, '33333333-3333-4333-8333-333333333333'),
    );
  } finally {
    await store.close();
  }
  await appendEvent(home, {
    scope: 'alpha',
    'session-id': sessionId,
    summary: 'user asked',
    type: 'conversation.user',
    'ts-ms': '2000',
    'metadata-json': '{"k":"v"}',
  });
  await appendEvent(home, {
    scope: 'alpha',
    'session-id': sessionId,
    summary: 'secret answer',
    'ts-ms': '1000',
    'payload-json': '{"x":1}',
    'refs-json': '{"f":"a"}',
  });
  await appendEvent(home, {
    scope: 'beta',
    'session-id': sessionId,
    summary: 'beta note',
    'ts-ms': '3000',
  });
  await appendEvent(home, {
    scope: 'alpha',
    'session-id': 'other-session',
    summary: 'not exported',
    'ts-ms': '4000',
  });
  const query = await episodicJson([
    '--home',
    home,
    'episodes',
    'query',
    '--scope',
    'alpha',
    '--session-id',
    sessionId,
  ]);
  const secret = (query.receipt.events as Array<{ event_id: string; summary: string }>).find(
    (item) => item.summary === 'secret answer',
  );
  await episodicJson([
    '--home',
    home,
    'episodes',
    'redact',
    '--scope',
    'alpha',
    '--event-id',
    secret?.event_id as string,
    '--replacement',
    'null',
  ]);
  return { sessionId };
}

/** `episodic export --session-id … --all-scopes -o file` from `home` with the given store, checked to succeed. */
async function exportSession(
  home: string,
  store: 'fs' | 'sqlite',
  sessionId: string,
  file: string,
) {
  const result = await episodicJson([
    '--home',
    home,
    '--store',
    store,
    'export',
    '--session-id',
    sessionId,
    '--all-scopes',
    '-o',
    file,
  ]);
  expect(result.status, result.stderr).toBe(0);
  return result;
}

describe('export and import', () => {
  it('round-trips a session losslessly: export → import into an empty home → export gives identical bytes', async () => {
    const source = temporaryHome();
    const { sessionId } = await seedHome(source);
    const directory = temporaryDirectory();
    const first = join(directory, 'first.jsonl');
    const exported = exportReceiptSchema.parse(
      (await exportSession(source, 'fs', sessionId, first)).receipt,
    );
    expect(exported.counts).toEqual({
      sessions: 1,
      runs: 1,
      records: 7,
      events: 3,
      artifacts: 0,
      episode_metadata: 0,
    });
    expect(exported.sha256).toHaveLength(64);

    for (const store of ['fs', 'sqlite'] as const) {
      const target = temporaryHome();
      const imported = importReceiptSchema.parse(
        (await episodicJson(['--home', target, '--store', store, 'import', first])).receipt,
      );
      expect(imported.written).toEqual(exported.counts);
      const second = join(directory, `second-${store}.jsonl`);
      await exportSession(target, store, sessionId, second);
      expect(
        readFileSync(second).equals(readFileSync(first)),
        `round trip through the ${store} store`,
      ).toBe(true);
      // Redaction survives: the redacted event is still redacted, its payload still null.
      const events = (
        await episodicJson([
          '--home',
          target,
          'episodes',
          'replay',
          sessionId,
          '--scope',
          'alpha',
          '--include-payload',
        ])
      ).receipt.events as Array<Record<string, unknown>>;
      expect(events.map((event) => [event.summary, event.redacted, event.payload ?? null])).toEqual(
        [
          ['[REDACTED]', true, null],
          ['user asked', false, null],
        ],
      );
      // Importing again changes nothing and says so.
      const again = importReceiptSchema.parse(
        (await episodicJson(['--home', target, '--store', store, 'import', first])).receipt,
      );
      expect(again.written).toEqual({
        sessions: 0,
        runs: 0,
        records: 0,
        events: 0,
        artifacts: 0,
        episode_metadata: 0,
      });
      expect(again.skipped).toEqual({
        sessions: 1,
        runs: 1,
        records: 7,
        events: 3,
        artifacts: 0,
        episode_metadata: 0,
      });
    }
  });

  it('exports to stdout (summary on stderr) and imports from stdin; a scope limits the ledger part', async () => {
    const source = temporaryHome();
    const { sessionId } = await seedHome(source);
    const result = await episodic([
      '--home',
      source,
      '--store',
      'fs',
      'export',
      '--session-id',
      sessionId,
      '--scope',
      'alpha',
    ]);
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('Exported 1 session, 1 run (7 records), 2 ledger events');
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { type: string });
    expect(lines[0]?.type).toBe('export.header');
    expect(lines.at(-1)?.type).toBe('export.end');
    const target = temporaryHome();
    const imported = importReceiptSchema.parse(
      (await episodicJson(['--home', target, 'import', '-'], { input: result.stdout })).receipt,
    );
    expect(imported).toMatchObject({
      input: '-',
      written: { sessions: 1, runs: 1, records: 7, events: 2 },
    });
  });

  it('exports all runs, a run set, or a date range', async () => {
    const source = temporaryHome();
    await seedHome(source);
    const count = async (...args: string[]) =>
      exportReceiptSchema.parse(
        (
          await episodicJson([
            '--home',
            source,
            '--store',
            'fs',
            'export',
            ...args,
            '-o',
            join(temporaryDirectory(), 'x.jsonl'),
          ])
        ).receipt,
      ).counts;
    expect(await count('--all')).toEqual({
      sessions: 1,
      runs: 2,
      records: 13,
      events: 0,
      artifacts: 0,
      episode_metadata: 0,
    });
    expect(await count('--all', '--all-scopes')).toEqual({
      sessions: 1,
      runs: 2,
      records: 13,
      events: 4,
      artifacts: 0,
      episode_metadata: 0,
    });
    expect(await count('--run-id', runIdFor(2))).toEqual({
      sessions: 0,
      runs: 1,
      records: 6,
      events: 0,
      artifacts: 0,
      episode_metadata: 0,
    });
    expect(await count('--from', '2026-01-01', '--to', '2026-01-31')).toEqual({
      sessions: 0,
      runs: 1,
      records: 7,
      events: 0,
      artifacts: 0,
      episode_metadata: 0,
    });
  });

  it('refuses bad selections with exit 2', async () => {
    const home = temporaryHome();
    expectError(
      await episodicJson(['--home', home, 'export', '-o', join(temporaryDirectory(), 'x.jsonl')]),
      2,
      'USAGE_ERROR',
    );
    expectError(
      await episodicJson([
        '--home',
        home,
        'export',
        '--all',
        '--session-id',
        'x',
        '-o',
        join(temporaryDirectory(), 'x.jsonl'),
      ]),
      2,
      'USAGE_ERROR',
    );
    expect(
      expectError(await episodicJson(['--home', home, 'export', '--all']), 2, 'USAGE_ERROR'),
    ).toContain('--output');
    expect(
      expectError(
        await episodicJson([
          '--home',
          home,
          'export',
          '--session-id',
          'sess-1',
          '-o',
          join(temporaryDirectory(), 'x.jsonl'),
        ]),
        2,
        'USAGE_ERROR',
      ),
    ).toContain('--scope');
    expectError(
      await episodicJson([
        '--home',
        home,
        'export',
        '--run-id',
        'nope',
        '-o',
        join(temporaryDirectory(), 'x.jsonl'),
      ]),
      2,
      'VALIDATION_ERROR',
    );
    expectError(
      await episodicJson([
        '--home',
        home,
        'export',
        '--run-id',
        runIdFor(9),
        '-o',
        join(temporaryDirectory(), 'x.jsonl'),
      ]),
      1,
      'NOT_FOUND',
    );
  });

  it('refuses a damaged or truncated export with exit 2 and writes nothing', async () => {
    const source = temporaryHome();
    const { sessionId } = await seedHome(source);
    const file = join(temporaryDirectory(), 'export.jsonl');
    await exportSession(source, 'fs', sessionId, file);
    const text = readFileSync(file, 'utf8');
    const lines = text.trimEnd().split('\n');
    const variants: Array<[string, string, RegExp]> = [
      ['truncated', `${lines.slice(0, -1).join('\n')}\n`, /export\.end line is missing/],
      ['cut mid-line', text.slice(0, text.length - 40), /not valid JSON/],
      ['bad record', text.replace('"type":"run.start"', '"type":"run.strat"'), /record/],
      ['count mismatch', text.replace('"events":3', '"events":4'), /counts/],
      ['not an export', '{"hello":"world"}\n', /header/],
      [
        'bad event',
        text.replace('"type":"conversation.user"', '"type":"conversation.robot"'),
        /conversation\.robot|type/,
      ],
    ];
    for (const [name, content, message] of variants) {
      const target = temporaryHome();
      const path = join(temporaryDirectory(), `${name}.jsonl`);
      writeFileSync(path, content);
      const result = await episodicJson(['--home', target, 'import', path]);
      expect(expectError(result, 2, 'VALIDATION_ERROR'), name).toMatch(message);
      expect(existsSync(join(target, 'episodic.db')), name).toBe(false);
    }
  });

  it('refuses an import that conflicts with the home (exit 1), writing nothing; --dry-run writes nothing', async () => {
    const source = temporaryHome();
    const { sessionId } = await seedHome(source);
    const file = join(temporaryDirectory(), 'export.jsonl');
    await exportSession(source, 'fs', sessionId, file);
    const target = temporaryHome();
    const dry = importReceiptSchema.parse(
      (await episodicJson(['--home', target, 'import', file, '--dry-run'])).receipt,
    );
    expect(dry.would_write).toEqual({
      sessions: 1,
      runs: 1,
      records: 7,
      events: 3,
      artifacts: 0,
      episode_metadata: 0,
    });
    expect(dry.written).toEqual({
      sessions: 0,
      runs: 0,
      records: 0,
      events: 0,
      artifacts: 0,
      episode_metadata: 0,
    });
    expect(ledgerRows(target) ?? []).toEqual([]);
    // The same event id with other content already in the target: nothing at all is imported.
    const exported = readFileSync(file, 'utf8')
      .split('\n')
      .filter((text) => text.includes('"ledger.event"'));
    const event = (
      JSON.parse(exported[0] as string) as {
        event: { event_id: string; scope: string; session_id: string; ts_ms: number };
      }
    ).event;
    await appendEvent(target, {
      'event-id': event.event_id,
      scope: event.scope,
      'session-id': event.session_id,
      summary: 'different',
      'ts-ms': String(event.ts_ms),
    });
    const before = ledgerRows(target);
    const result = await episodicJson(['--home', target, 'import', file]);
    expect(expectError(result, 1, 'CONFLICT')).toContain(event.event_id);
    expect(ledgerRows(target)).toEqual(before);
    expect((await episodicJson(['--home', target, 'runs', 'list'])).receipt.runs).toEqual([]);
    expect((await episodicJson(['--home', target, 'sessions', 'list'])).receipt.sessions).toEqual(
      [],
    );
  });

  it('writes the export file atomically (no partial file when the export fails)', async () => {
    const home = temporaryHome();
    const directory = temporaryDirectory();
    const file = join(directory, 'out.jsonl');
    const result = await episodicJson([
      '--home',
      home,
      'export',
      '--run-id',
      runIdFor(5),
      '-o',
      file,
    ]);
    expectError(result, 1, 'NOT_FOUND');
    expect(readdirSync(directory)).toEqual([]);
  });
});
