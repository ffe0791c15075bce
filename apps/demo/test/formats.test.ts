import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_MAIN, runDemo, runNode, temporaryHome } from './run-built-demo.js';

// The published JSON Schemas (schemas/, what the packages ship) against real files, checked by an
// independent validator (Ajv, draft 2020-12): every run file, snapshot and export line the demo's
// run leaves behind, the CLI's --json receipts over that home, and every format fixture.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCHEMAS = join(ROOT, 'schemas');
const BASE = 'https://raw.githubusercontent.com/episodic-dev/episodic/main/schemas/';

const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
addFormats.default(ajv);
const index = JSON.parse(readFileSync(join(SCHEMAS, 'index.json'), 'utf8')) as {
  schemas: Array<{ file: string; $id: string }>;
};
for (const entry of index.schemas)
  ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS, entry.file), 'utf8')));

function validator(file: string): ValidateFunction {
  const validate = ajv.getSchema(`${BASE}${file}`);
  if (validate === undefined) throw new Error(`no schema ${file} in schemas/index.json`);
  return validate;
}

/** Asserts `value` is valid, naming what it is and Ajv's first errors when it is not. */
function expectValid(file: string, value: unknown, what: string): void {
  const validate = validator(file);
  const valid = validate(value);
  expect(valid, `${what} against ${file}: ${ajv.errorsText(validate.errors?.slice(0, 3))}`).toBe(
    true,
  );
}

function filesUnder(folder: string, pattern: RegExp): string[] {
  return readdirSync(folder, { recursive: true })
    .map(String)
    .filter((file) => pattern.test(file))
    .map((file) => join(folder, file))
    .sort();
}

