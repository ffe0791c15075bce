import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  episodesAppendReceiptSchema,
  episodesGcReceiptSchema,
  episodesQueryReceiptSchema,
  episodesRedactReceiptSchema,
  episodesReplayReceiptSchema,
} from '../src/receipts/index.js';
import {
  appendArgs,
  appendEvent,
  databaseBytes,
  episodic,
  episodicJson,
  expectError,
  ledgerRows,
  temporaryDirectory,
  temporaryHome,
} from './helpers.js';

const DAY = 86_400_000;

describe('episodes append', () => {
  it('appends an event and prints the seed receipt', async () => {
    const home = temporaryHome();
    const result = await episodicJson(
      appendArgs(
        home,
        {
          scope: 'OpenClaw Mem',
          'session-id': 'sess-001',
          'agent-id': 'lyria',
          type: 'conversation.user',
          summary: 'Asked for status',
        },
        [
          '--payload-json',
          '{"intent":"status"}',
          '--refs-json',
          '{"recordRef":"obs:42"}',
          '--metadata-json',
          '{"source":"crm","priority":5}',
        ],
      ),
    );
    expect(result.status, result.stderr).toBe(0);
    const receipt = episodesAppendReceiptSchema.parse(result.receipt);
    expect(receipt.duplicate).toBe(false);
    expect(receipt.event).toMatchObject({
      scope: 'openclaw-mem',
      session_id: 'sess-001',
      agent_id: 'lyria',
      type: 'conversation.user',
      summary: 'Asked for status',
      position: 1,
      payload_bytes: Buffer.byteLength('{"intent":"status"}'),
      refs_bytes: Buffer.byteLength('{"recordRef":"obs:42"}'),
      payload_present: true,
      refs_present: true,
      metadata: { source: 'crm', priority: 5 },
      redacted: false,
    });
    expect(receipt.caps).toEqual({ payload_cap_bytes: 8192, refs_cap_bytes: 4096 });
    expect(ledgerRows(home)).toHaveLength(1);
  });

  it('prints a readable line without --json, nothing with --quiet', async () => {
    const home = temporaryHome();
    const base = [
      '--home',
      home,
      'episodes',
      'append',
      '--scope',
      'p',
      '--session-id',
      's',
      '--agent-id',
      'a',
      '--type',
      'ops.decision',
    ];
    const loud = await episodic([...base, '--summary', 'chose plan B']);
    expect(loud.status).toBe(0);
    expect(loud.stdout).toMatch(/^Appended ops\.decision event \S+ to p\/s \(position 1\)\.\n$/);
    const quiet = await episodic([...base, '--summary', 'chose plan C', '--quiet']);
    expect(quiet.status).toBe(0);
    expect(quiet.stdout).toBe('');
  });

  it('reads the payload from a file or stdin', async () => {
    const home = temporaryHome();
    const file = join(temporaryDirectory(), 'payload.json');
    writeFileSync(file, '\ufeff{"from":"file"}');
    await appendEvent(home, { 'payload-file': file, 'event-id': 'from-file' });
    const stdin = await episodicJson(
      [
        '--home',
        home,
        'episodes',
        'append',
        '--scope',
        'proj',
        '--session-id',
        's1',
        '--agent-id',
        'a',
        '--type',
        'tool.result',
        '--summary',
        'x',
        '--payload-file',
        '-',
        '--event-id',
        'from-stdin',
      ],
      { input: '{"from":"stdin"}' },
    );
    expect(stdin.status, stdin.stderr).toBe(0);
    const query = await episodicJson([
      '--home',
      home,
      'episodes',
      'query',
      '--scope',
      'proj',
      '--include-payload',
    ]);
    const events = episodesQueryReceiptSchema.parse(query.receipt).events;
    expect(events.map((item) => item.payload)).toEqual([{ from: 'file' }, { from: 'stdin' }]);
  });

  it('retries idempotently with the same event id, and refuses other content (exit 1)', async () => {
    const home = temporaryHome();
    const flags = { 'event-id': 'evt-1', 'ts-ms': '1000', summary: 'same' };
    await appendEvent(home, flags);
    const retry = await episodicJson(appendArgs(home, flags));
    expect(retry.status).toBe(0);
    expect(episodesAppendReceiptSchema.parse(retry.receipt).duplicate).toBe(true);
    const before = ledgerRows(home);
    const other = await episodicJson(appendArgs(home, { ...flags, summary: 'different' }));
    expect(expectError(other, 1, 'CONFLICT')).toContain('evt-1');
    expect(ledgerRows(home)).toEqual(before);
  });

  it('fails with a conflict (exit 1) when --expected-position is stale', async () => {
    const home = temporaryHome();
    await appendEvent(home, {}, ['--expected-position', '0']);
    await appendEvent(home, {}, ['--expected-position', '1']);
    const stale = await episodicJson(
      appendArgs(home, { 'agent-id': 'a', summary: 'late' }, ['--expected-position', '1']),
    );
    expect(expectError(stale, 1, 'CONFLICT')).toContain('expected its last position to be 1');
    expect(ledgerRows(home)).toHaveLength(2);
  });

  it('raises the payload cap with --payload-cap-bytes', async () => {
    const home = temporaryHome();
    const big = JSON.stringify({ text: 'x'.repeat(9000) });
    const fields = { type: 'tool.result', summary: 'big' };
    const refused = await episodicJson(appendArgs(home, fields, ['--payload-json', big]));
    const message = expectError(refused, 2, 'VALIDATION_ERROR');
    expect(message).toContain('over the cap of 8192 bytes');
    expect(message).toContain('--payload-cap-bytes');
    expect(refused.receipt.details).toMatchObject({ field: 'payload', cap: 8192 });
    const allowed = await episodicJson(
      appendArgs(home, fields, ['--payload-json', big, '--payload-cap-bytes', '20000']),
    );
    expect(allowed.status, allowed.stderr).toBe(0);
    const receipt = episodesAppendReceiptSchema.parse(allowed.receipt);
    expect(receipt.event.payload_bytes).toBe(Buffer.byteLength(big));
    expect(receipt.caps.payload_cap_bytes).toBe(20000);
  });

  it('rejects secret-like content unless redacted, and tool output unless allowed', async () => {
    const home = temporaryHome();
    const secret = 'AKIA' + 'ABCDEFGHIJKLMNOP';
    const base = [
      '--home',
      home,
      'episodes',
      'append',
      '--scope',
      'p',
      '--session-id',
      's',
      '--agent-id',
      'a',
      '--type',
      'tool.result',
      '--summary',
      'key',
    ];
    const rejected = await episodicJson([
      ...base,
      '--payload-json',
      JSON.stringify({ key: secret }),
    ]);
    const message = expectError(rejected, 2, 'VALIDATION_ERROR');
    expect(message).toContain('--redact-content');
    expect(message).not.toContain(secret);
    expect(ledgerRows(home)).toBeNull();
    const redacted = await episodicJson([
      ...base,
      '--payload-json',
      JSON.stringify({ key: secret }),
      '--redact-content',
    ]);
    expect(redacted.status, redacted.stderr).toBe(0);
    expect(databaseBytes(home).includes(secret)).toBe(false);
    const trace =
      'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: boom';
    const noTool = await episodicJson([...base, '--payload-json', JSON.stringify({ out: trace })]);
    expect(expectError(noTool, 2, 'VALIDATION_ERROR')).toContain('--allow-tool-output');
    const tool = await episodicJson([
      ...base,
      '--payload-json',
      JSON.stringify({ out: trace }),
      '--allow-tool-output',
    ]);
    expect(tool.status, tool.stderr).toBe(0);
  });

  describe('bad input gives a clear message (exit 2) and changes nothing', () => {
    // A complete append; each case below breaks one thing.
    const valid = [
      '--scope',
      'p',
      '--session-id',
      's',
      '--agent-id',
      'a',
      '--type',
      'tool.call',
      '--summary',
      'x',
    ];
    const cases: Array<{ name: string; args: string[]; code: string; text: RegExp }> = [
      {
        name: 'missing scope',
        args: ['--session-id', 's', '--agent-id', 'a', '--type', 'tool.call', '--summary', 'x'],
        code: 'SCOPE_REQUIRED',
        text: /needs --scope/,
      },
      {
        name: 'bad type',
        args: [
          '--scope',
          'p',
          '--session-id',
          's',
          '--agent-id',
          'a',
          '--type',
          'tool.cal',
          '--summary',
          'x',
        ],
        code: 'VALIDATION_ERROR',
        text: /"conversation\.assistant".*"tool\.result"/,
      },
      {
        name: 'over-cap payload',
        args: [...valid, '--payload-json', JSON.stringify('y'.repeat(9000))],
        code: 'VALIDATION_ERROR',
        text: /over the cap/,
      },
      {
        name: 'bad JSON',
        args: [...valid, '--payload-json', '{"a":'],
        code: 'VALIDATION_ERROR',
        text: /Invalid JSON in --payload-json/,
      },
      {
        name: 'refs not an object',
        args: [...valid, '--refs-json', '[1]'],
        code: 'VALIDATION_ERROR',
        text: /--refs-json must be a JSON object/,
      },
      {
        name: 'missing summary',
        args: ['--scope', 'p', '--session-id', 's', '--agent-id', 'a', '--type', 'tool.call'],
        code: 'USAGE_ERROR',
        text: /Missing --summary/,
      },
      {
        name: 'bad ts',
        args: [...valid, '--ts-ms', 'last tuesday'],
        code: 'VALIDATION_ERROR',
        text: /--ts-ms "last tuesday".*ISO date or time/,
      },
      {
        name: 'global scope',
        args: [
          '--scope',
          'global',
          '--session-id',
          's',
          '--agent-id',
          'a',
          '--type',
          'tool.call',
          '--summary',
          'x',
        ],
        code: 'VALIDATION_ERROR',
        text: /does not write there/,
      },
      {
        name: 'missing payload file',
        args: [...valid, '--payload-file', '/nonexistent/p.json'],
        code: 'VALIDATION_ERROR',
        text: /ENOENT/,
      },
      {
        name: 'unknown flag',
        args: [...valid, '--colour'],
        code: 'USAGE_ERROR',
        text: /Unknown option --colour/,
      },
      {
        name: 'bad allow kind',
        args: [...valid, '--allow', 'passwords'],
        code: 'VALIDATION_ERROR',
        text: /pii, secret, tool_output/,
      },
    ];
    it.each(cases)('$name', async ({ args, code, text }) => {
      const fresh = temporaryHome();
      const result = await episodicJson(['--home', fresh, 'episodes', 'append', ...args]);
      expect(expectError(result, 2, code)).toMatch(text);
      // A bad command line never opens (or creates) the database.
      expect(existsSync(join(fresh, 'episodic.db'))).toBe(false);
    });

    it('leaves an existing database unchanged', async () => {
      const home = temporaryHome();
      await appendEvent(home, { summary: 'kept' });
      const before = ledgerRows(home);
      for (const { args } of cases) {
        await episodic(['--home', home, 'episodes', 'append', ...args]);
      }
      expect(ledgerRows(home)).toEqual(before);
    });

    it('prints the message on stderr without --json', async () => {
      const result = await episodic([
        '--home',
        temporaryHome(),
        'episodes',
        'append',
        '--session-id',
        's',
        '--agent-id',
        'a',
        '--type',
        'tool.call',
        '--summary',
        'x',
      ]);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /^episodic: "episodic episodes append" needs --scope SCOPE.*\(SCOPE_REQUIRED\)\n$/,
      );
    });
  });
});

