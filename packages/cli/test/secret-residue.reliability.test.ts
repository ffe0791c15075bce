// Pins "redaction: secrets added, redacted, GC'd → 0 copies of any secret left in `.db`, `-wal`,
// run files or temp files" (QUALITY.md reliability table; research/reliability.md finding 6, E7
// (56 copies left in the .db by UPDATE without secure_delete), test plan T25; DESIGN.md §5
// "Redaction leaves no copy of the redacted bytes in the database files"). Ten distinct secrets go
// where a real agent puts them: the run's header, input, model answer and tool call, a tool output
// (and its cached full text), a torn last line, the session snapshot, and the ledger events
// projected from the run (stored with `allow: ['secret']`). The built `episodic` binary then
// redacts the session and one event, and collects expired events; the test searches every byte of
// every file under the home (the database, its -wal and -shm, run files, cached outputs, snapshots
// and any temp file) for every secret, while another connection keeps the database open so the WAL
// is not simply deleted at close. Before the redaction the same search must find every secret.
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type NewLedgerEvent, projectRunRecords, type RunRecord } from '@episodic/core';
import { scanText } from '@episodic/core/adapter';
import { toolOutputRefFor } from '@episodic/core/schemas';
import { openEpisodicStores } from '@episodic/home';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  episodesRedactReceiptSchema,
  runsRedactReceiptSchema,
  sessionsRedactReceiptSchema,
} from '../src/receipts/index.js';
import { episodicJson, temporaryHome } from './helpers.js';

const piece = (unit: string, length: number) =>
  unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
// Assembled from pieces so this file does not itself look like a leaked credential.
const SECRETS = {
  aws: ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join(''),
  github: ['ghp', '_', piece('a1B2c3D4e5F6g7H8', 36)].join(''),
  gitlab: ['glpat', '-', piece('Xy7Zq9Wm3Kp2Rt8V', 20)].join(''),
  slack: ['xoxb', '-', '1234567890', '-', '1234567890123', '-', piece('aB3dE5gH7jK9', 24)].join(''),
  stripe: ['sk', '_live_', piece('4eC39HqLyjWDarjtT1zdp7dc', 24)].join(''),
  npm: ['npm', '_', piece('a1b2c3d4e5f6g7h8i9j0', 36)].join(''),
  google: ['AIza', piece('SyB-9kLm2Np4Qr6St8Uv0Wx1Yz3Ab5Cd7E', 35)].join(''),
  huggingface: ['hf', '_', piece('aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH', 34)].join(''),
  anthropic: ['sk-ant-api03-', piece('Ab9_Cd8-Ef7Gh6Ij5', 93), 'AA'].join(''),
  openai: ['sk-proj-', piece('a1B2c3D4e5F6g7H8', 48)].join(''),
};
const ALL = Object.values(SECRETS);

const SCOPE = 'residue';
const SESSION = '4d3c2b1a-0f9e-4d8c-8b7a-6f5e4d3c2b1a';
const RUN = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const OTHER_RUN = '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e';
const TS = '2026-01-10T10:00:00.000Z';
const NOW_MS = Date.parse('2026-03-01T00:00:00.000Z');

function runRecords(): RunRecord[] {
  const output = `AWS_ACCESS_KEY_ID=${SECRETS.aws}\nSTRIPE=${SECRETS.stripe}\n`;
  return [
    {
      type: 'header',
      schema_version: 1,
      run_id: RUN,
      session_id: SESSION,
      started_at: TS,
      prompts: { system: `Use the token ${SECRETS.gitlab} for the registry.` },
    },
    {
      type: 'run.start',
      run_id: RUN,
      ts: TS,
      input: { type: 'text', text: `deploy with ${SECRETS.github}` },
    },
    {
      type: 'llm.response',
      run_id: RUN,
      ts: TS,
      seq: 1,
      output: {
        messages: [
          {
            role: 'assistant',
            content: `I will call the API with ${SECRETS.slack}.`,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'exec', arguments: JSON.stringify({ token: SECRETS.npm }) },
              },
            ],
          },
        ],
      },
    },
    {
      type: 'tool.output',
      run_id: RUN,
      ts: TS,
      tool: 'exec',
      tool_call_id: 'call_1',
      result_raw: output,
      output_ref: toolOutputRefFor('call_1', output),
    },
    {
      type: 'run.end',
      run_id: RUN,
      ts: TS,
      outcome: 'completed',
      final: `Deployed; the key ${SECRETS.google} is set.`,
    },
  ];
}

