import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  episodesAppendReceiptSchema,
  episodesGcReceiptSchema,
  episodesQueryReceiptSchema,
} from '../src/receipts/index.js';
import {
  appendArgs,
  BIN,
  cleanEnv,
  episodic,
  episodicJson,
  expectError,
  ledgerRows,
  temporaryDirectory,
  temporaryHome,
} from './helpers.js';

/** The stored payload and refs text of every row, read from the database itself. */
function storedJson(
  home: string,
): Array<{ payload_json: string | null; refs_json: string | null }> {
  return (ledgerRows(home) ?? []) as Array<{
    payload_json: string | null;
    refs_json: string | null;
  }>;
}

describe('episodes append never changes what it stores without saying so', () => {
  it('keeps 12345678901234567890 in a payload and in refs digit for digit (it read back …567000)', async () => {
    const home = temporaryHome();
    const directory = temporaryDirectory();
    const refsFile = join(directory, 'refs.json');
    writeFileSync(refsFile, '{"ticket": 98765432109876543210}');
    const appended = await episodicJson(
      appendArgs(home, {}, [
        '--payload-json',
        '{"order_id":12345678901234567890}',
        '--refs-file',
        refsFile,
      ]),
    );
    expect(appended.status, appended.stdout).toBe(0);
    expect(storedJson(home)[0]).toMatchObject({
      payload_json: '{"order_id":12345678901234567890}',
      refs_json: '{"ticket":98765432109876543210}',
    });
    const query = await episodic([
      '--home',
      home,
      'episodes',
      'query',
      '--scope',
      'proj',
      '--include-payload',
      '--json',
    ]);
    expect(query.stdout).toContain('"payload":{"order_id":12345678901234567890}');
    expect(query.stdout).toContain('"refs":{"ticket":98765432109876543210}');
  });

  it('refuses a decimal a double cannot hold (exit 2) instead of rounding it', async () => {
    const home = temporaryHome();
    const message = expectError(
      await episodicJson(
        appendArgs(home, {}, ['--payload-json', '{"ratio":0.1000000000000000055511151231257827}']),
      ),
      2,
      'VALIDATION_ERROR',
    );
    expect(message).toContain('--payload-json holds a number that would not be stored as written');
    expect(message).toContain('it would become 0.1');
    expect(ledgerRows(home)).toBeNull();
  });

  it('refuses invalid UTF-8 in --payload-file and --refs-file with exit 2 naming the byte offset (it stored U+FFFD)', async () => {
    const home = temporaryHome();
    const directory = temporaryDirectory();
    const file = join(directory, 'latin1.json');
    // "café" written in Latin-1: 0xE9 at byte offset 12 does not start a UTF-8 character.
    writeFileSync(
      file,
      Buffer.concat([Buffer.from('{"note":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
    );
    for (const option of ['--payload-file', '--refs-file']) {
      const message = expectError(
        await episodicJson(appendArgs(home, {}, [option, file])),
        2,
        'VALIDATION_ERROR',
      );
      expect(message).toContain(`${option} "${file}" is not valid UTF-8`);
      expect(message).toContain('offset 12 (0xe9 0x22 0x7d)');
    }
    const truncated = join(directory, 'cut.json');
    writeFileSync(truncated, Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xe2, 0x82])]));
    expect(
      expectError(
        await episodicJson(appendArgs(home, {}, ['--payload-file', truncated])),
        2,
        'VALIDATION_ERROR',
      ),
    ).toContain('offset 6 (0xe2 0x82)');
    expect(ledgerRows(home)).toBeNull();
  });
});

/**
 * Runs the binary with `args`, where `$'…'`-style raw bytes are given as Buffers: Node encodes
 * every string argument as UTF-8, so the bytes go through a shell's printf (a real exec, as a
 * terminal in a Latin-1 locale would run it).
 */
function episodicWithBytes(args: ReadonlyArray<string | Buffer>) {
  const words = args.map((arg, index) =>
    typeof arg === 'string'
      ? `"\${${index + 1}}"`
      : `"$(printf '${[...arg].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('')}')"`,
  );
  const result = spawnSync(
    '/bin/sh',
    [
      '-c',
      `exec "$0" ${words.join(' ')}`,
      process.execPath,
      ...args.map((arg) => (typeof arg === 'string' ? arg : '')),
    ],
    { encoding: 'utf8', env: cleanEnv(), timeout: 120_000 },
  );
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    receipt: JSON.parse(lines[0] ?? '{}') as Record<string, unknown>,
  };
}

