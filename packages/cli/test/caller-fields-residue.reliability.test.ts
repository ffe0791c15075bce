// Pins "redaction covers every stored byte that came from a caller" (issue 29, item 1;
// docs/guarantees.md, Redaction). Through the built `episodic` binary, secrets go into every field
// a caller fills: a ledger event's summary, payload, refs and metadata, values and object keys
// (stored with --allow secret), a task step's action and parameters (values and keys), and a
// session GC later collects whole. Ids that look like secrets are refused at append. A task run
// is also copied into a second day directory (store-fs), as a restore or a hand copy leaves it.
// Then `episodes redact`, `runs redact` (secrets and content mode) and `episodes gc`, and every
// byte of every file under the home (the .db, -wal, -shm, run files, temp files) is searched: 0
// copies of any secret, and 0 of the collected session's id (episodic_session_heads included).
// Reduced counts by default; RELIABILITY_FULL=1 appends 25 events of secrets per store.

import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runsListReceiptSchema } from '../src/receipts/index.js';
import { episodicJson, temporaryHome } from './helpers.js';

const FULL = process.env.RELIABILITY_FULL === '1';
const EVENTS = FULL ? 25 : 3;
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ234567';
const randomText = (length: number) =>
  Array.from(randomBytes(length), (byte) => ALPHABET[byte % ALPHABET.length]).join('');
// Fresh per run, and assembled at run time, so no file holds them before the test writes them.
const awsKey = () => `AKIA${randomText(16)}`;
const SCOPE = 'caller';
const SESSION = 'session-a';
const NOW_MS = Date.parse('2026-03-01T00:00:00.000Z');

function filesUnder(root: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(path));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** The needles found in any file under `home`, each with the files that hold it. */
function residue(home: string, needles: readonly string[]): Record<string, string[]> {
  const files = filesUnder(home).map((path) => ({ path, bytes: readFileSync(path) }));
  const found: Record<string, string[]> = {};
  for (const needle of needles) {
    const where = files
      .filter((file) => file.bytes.includes(Buffer.from(needle, 'utf8')))
      .map((file) => file.path.slice(home.length + 1));
    if (where.length > 0) found[needle] = where;
  }
  return found;
}

async function ok(home: string, store: string, args: string[]): Promise<Record<string, unknown>> {
  const result = await episodicJson(['--home', home, '--store', store, ...args]);
  expect(result.status, `${args.slice(0, 2).join(' ')}: ${result.stderr}${result.stdout}`).toBe(0);
  return result.receipt;
}

