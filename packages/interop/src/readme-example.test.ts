// What the README shows, asserted on the repository's fixture transcript (the README's own blocks run as pasted in scripts/readme-examples.mjs).
import { readFileSync } from 'node:fs';
import {
  createMemoryLedger,
  createMemoryRunStore,
  createMemorySessionStore,
  createRunRecorder,
} from '@episodic/core';
import { trace } from '@opentelemetry/api';
import { expect, it } from 'vitest';
import { TRANSCRIPTS } from './__fixtures__/read-fixture.js';
import { importClaudeCode, recordRunSpans, saveImport } from './index.js';

it('imports a Claude Code session twice as the README shows', async () => {
  const text = readFileSync(new URL('claude-code/session.jsonl', TRANSCRIPTS), 'utf8');
  const { conversations, problems } = importClaudeCode(text, { label: 'session.jsonl' });
  expect(problems).toEqual([
    {
      source: 'session.jsonl',
      line: 26,
      message: expect.stringMatching(/^not valid JSON \(.*; skipped$/),
    },
  ]);

  const stores = {
    sessions: createMemorySessionStore(),
    runs: createMemoryRunStore(),
    ledger: createMemoryLedger(),
  };
  const receipt = await saveImport(stores, conversations, { scope: 'acme-api' });
  expect(receipt.conversations[0]).toMatchObject({
    session: 'created',
    runs: { created: 3 },
    records_written: 36,
    events: { appended: 15 },
  });
  const again = await saveImport(stores, importClaudeCode(text).conversations, {
    scope: 'acme-api',
  });
  expect(again.conversations[0]).toMatchObject({
    session: 'unchanged',
    runs: { created: 0, extended: 0, unchanged: 3 },
    events: { appended: 0, unchanged: 15 },
  });
});

it('records a run as spans as the README shows', async () => {
  const store = createMemoryRunStore();
  const recorder = createRunRecorder({ store });
  await recorder.start('What is in the invoice?');
  await recorder.complete({ final: 'Four widgets.' });

  const summary = recordRunSpans([(await store.read(recorder.runId)).records], {
    tracer: trace.getTracer('my-agent'),
    includeContent: false,
  });
  expect(summary).toEqual({
    runs: 1,
    spans: { invoke_agent: 1, chat: 0, execute_tool: 0 },
    skipped: [],
  });
});
