import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  exportOtelReceiptSchema,
  importClaudeCodeReceiptSchema,
  importCodexReceiptSchema,
  importOpenAIReceiptSchema,
  runsShowReceiptSchema,
  sessionsShowReceiptSchema,
} from '../src/receipts/index.js';
import {
  episodic,
  episodicJson,
  expectError,
  temporaryDirectory,
  temporaryHome,
} from './helpers.js';

// The importers and the OpenTelemetry export through the built binary, against real stores.

const TRANSCRIPTS = fileURLToPath(new URL('../../../fixtures/transcripts/', import.meta.url));
const CLAUDE = join(TRANSCRIPTS, 'claude-code');
const CODEX = join(
  TRANSCRIPTS,
  'codex',
  'rollout-2025-10-29T00-59-38-0199a2f4-6b1c-7d22-9e31-4c5a6b7c8d9e.jsonl',
);

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number; message?: string };
}

/** The spans of an OTLP JSON traces document (ExportTraceServiceRequest). */
function spansOf(path: string): OtlpSpan[] {
  const document = JSON.parse(readFileSync(path, 'utf8')) as {
    resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
  };
  return document.resourceSpans.flatMap((resource) =>
    resource.scopeSpans.flatMap((scope) => scope.spans),
  );
}

/** An attribute's value as JSON has it (`stringValue`, `intValue` as a string, `arrayValue`…). */
function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  if (value === undefined) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('arrayValue' in value)
    return ((value.arrayValue as { values?: Array<{ stringValue: string }> }).values ?? []).map(
      (item) => item.stringValue,
    );
  return Object.values(value)[0];
}

describe.each(['sqlite', 'fs'] as const)('import claude-code (%s store)', (store) => {
  it('imports a projects folder, and a second import changes nothing', async () => {
    const home = temporaryHome();
    const importArgs = [
      'import',
      'claude-code',
      CLAUDE,
      '--home',
      home,
      '--store',
      store,
      '--scope',
      'Acme API',
    ];
    const first = await episodicJson(importArgs);
    expect(first.status, first.stderr).toBe(0);
    const receipt = importClaudeCodeReceiptSchema.parse(first.receipt);
    expect(receipt).toMatchObject({
      format: 'claude-code',
      files: 1,
      scope: 'acme-api',
      totals: { conversations: 2, sessions: { created: 2 }, runs: { created: 4 } },
      problems_total: 1,
      problems: [{ line: 26, message: expect.stringMatching(/^not valid JSON/) }],
    });
    const [main] = receipt.conversations;
    expect(main?.title).toBe('Fix flaky order total test');

    const again = importClaudeCodeReceiptSchema.parse((await episodicJson(importArgs)).receipt);
    expect(again.totals).toEqual({
      conversations: 2,
      sessions: { created: 0, updated: 0, unchanged: 2, conflict: 0 },
      runs: { created: 0, extended: 0, unchanged: 4, conflicts: 0 },
      records_written: 0,
      events: { appended: 0, unchanged: receipt.totals.events.appended },
    });

    // What was imported reads back through the ordinary commands.
    const session = sessionsShowReceiptSchema.parse(
      (
        await episodicJson([
          'sessions',
          'show',
          main?.session_id as string,
          '--home',
          home,
          '--store',
          store,
        ])
      ).receipt,
    );
    expect(JSON.stringify(session)).toContain('orders total');
    const runs = await episodicJson([
      'runs',
      'list',
      '--session-id',
      main?.session_id as string,
      '--home',
      home,
      '--store',
      store,
    ]);
    const runIds = (runs.receipt.runs as Array<{ run_id: string }>).map((run) => run.run_id);
    expect(runIds).toHaveLength(3);
    const shown = runsShowReceiptSchema.parse(
      (await episodicJson(['runs', 'show', runIds[0] as string, '--home', home, '--store', store]))
        .receipt,
    );
    expect(shown.records.length).toBeGreaterThan(3);
    const events = await episodicJson([
      'episodes',
      'query',
      '--scope',
      'acme-api',
      '--session-id',
      main?.session_id as string,
      '--home',
      home,
    ]);
    expect(events.receipt.count).toBe(main?.events.appended);
    if (store === 'fs')
      expect(readdirSync(join(home, 'sessions', '2025', '06', '02'))).toHaveLength(4);
  });
});