describe('no value given on the command line is changed on its way in', () => {
  it.skipIf(process.platform !== 'linux')(
    'refuses an argument whose bytes are not UTF-8 (it stored U+FFFD), naming the argument; a real U+FFFD is kept',
    () => {
      const home = temporaryHome();
      const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1
      const args = appendArgs(home, {}, ['--json']);
      const at = args.indexOf('--summary') + 1;
      const refused = episodicWithBytes([BIN, ...args.slice(0, at), latin1, ...args.slice(at + 1)]);
      const message = expectError(refused, 2, 'VALIDATION_ERROR');
      expect(message).toContain(`Argument ${at + 1} (the value of --summary) is not valid UTF-8`);
      expect(message).toContain('offset 3 (0xe9)');
      expect(ledgerRows(home)).toBeNull();
      // The same bytes as a value after "=", and in a JSON option.
      const inline = episodicWithBytes([
        BIN,
        ...appendArgs(home, {}, ['--json', '--payload-json']),
        Buffer.from([0x22, 0xff, 0x22]),
      ]);
      expect(expectError(inline, 2, 'VALIDATION_ERROR')).toContain(
        '(the value of --payload-json) is not valid UTF-8',
      );
      // U+FFFD typed as UTF-8 is a character like any other.
      const kept = episodicWithBytes([
        BIN,
        ...appendArgs(home, { summary: 'caf\uFFFD' }, ['--json']),
      ]);
      expect(kept.status, kept.stderr).toBe(0);
      expect(kept.receipt.event).toMatchObject({ summary: 'caf\uFFFD' });
    },
  );

  it('refuses a key given twice in --payload-json, --refs-file, --metadata-json and stdin (it kept the last)', async () => {
    const home = temporaryHome();
    const directory = temporaryDirectory();
    const file = join(directory, 'refs.json');
    writeFileSync(file, '{"run":"a","nested":{"k":1,"\\u006b":2}}');
    const cases: Array<[string[], string, string | undefined]> = [
      [
        ['--payload-json', '{"a":1,"a":2}'],
        'the key "a" appears twice in the object at $ ',
        undefined,
      ],
      [['--refs-file', file], 'the key "k" appears twice in the object at $.nested', undefined],
      [['--metadata-json', '{"tier":"x","tier":"y"}'], 'the key "tier" appears twice', undefined],
      [
        ['--payload-file', '-'],
        'the key "b" appears twice in the object at $[1]',
        '[1,{"b":1,"b":1}]',
      ],
    ];
    for (const [flags, expected, input] of cases) {
      const message = expectError(
        await episodicJson(appendArgs(home, {}, flags), input === undefined ? {} : { input }),
        2,
        'VALIDATION_ERROR',
      );
      expect(message).toContain(`${flags[0]}`);
      expect(message).toContain(expected);
    }
    expect(ledgerRows(home)).toBeNull();
  });

  it('refuses --db :memory: and SQLite file: URIs (it acknowledged "position 1" for data gone at exit)', async () => {
    const home = temporaryHome();
    for (const [db, expected] of [
      [':memory:', '--db ":memory:" keeps the database in this command\'s memory'],
      ['file::memory:', '--db "file::memory:" is a SQLite URI'],
      ['file:x.db?mode=memory', 'is a SQLite URI'],
    ] as const) {
      const message = expectError(
        await episodicJson(['--db', db, ...appendArgs(home, {})]),
        2,
        'VALIDATION_ERROR',
      );
      expect(message).toContain(expected);
      expect(message).toContain('Nothing was changed');
    }
    const fromEnv = expectError(
      await episodicJson(appendArgs(home, {}), { env: { EPISODIC_DB: ':memory:' } }),
      2,
      'VALIDATION_ERROR',
    );
    expect(fromEnv).toContain('EPISODIC_DB ":memory:"');
    expect(ledgerRows(home)).toBeNull();
  });

  it('refuses JSON nested 8000 deep with a VALIDATION_ERROR naming where (it overflowed the stack)', async () => {
    const home = temporaryHome();
    const deep = `{"a":${'['.repeat(8000)}${']'.repeat(8000)}}`;
    for (const exact of ['--payload-json', '--metadata-json']) {
      const message = expectError(
        await episodicJson(appendArgs(home, {}, [exact, deep])),
        2,
        'VALIDATION_ERROR',
      );
      expect(message).toContain('nested more than 512 arrays and objects deep at $.a[0][0][0]…');
    }
    expect(ledgerRows(home)).toBeNull();
  });
});