describe('episodes query and replay', () => {
  async function seed(home: string) {
    await appendEvent(home, {
      scope: 'alpha',
      'session-id': 's1',
      type: 'conversation.user',
      summary: 'hello',
      'ts-ms': '1000',
      'metadata-json': '{"source":"crm","priority":7,"tags":["auth","api"]}',
    });
    await appendEvent(home, {
      scope: 'alpha',
      'session-id': 's1',
      type: 'tool.call',
      summary: 'call list_files',
      'ts-ms': '2000',
      'payload-json': '{"path":"."}',
      'metadata-json': '{"source":"erp","priority":2}',
    });
    await appendEvent(home, {
      scope: 'alpha',
      'session-id': 's2',
      type: 'tool.result',
      summary: 'two files',
      'ts-ms': '3000',
    });
    await appendEvent(home, {
      scope: 'beta',
      'session-id': 's1',
      type: 'tool.call',
      summary: 'beta secret plan',
      'ts-ms': '1500',
    });
  }

  it('is scope-bound, ordered, summary-only by default', async () => {
    const home = temporaryHome();
    await seed(home);
    const result = await episodicJson(['--home', home, 'episodes', 'query', '--scope', 'Alpha']);
    expect(result.status).toBe(0);
    const receipt = episodesQueryReceiptSchema.parse(result.receipt);
    expect(receipt.scope).toBe('alpha');
    expect(receipt.global).toBe(false);
    expect(receipt.events.map((item) => item.summary)).toEqual([
      'hello',
      'call list_files',
      'two files',
    ]);
    expect(receipt.events.every((item) => item.scope === 'alpha')).toBe(true);
    expect(receipt.events.every((item) => !('payload' in item))).toBe(true);
    expect(receipt.count).toBe(3);
    expect(receipt.next_after_id).toBeNull();
    const beta = episodesQueryReceiptSchema.parse(
      (await episodicJson(['--home', home, 'episodes', 'query', '--scope', 'beta'])).receipt,
    );
    expect(beta.events.map((item) => item.summary)).toEqual(['beta secret plan']);
    const global = episodesQueryReceiptSchema.parse(
      (await episodicJson(['--home', home, 'episodes', 'query', '--all-scopes'])).receipt,
    );
    expect(global.scope).toBeNull();
    expect(global.all_scopes).toBe(true);
    expect(global.global).toBe(true);
    expect(global.events.map((item) => item.ts_ms)).toEqual([1000, 1500, 2000, 3000]);
  });

  it('filters by session, time, types (repeated and comma-separated) and metadata', async () => {
    const home = temporaryHome();
    await seed(home);
    const query = async (...args: string[]) =>
      episodesQueryReceiptSchema
        .parse(
          (await episodicJson(['--home', home, 'episodes', 'query', '--scope', 'alpha', ...args]))
            .receipt,
        )
        .events.map((item) => item.summary);
    expect(await query('--session-id', 's1')).toEqual(['hello', 'call list_files']);
    expect(await query('--from-ts-ms', '2000', '--to-ts-ms', '3000')).toEqual([
      'call list_files',
      'two files',
    ]);
    expect(await query('--type', 'tool.call,tool.result')).toEqual([
      'call list_files',
      'two files',
    ]);
    expect(await query('--type', 'tool.call', '--type', 'conversation.user')).toEqual([
      'hello',
      'call list_files',
    ]);
    expect(await query('--metadata', 'source=crm')).toEqual(['hello']);
    expect(await query('--metadata', 'priority>=2', '--metadata', 'priority<5')).toEqual([
      'call list_files',
    ]);
    expect(await query('--metadata', 'tags IN api,web')).toEqual(['hello']);
    expect(await query('--metadata', 'tags IS NULL')).toEqual(['call list_files', 'two files']);
    expect(
      await query(
        '--metadata-filter',
        '{"type":"or","filters":[{"property_name":"source","comparison_operator":"=","property_value":"erp"},{"property_name":"priority","comparison_operator":">","property_value":6}]}',
      ),
    ).toEqual(['hello', 'call list_files']);
    const withPayload = episodesQueryReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'episodes',
          'query',
          '--scope',
          'alpha',
          '--include-payload',
          '--type',
          'tool.call',
        ])
      ).receipt,
    );
    expect(withPayload.events[0]?.payload).toEqual({ path: '.' });
    expect(withPayload.filters).toMatchObject({ types: ['tool.call'], include_payload: true });
  });

  it('pages with --limit and --after-id', async () => {
    const home = temporaryHome();
    await seed(home);
    const first = episodesQueryReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'episodes',
          'query',
          '--scope',
          'alpha',
          '--limit',
          '2',
        ])
      ).receipt,
    );
    expect(first.events).toHaveLength(2);
    expect(first.next_after_id).toBe(first.events[1]?.event_id);
    const second = episodesQueryReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'episodes',
          'query',
          '--scope',
          'alpha',
          '--limit',
          '2',
          '--after-id',
          first.next_after_id as string,
        ])
      ).receipt,
    );
    expect(second.events.map((item) => item.summary)).toEqual(['two files']);
    expect(second.next_after_id).toBeNull();
    // A cursor from another scope does not exist here.
    const beta = episodesQueryReceiptSchema.parse(
      (await episodicJson(['--home', home, 'episodes', 'query', '--scope', 'beta'])).receipt,
    );
    const foreign = await episodicJson([
      '--home',
      home,
      'episodes',
      'query',
      '--scope',
      'alpha',
      '--after-id',
      beta.events[0]?.event_id as string,
    ]);
    expect(expectError(foreign, 1, 'NOT_FOUND')).toContain('--after-id');
  });

  it('rejects bad queries with exit 2, before opening the database', async () => {
    const home = temporaryHome();
    const cases: Array<[string[], string, RegExp]> = [
      [[], 'SCOPE_REQUIRED', /--scope SCOPE \(--global is the scope named global; --all-scopes/],
      [['--scope', 'a', '--global'], 'USAGE_ERROR', /not both/],
      [['--scope', 'a', '--type', 'tool.cal'], 'VALIDATION_ERROR', /tool\.cal/],
      [['--scope', 'a', '--limit', '501'], 'VALIDATION_ERROR', /--limit "501".*1 to 500/],
      [
        ['--scope', 'a', '--from-ts-ms', '5', '--to-ts-ms', '4'],
        'VALIDATION_ERROR',
        /swap the bounds/,
      ],
      [['--scope', 'a', '--from', 'soon'], 'VALIDATION_ERROR', /--from "soon".*2h, 3d/],
      [['--scope', 'a', '--from', '2h', '--from-ts-ms', '5'], 'USAGE_ERROR', /not both/],
      [['--scope', 'a', '--metadata', 'nokey'], 'VALIDATION_ERROR', /Invalid --metadata "nokey"/],
      [['--scope', 'a', '--metadata-filter', '{"type":"xor"}'], 'VALIDATION_ERROR', /type/],
      [['--scope', '!!!'], 'VALIDATION_ERROR', /invalid scope/i],
    ];
    for (const [args, code, text] of cases) {
      expect(
        expectError(await episodicJson(['--home', home, 'episodes', 'query', ...args]), 2, code),
        args.join(' '),
      ).toMatch(text);
    }
    expect(existsSync(join(home, 'episodic.db'))).toBe(false);
  });

  it('prints a table with sanitized text without --json', async () => {
    const home = temporaryHome();
    await appendEvent(
      home,
      { summary: 'evil \u001b[2J\u001b]0;title\u0007 text \u202e', 'ts-ms': '1' },
      ['--allow-tool-output'],
    );
    const result = await episodic(['--home', home, 'episodes', 'query', '--scope', 'proj']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('SUMMARY');
    expect(result.stdout).toContain('evil');
    const unsafe = [...result.stdout].filter((character) => {
      const code = character.codePointAt(0) as number;
      return (code < 0x20 && character !== '\n') || code === 0x7f || code === 0x202e;
    });
    expect(unsafe).toEqual([]);
    expect(result.stdout).toContain('\\u{1b}');
    expect(result.stdout).toContain('1 event');
  });

  it('colours only on request (a TTY or FORCE_COLOR), never with --no-color or NO_COLOR', async () => {
    const home = temporaryHome();
    await appendEvent(home, { summary: 'x' });
    const args = ['--home', home, 'episodes', 'query', '--scope', 'proj'];
    expect((await episodic(args)).stdout).not.toContain('\u001b[');
    expect((await episodic(args, { env: { FORCE_COLOR: '1' } })).stdout).toContain('\u001b[1m');
    expect(
      (await episodic([...args, '--no-color'], { env: { FORCE_COLOR: '1' } })).stdout,
    ).not.toContain('\u001b[');
    expect(
      (await episodic(args, { env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).stdout,
    ).not.toContain('\u001b[');
  });

  it('replays one session of one scope in order', async () => {
    const home = temporaryHome();
    await seed(home);
    const result = await episodicJson([
      '--home',
      home,
      'episodes',
      'replay',
      's1',
      '--scope',
      'alpha',
      '--include-payload',
    ]);
    const receipt = episodesReplayReceiptSchema.parse(result.receipt);
    expect(receipt).toMatchObject({
      scope: 'alpha',
      session_id: 's1',
      count: 2,
      limit: 200,
      include_payload: true,
    });
    expect(receipt.events.map((item) => [item.summary, item.position])).toEqual([
      ['hello', 1],
      ['call list_files', 2],
    ]);
    const other = episodesReplayReceiptSchema.parse(
      (await episodicJson(['--home', home, 'episodes', 'replay', 's1', '--scope', 'beta'])).receipt,
    );
    expect(other.events.map((item) => item.summary)).toEqual(['beta secret plan']);
    const missing = await episodicJson(['--home', home, 'episodes', 'replay', '--scope', 'alpha']);
    expect(expectError(missing, 2, 'USAGE_ERROR')).toContain('SESSION_ID');
    const noScope = await episodicJson(['--home', home, 'episodes', 'replay', 's1']);
    expectError(noScope, 2, 'SCOPE_REQUIRED');
  });
});

describe('episodes redact', () => {
  it('redacts a session within its scope only, keeping the rows, and erases the bytes', async () => {
    const home = temporaryHome();
    const secret = 'the launch code is 0000-PLUTO-7';
    await appendEvent(home, {
      scope: 'alpha',
      'session-id': 's1',
      summary: `alpha ${secret}`,
      'payload-json': JSON.stringify({ note: secret }),
    });
    await appendEvent(home, {
      scope: 'alpha',
      'session-id': 's1',
      summary: 'second',
      'refs-json': '{"file":"a.ts"}',
    });
    await appendEvent(home, { scope: 'beta', 'session-id': 's1', summary: 'beta keeps this' });
    const result = await episodicJson([
      '--home',
      home,
      'episodes',
      'redact',
      '--session-id',
      's1',
      '--scope',
      'alpha',
      '--replacement',
      'placeholder',
    ]);
    const receipt = episodesRedactReceiptSchema.parse(result.receipt);
    expect(receipt).toMatchObject({
      scope: 'alpha',
      replacement: 'placeholder',
      redacted_count: 2,
      target: { session_id: 's1', event_id: null, scope: 'alpha' },
    });
    const alpha = episodesQueryReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'episodes',
          'query',
          '--scope',
          'alpha',
          '--include-payload',
        ])
      ).receipt,
    );
    expect(
      alpha.events.map((item) => [item.summary, item.payload, item.refs, item.redacted]),
    ).toEqual([
      ['[REDACTED]', '[REDACTED]', null, true],
      ['[REDACTED]', '[REDACTED]', null, true],
    ]);
    const beta = episodesQueryReceiptSchema.parse(
      (await episodicJson(['--home', home, 'episodes', 'query', '--scope', 'beta'])).receipt,
    );
    expect(beta.events.map((item) => [item.summary, item.redacted])).toEqual([
      ['beta keeps this', false],
    ]);
    expect(databaseBytes(home).includes(secret)).toBe(false);
  });

  it('redacts one event by id with --replacement null, and never across scopes', async () => {
    const home = temporaryHome();
    const alpha = await appendEvent(home, {
      scope: 'alpha',
      summary: 'a',
      'payload-json': '{"x":1}',
    });
    const beta = await appendEvent(home, {
      scope: 'beta',
      summary: 'b',
      'payload-json': '{"y":2}',
    });
    const wrongScope = [
      '--home',
      home,
      'episodes',
      'redact',
      '--event-id',
      beta.event_id as string,
      '--scope',
      'alpha',
    ];
    const wrongScopeMessage = expectError(await episodicJson(wrongScope), 1, 'NOT_FOUND');
    expect(wrongScopeMessage).toContain(beta.event_id as string);
    // A dry run gives the real run's answer, not "0 events would be redacted".
    const wrongScopeDry = await episodicJson([...wrongScope, '--dry-run']);
    expect(expectError(wrongScopeDry, 1, 'NOT_FOUND')).toBe(wrongScopeMessage);
    const ok = episodesRedactReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'episodes',
          'redact',
          '--event-id',
          alpha.event_id as string,
          '--scope',
          'alpha',
          '--replacement',
          'null',
        ])
      ).receipt,
    );
    expect(ok.redacted_count).toBe(1);
    const global = episodesQueryReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'episodes',
          'query',
          '--all-scopes',
          '--include-payload',
        ])
      ).receipt,
    );
    expect(global.events.map((item) => [item.scope, item.summary, item.payload ?? null])).toEqual([
      ['alpha', '[REDACTED]', null],
      ['beta', 'b', { y: 2 }],
    ]);
  });

  it('refuses an incomplete or ambiguous target with exit 2, changing nothing', async () => {
    const home = temporaryHome();
    await appendEvent(home, {});
    const before = ledgerRows(home);
    expectError(
      await episodicJson(['--home', home, 'episodes', 'redact', '--session-id', 's1']),
      2,
      'SCOPE_REQUIRED',
    );
    expectError(
      await episodicJson(['--home', home, 'episodes', 'redact', '--scope', 'proj']),
      2,
      'USAGE_ERROR',
    );
    expectError(
      await episodicJson([
        '--home',
        home,
        'episodes',
        'redact',
        '--scope',
        'proj',
        '--session-id',
        's1',
        '--event-id',
        'e',
      ]),
      2,
      'USAGE_ERROR',
    );
    expect(
      expectError(
        await episodicJson([
          '--home',
          home,
          'episodes',
          'redact',
          '--scope',
          'proj',
          '--session-id',
          's1',
          '--replacement',
          'blank',
        ]),
        2,
        'VALIDATION_ERROR',
      ),
    ).toContain('"null", "placeholder"');
    expect(ledgerRows(home)).toEqual(before);
  });
});