describe('import codex and openai', () => {
  it('imports a rollout file and reports its damaged line', async () => {
    const home = temporaryHome();
    const result = await episodicJson(['import', 'codex', CODEX, '--home', home, '--no-ledger']);
    expect(result.status, result.stderr).toBe(0);
    expect(importCodexReceiptSchema.parse(result.receipt)).toMatchObject({
      scope: null,
      totals: { conversations: 1, runs: { created: 2 }, events: { appended: 0 } },
      problems: [{ line: 14 }],
    });
  });

  it('reads OpenAI messages from stdin, with --time for entries without one', async () => {
    const home = temporaryHome();
    const input = readFileSync(join(TRANSCRIPTS, 'openai', 'chat-messages.json'), 'utf8');
    const result = await episodicJson(
      ['import', 'openai', '-', '--home', home, '--time', '2025-03-01'],
      {
        input,
      },
    );
    const receipt = importOpenAIReceiptSchema.parse(result.receipt);
    expect(receipt).toMatchObject({
      input: '-',
      totals: { conversations: 1, runs: { created: 2 } },
    });
    const show = await episodicJson([
      'sessions',
      'show',
      receipt.conversations[0]?.session_id as string,
      '--home',
      home,
    ]);
    expect(JSON.stringify(show.receipt)).toContain('2025-03-01T00:00:00.000Z');
    // The same content from a file is the same session.
    const file = join(temporaryDirectory(), 'chat.json');
    writeFileSync(file, input);
    const again = importOpenAIReceiptSchema.parse(
      (await episodicJson(['import', 'openai', file, '--home', home, '--time', '2025-03-01']))
        .receipt,
    );
    expect(again.totals.sessions).toMatchObject({ created: 0, unchanged: 1 });
  });

  it('plans without writing in a dry run, and prints a summary for people', async () => {
    const home = temporaryHome();
    const dry = await episodic(['import', 'codex', CODEX, '--home', home, '--dry-run']);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(/Dry run, would import 1 conversation from 1 file: 1 session new/);
    expect(dry.stdout).toMatch(/skipped: .* line 14: not valid JSON/);
    // Read-only: no home, no database is created.
    expect(existsSync(home)).toBe(false);
    expect((await episodicJson(['sessions', 'list', '--home', home])).receipt.sessions).toEqual([]);
  });

  it('answers bad command lines with usage errors and changes nothing', async () => {
    const home = temporaryHome();
    expect(
      expectError(await episodicJson(['import', 'codex', '--home', home]), 2, 'USAGE_ERROR'),
    ).toMatch(/Missing PATH/);
    expect(
      expectError(
        await episodicJson(['import', 'codex', join(TRANSCRIPTS, 'nope.jsonl'), '--home', home]),
        2,
        'VALIDATION_ERROR',
      ),
    ).toMatch(/No file or folder at/);
    expect(
      expectError(
        await episodicJson(['import', 'openai', CODEX, '--home', home, '--allow', 'passwords']),
        2,
        'VALIDATION_ERROR',
      ),
    ).toMatch(/--allow "passwords": use pii, secret, tool_output/);
    expect(
      expectError(
        await episodicJson([
          'import',
          'openai',
          CODEX,
          '--home',
          home,
          '--no-ledger',
          '--scope',
          'x',
        ]),
        2,
        'USAGE_ERROR',
      ),
    ).toMatch(/--no-ledger/);
    // An Episodic export is still imported by `import FILE`; a transcript is not one.
    expect(
      expectError(await episodicJson(['import', CODEX, '--home', home]), 2, 'VALIDATION_ERROR'),
    ).toMatch(/^Invalid export, line 14/);
  });

  it('documents the formats in help', async () => {
    expect((await episodic(['import', '--help'])).stdout).toMatch(
      /episodic import claude-code PATH/,
    );
    expect((await episodic(['help', 'import', 'codex'])).stdout).toMatch(
      /Usage:.*episodic import codex PATH/,
    );
    expect((await episodic(['--help'])).stdout).toMatch(/import \[claude-code\|codex\|openai\]/);
  });
});