/** Every file under `root`, recursively. */
function filesUnder(root: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(path));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** For each secret, the files (relative) that hold its bytes. */
function residue(home: string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  const files = filesUnder(home).map((path) => ({ path, bytes: readFileSync(path) }));
  for (const [name, secret] of Object.entries(SECRETS)) {
    const where = files
      .filter((file) => file.bytes.includes(Buffer.from(secret, 'utf8')))
      .map((file) => file.path.slice(home.length + 1));
    if (where.length > 0) found[name] = where;
  }
  return found;
}

async function seed(home: string, store: 'sqlite' | 'fs', ledger = true): Promise<string> {
  const stores = await openEpisodicStores({ home, store, durability: 'always' });
  try {
    const records = runRecords();
    await stores.runs.append(RUN, records);
    await stores.runs.append(OTHER_RUN, [
      { type: 'header', schema_version: 1, run_id: OTHER_RUN, started_at: TS },
      {
        type: 'run.start',
        run_id: OTHER_RUN,
        ts: TS,
        input: { type: 'text', text: `rotate ${SECRETS.huggingface}` },
      },
    ]);
    await stores.sessions.save({
      schema_version: 1,
      session_id: SESSION,
      updated_at: TS,
      run_id: RUN,
      messages: [
        { role: 'user', content: `deploy with ${SECRETS.github}` },
        { role: 'assistant', content: 'done' },
      ],
      context: { env: { ANTHROPIC_API_KEY: SECRETS.anthropic } },
      revision: 1,
    });
    if (!ledger) return '';
    const projected = [
      ...projectRunRecords(records, { scope: SCOPE }),
      ...projectRunRecords((await stores.runs.read(OTHER_RUN)).records, { scope: SCOPE }),
    ];
    await stores.ledger.appendBatch(projected, { allow: ['secret'] });
    // An old event of another session, expired by the GC (tool results live 30 days).
    const expired: NewLedgerEvent = {
      scope: SCOPE,
      session_id: 'build-7',
      agent_id: 'runner',
      type: 'tool.result',
      summary: 'env dump',
      ts_ms: Date.parse('2025-12-01T00:00:00.000Z'),
      payload: { text: `OPENAI_API_KEY=${SECRETS.openai}` },
    };
    await stores.ledger.append(expired, { allow: ['secret'] });
    const other = projected.find(
      (event) => (event.refs as { run_id?: string } | undefined)?.run_id === OTHER_RUN,
    );
    return other?.event_id as string;
  } finally {
    await stores.close();
  }
}