function jsonLines(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/**
 * A session's base (version 2: its `episodes`; version 1: its `episodic` JSONL) and, beside it,
 * its deltas: every line, and every episode in them, valid.
 */
function expectValidSnapshot(path: string): void {
  const state = JSON.parse(readFileSync(path, 'utf8')) as {
    schema_version: number;
    episodic?: string;
    episodes?: unknown[];
  };
  const version = state.schema_version === 1 ? 'v1' : 'v2';
  expectValid(`core/session-state.${version}.json`, state, path);
  const episodes =
    state.episodes ??
    (state.episodic ?? '')
      .split('\n')
      .filter((text) => text !== '')
      .map((text) => JSON.parse(text) as unknown);
  for (const [index, episode] of episodes.entries())
    expectValid('core/episode.v1.json', episode, `${path} episode ${index + 1}`);
  const deltas = path.replace(/\.json$/, '.deltas.jsonl');
  if (!existsSync(deltas)) return;
  for (const [line, delta] of jsonLines(deltas).entries()) {
    expectValid('core/session-delta.v1.json', delta, `${deltas} line ${line + 1}`);
    for (const [index, episode] of ((delta as { episodes?: unknown[] }).episodes ?? []).entries())
      expectValid(
        'core/episode.v1.json',
        episode,
        `${deltas} line ${line + 1} episode ${index + 1}`,
      );
  }
}

describe('the published schemas', () => {
  it('compile (draft 2020-12, strict) and each names its version in $id', () => {
    expect(index.schemas.length).toBeGreaterThan(60);
    for (const entry of index.schemas) {
      expect(entry.$id).toBe(`${BASE}${entry.file}`);
      expect(entry.$id).toMatch(/\.v\d+\.json$/);
      validator(entry.file);
    }
  });

  it('reject what a reader refuses', () => {
    expect(
      validator('core/run-record.v1.json')({ type: 'llm.request', run_id: 'r', ts: 'x' }),
    ).toBe(false);
    expect(validator('core/run-record.v1.json')({ type: 'x.acme.note', anything: true })).toBe(
      true,
    );
    expect(
      validator('core/episode.v1.json')({
        id: 1,
        type: 'item',
        payload: { item: { type: 'function_call' } },
      }),
    ).toBe(false);
    expect(
      validator('core/ledger-event.new.v0.json')({
        session_id: 's',
        agent_id: 'a',
        type: 'ops.alert',
        summary: 's',
        metadata: Object.fromEntries(Array.from({ length: 11 }, (_, key) => [`k${key}`, 1])),
      }),
    ).toBe(false);
    expect(
      validator('cli/export-line.v3.json')({
        type: 'export.end',
        counts: { sessions: 0, runs: 0, records: 0, events: 0 },
        extra: 1,
      }),
    ).toBe(false);
  });
});

describe('files the demo writes', () => {
  const home = temporaryHome('episodic-demo-formats-');
  const cli = (...args: string[]) => runNode(CLI_MAIN, [...args, '--home', home, '--store', 'fs']);

  beforeAll(async () => {
    const demo = await runDemo(['--json', '--home', home]);
    expect(demo.status, demo.stderr).toBe(0);
  }, 300_000);

  it('run files: every line of every run', () => {
    const files = filesUnder(join(home, 'sessions'), /^\d{4}\/.*\.jsonl$/);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      for (const [line, record] of jsonLines(file).entries()) {
        expectValid('core/run-record.v1.json', record, `${file} line ${line + 1}`);
        const type = (record as { type: string }).type;
        if (type !== 'header' && !type.startsWith('x.'))
          expectValid(
            `core/run-record.${type.replace('.', '-')}.v1.json`,
            record,
            `${file} line ${line + 1}`,
          );
      }
    }
  });

  it('session snapshots and the episodes of their logs', () => {
    const files = filesUnder(join(home, 'sessions', 'state'), /\.json$/);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expectValidSnapshot(file);
  });

  it('the export file, line by line', async () => {
    const output = join(home, 'export.jsonl');
    const result = await cli('export', '--all', '--all-scopes', '-o', output, '--json');
    expect(result.status, result.stderr).toBe(0);
    const lines = jsonLines(output);
    expect(lines.length).toBeGreaterThan(10);
    for (const [line, value] of lines.entries())
      expectValid('cli/export-line.v3.json', value, `export line ${line + 1}`);
  });

  it('CLI --json receipts, successes and errors', async () => {
    const sessions = JSON.parse((await cli('sessions', 'list', '--json')).stdout) as {
      sessions: Array<{ session_id: string }>;
    };
    const runs = JSON.parse((await cli('runs', 'list', '--json')).stdout) as {
      runs: Array<{ run_id: string }>;
    };
    const sessionId = sessions.sessions[0]?.session_id as string;
    const runId = runs.runs[0]?.run_id as string;
    const commands: string[][] = [
      ['sessions', 'list'],
      ['sessions', 'show', sessionId],
      ['runs', 'list'],
      ['runs', 'show', runId],
      ['runs', 'replay', runId],
      ['runs', 'tail', runId],
      ['episodes', 'query', '--scope', 'episodic-demo'],
      ['episodes', 'replay', sessionId, '--scope', 'episodic-demo'],
      [
        'episodes',
        'append',
        '--scope',
        'formats',
        '--session-id',
        's1',
        '--agent-id',
        'a',
        '--type',
        'ops.decision',
        '--summary',
        'checked',
      ],
      ['episodes', 'gc', '--scope', 'formats', '--dry-run'],
      ['patterns', 'search', '--scope', 'episodic-demo'],
      [
        'tasks',
        'create',
        '--scope',
        'formats',
        '--description',
        'Validate receipts',
        '--domain',
        'cli',
        '--task-type',
        'testing',
      ],
      ['doctor'],
      ['export', '--run-id', runId, '-o', join(home, 'one-run.jsonl')],
      ['export', '--run-id', runId, '--otel', join(home, 'one-run.otel.json')],
      ['import', join(home, 'one-run.jsonl'), '--dry-run'],
      ['import', 'claude-code', join(ROOT, 'fixtures', 'transcripts', 'claude-code'), '--dry-run'],
      ['import', 'codex', join(ROOT, 'fixtures', 'transcripts', 'codex'), '--dry-run'],
      ['import', 'openai', join(ROOT, 'fixtures', 'transcripts', 'openai'), '--dry-run'],
      // Errors: usage, validation, not found.
      ['runs', 'show', '00000000-0000-4000-8000-000000000000'],
      ['episodes', 'query'],
      ['import', 'codex', join(home, 'missing.jsonl')],
      ['sessions', 'nope'],
    ];
    const kinds = new Set<string>();
    for (const command of commands) {
      const result = await cli(...command, '--json');
      const lines = result.stdout.split('\n').filter((line) => line !== '');
      expect(lines, `${command.join(' ')}: ${result.stderr}`).toHaveLength(1);
      const receipt = JSON.parse(lines[0] as string) as { kind: string; ok: boolean };
      kinds.add(receipt.kind);
      if (receipt.ok) {
        const name = receipt.kind.replace(/^episodic\./, '').replace(/\.v1$/, '');
        expectValid(`cli/receipt.${name}.v1.json`, receipt, command.join(' '));
      } else {
        expectValid('cli/receipt.error.v1.json', receipt, command.join(' '));
      }
    }
    expect(kinds.size).toBeGreaterThan(15);
    // 23 CLI processes one after the other: slow on a busy 2-core machine, never a time limit.
  }, 180_000);
});

describe('format fixtures', () => {
  const formats = join(ROOT, 'fixtures', 'formats');

  it('run files', () => {
    for (const file of filesUnder(join(formats, 'run-file'), /\.jsonl$/))
      for (const [line, record] of jsonLines(file).entries())
        expectValid('core/run-record.v1.json', record, `${file} line ${line + 1}`);
  });

  it('session snapshots', () => {
    for (const file of filesUnder(join(formats, 'session-state'), /\.json$/))
      expectValidSnapshot(file);
  });

  it('export files', () => {
    for (const file of filesUnder(join(formats, 'export'), /\.jsonl$/))
      for (const [line, value] of jsonLines(file).entries())
        expectValid('cli/export-line.v3.json', value, `${file} line ${line + 1}`);
  });
});