describe('export --otel', () => {
  async function seeded(): Promise<{ home: string; sessionId: string }> {
    const home = temporaryHome();
    const receipt = importClaudeCodeReceiptSchema.parse(
      (await episodicJson(['import', 'claude-code', CLAUDE, '--home', home, '--no-ledger']))
        .receipt,
    );
    return { home, sessionId: receipt.conversations[0]?.session_id as string };
  }

  it('writes OTLP JSON: an invoke_agent span per run with its chat and execute_tool spans under it', async () => {
    const { home, sessionId } = await seeded();
    const file = join(temporaryDirectory(), 'traces.json');
    const result = await episodicJson([
      'export',
      '--session-id',
      sessionId,
      '--otel',
      file,
      '--home',
      home,
    ]);
    expect(result.status, result.stderr).toBe(0);
    const receipt = exportOtelReceiptSchema.parse(result.receipt);
    expect(receipt).toMatchObject({
      format: 'otlp-json',
      runs: 3,
      content: false,
      spans: { invoke_agent: 3, chat: 5, execute_tool: 4 },
    });

    const spans = spansOf(file);
    expect(spans).toHaveLength(receipt.spans.total);
    const agents = spans.filter(
      (span) => attribute(span, 'gen_ai.operation.name') === 'invoke_agent',
    );
    expect(agents).toHaveLength(3);
    for (const agent of agents) {
      expect(agent.parentSpanId ?? '').toBe('');
      expect(attribute(agent, 'gen_ai.conversation.id')).toBe(sessionId);
      expect(agent.name).toBe('invoke_agent claude-code');
    }
    const byId = new Map(agents.map((agent) => [agent.spanId, agent]));
    for (const span of spans.filter((candidate) => !agents.includes(candidate))) {
      const parent = byId.get(span.parentSpanId ?? '');
      expect(parent, span.name).toBeDefined();
      expect(span.traceId).toBe(parent?.traceId);
      expect(BigInt(span.startTimeUnixNano) >= BigInt(parent?.startTimeUnixNano ?? '0')).toBe(true);
    }
    const chat = spans.find(
      (span) =>
        span.name === 'chat claude-sonnet-4-20250514' &&
        attribute(span, 'gen_ai.usage.output_tokens') === 96,
    );
    expect(chat).toBeDefined();
    expect(chat?.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(attribute(chat as OtlpSpan, 'gen_ai.usage.input_tokens')).toBe(13484);
    expect(attribute(chat as OtlpSpan, 'gen_ai.response.finish_reasons')).toEqual(['tool_use']);
    expect(attribute(chat as OtlpSpan, 'gen_ai.provider.name')).toBe('anthropic');
    const failed = spans.find((span) => attribute(span, 'gen_ai.tool.call.id') === 'toolu_01A6');
    expect(attribute(failed as OtlpSpan, 'gen_ai.tool.name')).toBe('Edit');
    expect(failed?.status).toMatchObject({ code: 2 });
    expect(
      spans.some((span) =>
        span.attributes.some((entry) => /messages|call\.arguments|call\.result/.test(entry.key)),
      ),
    ).toBe(false);

    // The same runs export to the same bytes (ids are derived, times come from the records).
    const second = join(temporaryDirectory(), 'traces.json');
    const again = exportOtelReceiptSchema.parse(
      (await episodicJson(['export', '--session-id', sessionId, '--otel', second, '--home', home]))
        .receipt,
    );
    expect(again.sha256).toBe(receipt.sha256);
  });

  it('records content only with --otel-content, and writes to stdout with -', async () => {
    const { home, sessionId } = await seeded();
    const result = await episodic([
      'export',
      '--session-id',
      sessionId,
      '--otel',
      '-',
      '--otel-content',
      '--home',
      home,
    ]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /^Exported 3 runs as 12 spans \(5 chat, 4 execute_tool\) with content/,
    );
    const file = join(temporaryDirectory(), 'stdout.json');
    writeFileSync(file, result.stdout);
    const tool = spansOf(file).find(
      (span) => attribute(span, 'gen_ai.tool.call.id') === 'toolu_01A1',
    );
    expect(attribute(tool as OtlpSpan, 'gen_ai.tool.call.result')).toMatch(/orders\.test\.ts/);
  });

  it('refuses options that do not go with --otel', async () => {
    const home = temporaryHome();
    expect(
      expectError(
        await episodicJson(['export', '--all', '--otel', 'x.json', '--scope', 's', '--home', home]),
        2,
        'USAGE_ERROR',
      ),
    ).toMatch(/leave out --scope/);
    expect(
      expectError(
        await episodicJson(['export', '--all', '--otel-content', '-o', 'x', '--home', home]),
        2,
        'USAGE_ERROR',
      ),
    ).toMatch(/go with --otel/);
    expect(
      expectError(
        await episodicJson(['export', '--all', '--otel', '-', '--home', home]),
        2,
        'USAGE_ERROR',
      ),
    ).toMatch(/--json prints a receipt/);
  });
});