describe.each(['sqlite', 'fs'] as const)('secret residue after redact + gc (%s runs)', (store) => {
  it('leaves 0 copies of any of 10 secrets in any file under the home', async () => {
    for (const secret of ALL) expect(scanText(secret), secret.slice(0, 8)).not.toEqual([]);
    const home = temporaryHome();
    const otherEventId = await seed(home, store);
    if (store === 'fs') {
      // A torn last line (a writer killed mid-record) holding a secret.
      const file = filesUnder(home).find((path) => path.endsWith(`${RUN}.jsonl`)) as string;
      appendFileSync(file, `{"type":"agent.event","run_id":"${RUN}","note":"${SECRETS.aws} torn`);
    }
    // The test can fail: before the redaction every secret is on disk.
    expect(Object.keys(residue(home)).sort()).toEqual(Object.keys(SECRETS).sort());

    // Another connection keeps the database open, so the WAL file is not just deleted at close.
    const holder = new Database(join(home, 'episodic.db'));
    // A connection only joins the WAL when it first reads.
    holder.prepare('SELECT count(*) FROM sqlite_master').get();
    try {
      const args = ['--home', home, '--store', store];
      const session = await episodicJson([
        ...args,
        'episodes',
        'redact',
        '--scope',
        SCOPE,
        '--session-id',
        SESSION,
      ]);
      expect(session.status, session.stderr).toBe(0);
      const receipt = episodesRedactReceiptSchema.parse(session.receipt);
      expect(receipt.redacted_count).toBeGreaterThan(0);
      expect(receipt.stored.runs.map((run) => run.run_id)).toContain(RUN);
      expect(receipt.stored.sessions).toMatchObject([{ session_id: SESSION, changed: true }]);
      const event = await episodicJson([
        ...args,
        'episodes',
        'redact',
        '--scope',
        SCOPE,
        '--event-id',
        otherEventId,
      ]);
      expect(event.status, event.stderr).toBe(0);
      expect(
        episodesRedactReceiptSchema.parse(event.receipt).stored.runs.map((run) => run.run_id),
      ).toEqual([OTHER_RUN]);
      const gc = await episodicJson([
        ...args,
        'episodes',
        'gc',
        '--scope',
        SCOPE,
        '--now-ts-ms',
        String(NOW_MS),
      ]);
      expect(gc.status, gc.stderr).toBe(0);
      expect(gc.receipt.deleted_total).toBeGreaterThanOrEqual(1);

      expect(residue(home)).toEqual({});
      console.log(
        `[figures] secret residue (${store}): 10 secrets, ${filesUnder(home).length} files searched (${filesUnder(
          home,
        )
          .map((path) => path.slice(home.length + 1))
          .join(', ')}), 0 copies`,
      );
      // No temp file was left behind either.
      expect(filesUnder(home).filter((path) => path.endsWith('.tmp'))).toEqual([]);
    } finally {
      holder.close();
    }
    expect(residue(home)).toEqual({});
    for (const path of filesUnder(home)) expect(statSync(path).isFile()).toBe(true);

    // What was redacted is still there, readable and marked.
    const stores = await openEpisodicStores({ home, store });
    try {
      const run = await stores.runs.read(RUN);
      expect(run.records.map((record) => record.type)).toEqual(
        runRecords().map((record) => record.type),
      );
      expect(JSON.stringify(run.records)).toContain('[REDACTED:aws_key]');
      const events = (await stores.ledger.query({ scope: SCOPE, limit: 500 })).events;
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((event) => event.redacted)).toBe(true);
      expect((await stores.sessions.load(SESSION))?.revision).toBe(2);
    } finally {
      await stores.close();
    }
  }, 300_000);
});

describe.each(['sqlite', 'fs'] as const)(
  'runs redact and sessions redact alone (%s runs)',
  (store) => {
    it('leave no copy of the scrubbed secrets in any file, the -wal included', async () => {
      const home = temporaryHome();
      await seed(home, store, false);
      const holder = new Database(join(home, 'episodic.db'));
      // A connection only joins the WAL when it first reads.
      holder.prepare('SELECT count(*) FROM sqlite_master').get();
      try {
        const args = ['--home', home, '--store', store];
        const run = await episodicJson([...args, 'runs', 'redact', RUN]);
        expect(run.status, run.stderr).toBe(0);
        expect(runsRedactReceiptSchema.parse(run.receipt).run).toMatchObject({
          run_id: RUN,
          mode: 'secrets',
          changed_lines: 5,
          changed_tool_outputs: store === 'fs' ? 1 : 0,
        });
        const session = await episodicJson([...args, 'sessions', 'redact', SESSION]);
        expect(session.status, session.stderr).toBe(0);
        expect(sessionsRedactReceiptSchema.parse(session.receipt).session).toMatchObject({
          changed: true,
          revision: 2,
        });
        // Only the run that was not redacted still holds its secret.
        expect(Object.keys(residue(home))).toEqual(['huggingface']);
      } finally {
        holder.close();
      }
    }, 300_000);
  },
);