describe("episodes follows seed 002's input normalization", () => {
  it('trims the session id, agent id and summary', async () => {
    const home = temporaryHome();
    const result = await episodicJson(
      appendArgs(home, {
        'session-id': '  sess-1 ',
        'agent-id': '\tlyria ',
        summary: '  Asked for status  ',
      }),
    );
    expect(result.status, result.stdout).toBe(0);
    expect(episodesAppendReceiptSchema.parse(result.receipt).event).toMatchObject({
      session_id: 'sess-1',
      agent_id: 'lyria',
      summary: 'Asked for status',
    });
    const replay = await episodicJson([
      '--home',
      home,
      'episodes',
      'replay',
      ' sess-1 ',
      '--scope',
      'proj',
    ]);
    expect(replay.receipt.count).toBe(1);
  });

  it('refuses a whitespace-only summary, session id or agent id (exit 2)', async () => {
    const home = temporaryHome();
    for (const [field, value] of [
      ['summary', '   '],
      ['session-id', ' \t '],
      ['agent-id', ' '],
    ] as const) {
      const message = expectError(
        await episodicJson(appendArgs(home, { [field]: value })),
        2,
        'VALIDATION_ERROR',
      );
      expect(message).toContain(`${field.replace('-', '_')} must not be blank`);
    }
    expect(ledgerRows(home)).toBeNull();
  });

  it('refuses --ts-ms 0', async () => {
    const home = temporaryHome();
    const message = expectError(
      await episodicJson(appendArgs(home, { 'ts-ms': '0' })),
      2,
      'VALIDATION_ERROR',
    );
    expect(message).toContain('--ts-ms "0"');
    expect(ledgerRows(home)).toBeNull();
  });

  it('folds --type case the same way in append, query and gc policies; receipts keep the types in the order given', async () => {
    const home = temporaryHome();
    const now = 1_800_000_000_000;
    const day = 86_400_000;
    const appended = await episodicJson(
      appendArgs(home, { type: 'Tool.Call', 'ts-ms': String(now - 2 * day) }),
    );
    expect(appended.status, appended.stdout).toBe(0);
    expect(appended.receipt.event).toMatchObject({ type: 'tool.call' });
    expect(
      (
        await episodicJson(
          appendArgs(home, { type: ' CONVERSATION.USER ', 'ts-ms': String(now - day) }),
        )
      ).status,
    ).toBe(0);
    const query = await episodicJson([
      '--home',
      home,
      'episodes',
      'query',
      '--scope',
      'proj',
      '--type',
      'Tool.Call, conversation.USER',
      '--type',
      'tool.call',
    ]);
    const receipt = episodesQueryReceiptSchema.parse(query.receipt);
    expect(receipt.filters.types).toEqual(['tool.call', 'conversation.user']);
    expect(receipt.count).toBe(2);
    // A dry run of gc at `now` with these --policy entries.
    const gcDryRun = async (...policies: string[]) =>
      episodesGcReceiptSchema.parse(
        (
          await episodicJson([
            ...['--home', home, 'episodes', 'gc', '--scope', 'proj', '--now-ts-ms', String(now)],
            ...policies.flatMap((policy) => ['--policy', policy]),
            '--dry-run',
          ])
        ).receipt,
      );
    const counts = await gcDryRun('Tool.Call=1.5', 'CONVERSATION.user=inf');
    expect(counts.policy_days).toMatchObject({ 'tool.call': 1.5, 'conversation.user': null });
    expect(counts.deleted_by_type).toMatchObject({ 'tool.call': 1, 'conversation.user': 0 });
    const zero = await gcDryRun('conversation.user=0');
    expect(zero.deleted_by_type['conversation.user']).toBe(1);
  });
});