describe.each(['sqlite', 'fs'] as const)('secrets in every caller field (%s runs)', (store) => {
  it('leave 0 copies after redact + gc; ids that look like secrets are refused', async () => {
    const home = temporaryHome();
    const secrets: string[] = [];
    const next = () => {
      const secret = awsKey();
      secrets.push(secret);
      return secret;
    };

    // Ledger events with a secret in each caller field, values and keys.
    for (let index = 0; index < EVENTS; index++) {
      await ok(home, store, [
        'episodes',
        'append',
        '--scope',
        SCOPE,
        '--session-id',
        SESSION,
        '--agent-id',
        'agent',
        '--type',
        'tool.call',
        '--summary',
        `called with ${next()}`,
        '--payload-json',
        JSON.stringify({ p: next(), [`key-${next()}`]: 1, nested: { [`n-${next()}`]: 'v' } }),
        '--refs-json',
        JSON.stringify({ [`ref-${next()}`]: 'x' }),
        '--metadata-json',
        JSON.stringify({ m: next(), [`k-${next()}`]: 1 }),
        '--allow',
        'secret',
      ]);
    }

    // Ids that look like secrets are refused, naming the field, even with --allow secret.
    for (const flag of ['--session-id', '--agent-id', '--event-id']) {
      const secret = awsKey();
      const args = {
        '--session-id': SESSION,
        '--agent-id': 'agent',
        [flag]: `id-${secret}`,
      };
      const refused = await episodicJson([
        '--home',
        home,
        'episodes',
        'append',
        '--scope',
        SCOPE,
        ...Object.entries(args).flat(),
        '--type',
        'tool.call',
        '--summary',
        'fine',
        '--allow',
        'secret',
      ]);
      expect(refused.status).toBe(2);
      expect(String(refused.receipt.error)).toContain(
        `${flag.slice(2).replace('-', '_')} looks like a secret`,
      );
      expect(refused.stdout + refused.stderr).not.toContain(secret);
      secrets.push(secret);
    }

    // A session GC collects whole: its id must not stay anywhere (the session heads included).
    const gone = `gone-${randomText(12)}`;
    await ok(home, store, [
      'episodes',
      'append',
      '--scope',
      SCOPE,
      '--session-id',
      gone,
      '--agent-id',
      'agent',
      '--type',
      'tool.result',
      '--summary',
      'old result',
      '--ts-ms',
      String(Date.parse('2025-12-01T00:00:00.000Z')),
    ]);

    // Task steps: a secret in the action, in a parameter value and as a parameter key.
    const taskIds: string[] = [];
    for (const mode of ['content', 'secrets']) {
      const created = await ok(home, store, [
        'tasks',
        'create',
        '--scope',
        SCOPE,
        '--description',
        `redact in ${mode} mode`,
        '--domain',
        'ops',
        '--task-type',
        'debugging',
        // Stored in the run and copied into the artifact store's episode metadata (seed 003).
        '--metadata-json',
        JSON.stringify({ token: next(), [`k-${next()}`]: 'v' }),
      ]);
      const id = (created.task as { id: string }).id;
      taskIds.push(id);
      await ok(home, store, [
        'tasks',
        'step',
        id,
        '--scope',
        SCOPE,
        '--step',
        '1',
        '--tool',
        'shell',
        '--action',
        `export ${next()}`,
        '--parameters-json',
        JSON.stringify({ [next()]: 'v', [`p-${next()}`]: { deep: next() }, plain: 'x' }),
        '--result',
        'success',
        '--output',
        `printed ${next()}`,
      ]);
    }
    const [contentTask, secretsTask] = taskIds as [string, string];

    if (store === 'fs') {
      // A copy of a run in another day directory: listed once, and scrubbed like the original.
      const file = filesUnder(home).find((path) => path.endsWith(`${contentTask}.jsonl`)) as string;
      const copy = join(home, 'sessions', '2020', '01', '01', `${contentTask}.jsonl`);
      mkdirSync(dirname(copy), { recursive: true });
      copyFileSync(file, copy);
      const listed = runsListReceiptSchema.parse(await ok(home, store, ['runs', 'list']));
      expect(listed.runs.filter((run) => run.run_id === contentTask)).toHaveLength(1);
      expect(listed.errors).toEqual([
        expect.objectContaining({ run_id: contentTask, message: expect.stringContaining('copy') }),
      ]);
    }

    // The test can fail: before the redaction every secret written is on disk, and so is `gone`.
    const written = secrets.slice(0, secrets.length);
    const refusedIds = written.filter((_, index) => index >= EVENTS * 7 && index < EVENTS * 7 + 3);
    const stored = written.filter((secret) => !refusedIds.includes(secret));
    expect(Object.keys(residue(home, [...stored, gone])).sort()).toEqual([...stored, gone].sort());
    // The refused ids never reached a file.
    expect(residue(home, refusedIds)).toEqual({});

    const holder = new Database(join(home, 'episodic.db'));
    holder.prepare('SELECT count(*) FROM sqlite_master').get();
    try {
      await ok(home, store, ['episodes', 'redact', '--scope', SCOPE, '--session-id', SESSION]);
      await ok(home, store, ['runs', 'redact', contentTask, '--mode', 'content']);
      await ok(home, store, ['runs', 'redact', secretsTask]);
      const gc = await ok(home, store, [
        'episodes',
        'gc',
        '--scope',
        SCOPE,
        '--now-ts-ms',
        String(NOW_MS),
      ]);
      expect(gc.deleted_total).toBe(1);
      expect(residue(home, [...secrets, gone])).toEqual({});
      expect(filesUnder(home).filter((path) => path.endsWith('.tmp'))).toEqual([]);
    } finally {
      holder.close();
    }
    expect(residue(home, [...secrets, gone])).toEqual({});

    // Reads show none of it either.
    const query = await ok(home, store, [
      'episodes',
      'query',
      '--scope',
      SCOPE,
      '--include-payload',
    ]);
    const shown = JSON.stringify(query);
    expect(secrets.filter((secret) => shown.includes(secret))).toEqual([]);
    expect((query.events as unknown[]).length).toBe(EVENTS);
    console.log(
      `[figures] caller-field residue (${store}): ${secrets.length} secrets (${EVENTS} events × 7 fields and keys, 3 refused ids, 2 tasks × (2 metadata + 5 step)), 1 collected session id; 0 copies in ${filesUnder(home).length} files`,
    );
  }, 300_000);
});
