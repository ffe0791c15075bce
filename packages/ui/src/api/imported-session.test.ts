// An imported session as the interop importers write it (shapes only: a Codex-like transcript
// with a raw `turn_context`, a `turn.usage` row, encrypted reasoning and a multi-line tool output;
// runs with model responses and no `llm.request`): the timeline folds and labels what is not a
// message, and the model-inputs page says the import recorded no inputs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelInputs } from './model-inputs.js';
import { createRunStatusCache } from './run-status.js';
import { sessionTimeline } from './session-timeline.js';

const SESSION = '7cc09378-8ecb-42f5-971e-b0acea70bfd4';
const RUN = '7cc09378-8ecb-42f5-971e-b0acea70b001';
const TURN = RUN;
const TS = '2025-10-29T01:00:00.000Z';
const ENCRYPTED = 'gAAAAA'.repeat(100);

let root: string;
let stores: ReturnType<typeof createFsStore>;

const meta = (source: string) => ({ source, ts: TS, turnId: TURN });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'episodic-ui-import-'));
  stores = createFsStore({ root, durability: 'none' });
  const records: RunRecord[] = [
    {
      type: 'header',
      schema_version: 1,
      run_id: RUN,
      session_id: SESSION,
      started_at: TS,
      client: { name: 'episodic-import', version: '1' },
      model: { provider: 'openai', name: 'gpt-5-codex' },
      meta: { import: { format: 'codex', key: 'k' } },
    },
    { type: 'run.start', run_id: RUN, ts: TS, input: { type: 'text', text: 'Fix npm test' } },
    {
      type: 'llm.response',
      run_id: RUN,
      ts: TS,
      seq: 1,
      output: {
        messages: [],
        usage: { model: 'gpt-5-codex', input_tokens: 900, output_tokens: 40, total_tokens: 940 },
      },
    },
    { type: 'run.end', run_id: RUN, ts: '2025-10-29T01:00:05.000Z', outcome: 'completed' },
  ];
  await stores.runs.append(RUN, records);
  const episodes = [
    {
      id: 1,
      type: 'item',
      meta: meta('user'),
      payload: { item: { type: 'message', role: 'user', content: 'Fix npm test' } },
    },
    {
      id: 2,
      type: 'meta',
      meta: meta('runtime'),
      payload: {
        event: 'import.raw',
        data: { reason: 'turn_context', entry: { type: 'turn_context', payload: { cwd: '/x' } } },
      },
    },
    {
      id: 3,
      type: 'item',
      meta: meta('model'),
      payload: {
        item: {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'Look at the test' }],
          encrypted_content: ENCRYPTED,
        },
      },
    },
    {
      id: 4,
      type: 'item',
      meta: meta('tool'),
      payload: {
        item: {
          type: 'function_call_output',
          call_id: 'c1',
          output: JSON.stringify({ output: 'line one\nline two\n', metadata: { exit_code: 1 } }),
        },
      },
    },
    {
      id: 5,
      type: 'meta',
      meta: meta('runtime'),
      payload: { event: 'turn.usage', data: { inputTokens: 900, outputTokens: 40 } },
    },
    {
      id: 6,
      type: 'boundary',
      meta: meta('runtime'),
      payload: { reason: 'segment', title: 'part two' },
    },
  ];
  await stores.sessions.save({
    schema_version: 1,
    session_id: SESSION,
    updated_at: TS,
    run_id: RUN,
    messages: [],
    context: { import: { format: 'codex', key: 'k' } },
    revision: 1,
    episodes,
  } as never);
});

afterAll(async () => {
  await stores.close();
  rmSync(root, { recursive: true, force: true });
});

describe('an imported session', () => {
  it('labels encrypted reasoning, keeps multi-line output, folds raw and usage rows into the turn', async () => {
    const timeline = await sessionTimeline(
      { sessions: stores.sessions, runs: stores.runs, statuses: createRunStatusCache(stores.runs) },
      SESSION,
      {},
    );
    expect(timeline.imported_from).toBe('codex');
    const byId = new Map(timeline.episodes.map((episode) => [episode.id, episode]));
    expect(byId.get(2)).toMatchObject({
      kind: 'import.raw',
      fold: 'raw',
      text: 'turn_context (turn_context)',
      could_be_sent: false,
    });
    expect(byId.get(3)?.text).toBe('Look at the test\nencrypted reasoning (600 bytes)');
    expect(byId.get(3)?.text).not.toContain('gAAAA');
    expect(byId.get(4)).toMatchObject({
      text: 'exit 1\nline one\nline two\n',
      fold: null,
      could_be_sent: true,
    });
    expect(byId.get(5)).toMatchObject({ fold: 'usage', could_be_sent: false });
    // A segment boundary is never sent: no "why" question for it.
    expect(byId.get(6)).toMatchObject({ fold: null, could_be_sent: false });
    expect(timeline.turns).toHaveLength(1);
    expect(timeline.turns[0]?.usage).toEqual({ input_tokens: 900, output_tokens: 40, records: 1 });
  });

  it('says on the model-inputs page that the import recorded no model input', async () => {
    const inputs = await modelInputs(stores, RUN, {});
    expect(inputs).toMatchObject({ inputs: [], model_responses: 1, imported_from: 'codex' });
  });
});