describe('episodes gc', () => {
  async function seedAges(home: string, now: number) {
    // tool.result keeps 30 days, conversation.user 60, ops.decision forever.
    await appendEvent(home, {
      type: 'tool.result',
      summary: 'old result',
      'ts-ms': String(now - 31 * DAY),
    });
    await appendEvent(home, {
      type: 'tool.result',
      summary: 'fresh result',
      'ts-ms': String(now - 29 * DAY),
    });
    await appendEvent(home, {
      type: 'conversation.user',
      summary: 'old question',
      'ts-ms': String(now - 61 * DAY),
    });
    await appendEvent(home, {
      type: 'ops.decision',
      summary: 'ancient decision',
      'ts-ms': String(now - 900 * DAY),
    });
    await appendEvent(home, {
      scope: 'other',
      type: 'tool.result',
      summary: 'other scope old',
      'ts-ms': String(now - 31 * DAY),
    });
  }

  it('a dry run counts exactly what the real run deletes, and deletes nothing', async () => {
    const home = temporaryHome();
    const now = 1_800_000_000_000;
    await seedAges(home, now);
    const before = ledgerRows(home);
    const dry = episodesGcReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'episodes',
          'gc',
          '--scope',
          'proj',
          '--now-ts-ms',
          String(now),
          '--dry-run',
        ])
      ).receipt,
    );
    expect(dry).toMatchObject({ scope: 'proj', dry_run: true, now_ts_ms: now, deleted_total: 2 });
    expect(dry.deleted_by_type).toEqual({
      'conversation.assistant': 0,
      'conversation.user': 1,
      'ops.alert': 0,
      'ops.decision': 0,
      'tool.call': 0,
      'tool.result': 1,
    });
    expect(dry.policy_days).toEqual({
      'conversation.assistant': 90,
      'conversation.user': 60,
      'ops.alert': 90,
      'ops.decision': null,
      'tool.call': 30,
      'tool.result': 30,
    });
    expect(ledgerRows(home)).toEqual(before);
    const real = episodesGcReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'episodes',
          'gc',
          '--scope',
          'proj',
          '--now-ts-ms',
          String(now),
        ])
      ).receipt,
    );
    expect(real.dry_run).toBe(false);
    expect(real.deleted_by_type).toEqual(dry.deleted_by_type);
    expect(real.deleted_total).toBe(dry.deleted_total);
    const left = episodesQueryReceiptSchema.parse(
      (await episodicJson(['--home', home, 'episodes', 'query', '--all-scopes'])).receipt,
    );
    expect(left.events.map((item) => item.summary).sort()).toEqual([
      'ancient decision',
      'fresh result',
      'other scope old',
    ]);
  });

  it('applies --policy overrides (days and forever), and a receipt of counts only', async () => {
    const home = temporaryHome();
    const now = 1_800_000_000_000;
    await seedAges(home, now);
    const result = await episodicJson([
      '--home',
      home,
      'episodes',
      'gc',
      '--all-scopes',
      '--yes',
      '--now-ts-ms',
      String(now),
      '--policy',
      'tool.result=forever',
      '--policy',
      'ops.decision=365',
    ]);
    const receipt = episodesGcReceiptSchema.parse(result.receipt);
    expect(receipt.all_scopes).toBe(true);
    expect(receipt.deleted_by_type).toMatchObject({
      'tool.result': 0,
      'ops.decision': 1,
      'conversation.user': 1,
    });
    expect(receipt.policy_days).toMatchObject({ 'tool.result': null, 'ops.decision': 365 });
    expect(JSON.stringify(receipt)).not.toContain('old result');
    const human = await episodic([
      '--home',
      home,
      'episodes',
      'gc',
      '--all-scopes',
      '--dry-run',
      '--now-ts-ms',
      String(now),
    ]);
    expect(human.status).toBe(0);
    expect(human.stdout).toContain('WOULD DELETE');
    expect(human.stderr).toBe('');
  });

  it('rejects a bad policy with exit 2 and deletes nothing', async () => {
    const home = temporaryHome();
    const now = 1_800_000_000_000;
    await seedAges(home, now);
    const before = ledgerRows(home);
    for (const [policy, text] of [
      ['tool.result', /TYPE=DAYS/],
      ['tool.reslt=3', /not an event type/],
      ['tool.result=-1', /from 0 to 1000000/],
      ['tool.result=1e3', /from 0 to 1000000/],
      ['tool.result=soon', /from 0 to 1000000/],
    ] as const) {
      expect(
        expectError(
          await episodicJson([
            '--home',
            home,
            'episodes',
            'gc',
            '--scope',
            'proj',
            '--policy',
            policy,
            '--now-ts-ms',
            String(now),
          ]),
          2,
          'VALIDATION_ERROR',
        ),
      ).toMatch(text);
    }
    expectError(await episodicJson(['--home', home, 'episodes', 'gc']), 2, 'SCOPE_REQUIRED');
    expect(ledgerRows(home)).toEqual(before);
  });
});
