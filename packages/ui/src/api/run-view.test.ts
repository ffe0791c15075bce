import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, LONG_OUTPUT, type UiHome } from '../__fixtures__/ui-home.js';
import { createStoreAccess, type StoreAccess } from '../stores/ui-stores.js';
import { LONG_OUTPUT_CHARS } from './run-records.js';
import { runRecord, runView, toolOutput } from './run-view.js';

let home: UiHome;
let access: StoreAccess;

beforeAll(async () => {
  home = await createUiHome();
  access = createStoreAccess(home.stores);
});
afterAll(() => home.close());

describe('GET /api/runs/:id', () => {
  it('pairs each tool call with its output and says how long it took', async () => {
    const run = await runView(home.stores.runs, home.ids.toolRunId, {});
    expect(run.tool_calls.map((call) => [call.call_id, call.tool, call.is_error])).toEqual([
      ['call_1', 'read_log', false],
      ['call_2', 'search', true],
    ]);
    const [read] = run.tool_calls;
    expect(read?.arguments).toBe('{"path":"app.log"}');
    expect(read?.output_chars).toBe(LONG_OUTPUT.length);
    expect(read?.cache_id).toBe('call_1');
    const call = run.records[read?.call_index as number];
    const output = run.records[read?.output_index as number];
    expect(call?.call).toMatchObject({ id: 'call_1', partner_index: read?.output_index });
    expect(output?.call).toMatchObject({ id: 'call_1', partner_index: read?.call_index });
  });

  it('collapses a long output to its head and tail, and keeps a short one whole', async () => {
    const run = await runView(home.stores.runs, home.ids.toolRunId, {});
    const outputs = run.records.filter((record) => record.type === 'tool.output');
    expect(LONG_OUTPUT.length).toBeGreaterThan(LONG_OUTPUT_CHARS);
    expect(outputs[0]?.output).toMatchObject({ collapsed: true, chars: LONG_OUTPUT.length });
    expect(LONG_OUTPUT.startsWith(outputs[0]?.output?.head ?? '?')).toBe(true);
    expect(LONG_OUTPUT.endsWith(outputs[0]?.output?.tail ?? '?')).toBe(true);
    expect(outputs[1]?.output).toEqual({
      chars: 13,
      head: 'no such index',
      tail: '',
      collapsed: false,
    });
  });

  it('marks errors: a failed tool output, run.error and an error outcome', async () => {
    const tool = await runView(home.stores.runs, home.ids.toolRunId, {});
    expect(tool.records.filter((record) => record.error).map((record) => record.type)).toEqual([
      'tool.output',
    ]);
    const failed = await runView(home.stores.runs, home.ids.failedRunId, {});
    expect(failed.status).toBe('failed');
    expect(failed.records.filter((record) => record.error).map((record) => record.type)).toEqual([
      'run.error',
      'run.end',
    ]);
    expect(failed.records.find((record) => record.type === 'run.error')?.summary).toBe(
      'ProviderError: HTTP 503 from the provider',
    );
  });

  it('pages records and serves one record whole', async () => {
    const first = await runView(home.stores.runs, home.ids.toolRunId, { limit: '3' });
    expect(first.records.map((record) => record.index)).toEqual([0, 1, 2]);
    expect(first.next_from).toBe(3);
    const rest = await runView(home.stores.runs, home.ids.toolRunId, { from: '3' });
    expect(rest.records[0]?.index).toBe(3);
    expect(rest.next_from).toBeNull();
    const { record } = await runRecord(home.stores.runs, home.ids.toolRunId, '0');
    expect(record).toMatchObject({ type: 'header', run_id: home.ids.toolRunId });
    await expect(runRecord(home.stores.runs, home.ids.toolRunId, '999')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('reads the full output from the tool-output cache, else from the record', async () => {
    const cached = await toolOutput(
      { runs: home.stores.runs, access },
      home.ids.toolRunId,
      'call_1',
    );
    expect(cached).toEqual({ call_id: 'call_1', source: 'cache', text: LONG_OUTPUT });
    const inline = await toolOutput(
      { runs: home.stores.runs, access },
      home.ids.toolRunId,
      'call_2',
    );
    expect(inline).toEqual({ call_id: 'call_2', source: 'record', text: 'no such index' });
    await expect(
      toolOutput({ runs: home.stores.runs, access }, home.ids.toolRunId, 'call_404'),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('knows a task episode, and refuses ids that are not run ids', async () => {
    expect((await runView(home.stores.runs, home.ids.taskId, {})).task).toBe(true);
    expect((await runView(home.stores.runs, home.ids.toolRunId, {})).task).toBe(false);
    await expect(runView(home.stores.runs, '../../etc/passwd', {})).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    const missing = runView(home.stores.runs, '00000000-0000-4000-8000-999999999999', {});
    await expect(missing).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // A read-only page never suggests writing (appending a header) to fix a wrong id.
    await expect(missing).rejects.toThrow(
      /^Run 00000000-0000-4000-8000-999999999999 does not exist\. Check the id \(list runs to see the ones stored\)\.$/,
    );
    await expect(runView(home.stores.runs, 'nope', {})).rejects.toThrow(
      /run id "nope" is not a UUID or the start of one\. A run id is a UUID such as/,
    );
  });

  it('opens a run from the first characters of its id, as the address bar may hold them', async () => {
    const prefix = home.ids.taskId.slice(0, 8).toUpperCase();
    expect((await runView(home.stores.runs, prefix, {})).run_id).toBe(home.ids.taskId);
    expect((await runRecord(home.stores.runs, prefix, '0')).index).toBe(0);
    // The fixture's other runs all start with 00000000: the page names them and asks for more.
    await expect(runView(home.stores.runs, '00000000', {})).rejects.toThrow(
      `"00000000" is the start of 5 run ids: ${home.ids.toolRunId}, `,
    );
    await expect(runView(home.stores.runs, 'abc', {})).rejects.toThrow(/too short/);
  });
});
