import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FunctionCallItem } from '@episodic/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleWorkspace, INVOICE_PATH, LONG_LOG_PATH } from '../sample-workspace.js';
import { runTool, TOOL_DEFINITIONS } from './workspace-tools.js';

let base: string;
let root: string;
const signal = new AbortController().signal;
const call = (name: string, args: unknown): FunctionCallItem => ({
  type: 'function_call',
  call_id: 'call_test',
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'episodic-demo-tools-'));
  root = join(base, 'workspace');
  await createSampleWorkspace(root);
  writeFileSync(join(base, 'outside.txt'), 'secret outside the workspace');
  symlinkSync(join(base, 'outside.txt'), join(root, 'escape.txt'));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('the workspace tools', () => {
  it('lists, reads and searches the sample workspace', async () => {
    const listing = await runTool(root, call('list_files', {}), signal);
    expect(listing.output).toContain(`${LONG_LOG_PATH}  `);
    const invoice = await runTool(root, call('read_file', { path: INVOICE_PATH }), signal);
    expect(invoice).toEqual({
      output: expect.stringContaining('Widget A,4,12.50'),
      isError: false,
    });
    const log = await runTool(root, call('read_file', { path: LONG_LOG_PATH }), signal);
    expect(log.output.length).toBeGreaterThan(8_000);
    const search = await runTool(
      root,
      call('search_files', { pattern: 'error', path: LONG_LOG_PATH }),
      signal,
    );
    expect(search.output.split('\n')[0]).toBe('3 lines contain "error":');
  });

  it('puts the log errors in the middle, where a truncated view leaves them out', async () => {
    const { output } = await runTool(root, call('read_file', { path: LONG_LOG_PATH }), signal);
    const shown = output.slice(0, 4_000) + output.slice(-4_000);
    expect(output.match(/ERROR/g)).toHaveLength(3);
    expect(shown).not.toContain('ERROR');
  });

  it.each([
    ['../outside.txt', 'is outside the workspace'],
    ['/etc/passwd', 'is absolute'],
    ['escape.txt', 'is outside the workspace'],
    ['missing.md', 'does not exist in the workspace'],
    ['src', 'is a folder: use list_files'],
  ])('refuses to read %s', async (path, message) => {
    const result = await runTool(root, call('read_file', { path }), signal);
    expect(result.isError).toBe(true);
    expect(result.output).toContain(message);
  });

  it('reports bad arguments and unknown tools to the model instead of failing the turn', async () => {
    expect(await runTool(root, call('read_file', '{not json'), signal)).toMatchObject({
      isError: true,
      output: expect.stringContaining('not JSON'),
    });
    expect(await runTool(root, call('read_file', {}), signal)).toMatchObject({
      isError: true,
      output: expect.stringContaining('"path" is required'),
    });
    expect(await runTool(root, call('calculator', { expression: '1/0' }), signal)).toMatchObject({
      isError: true,
      output: expect.stringContaining('division by zero'),
    });
    expect(await runTool(root, call('rm_rf', {}), signal)).toMatchObject({
      isError: true,
      output: expect.stringContaining('no tool named "rm_rf"'),
    });
    expect(TOOL_DEFINITIONS.map((tool) => tool.name)).toEqual([
      'list_files',
      'read_file',
      'search_files',
      'calculator',
      'scan_workspace',
    ]);
  });

  it('stops the slow scan when the turn is interrupted', async () => {
    const controller = new AbortController();
    const running = runTool(root, call('scan_workspace', {}), controller.signal);
    controller.abort(new Error('interrupted by the test'));
    await expect(running).rejects.toThrow('interrupted by the test');
  });
});
