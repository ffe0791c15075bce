// The README's example, run as written (with a temporary root).
import { createRunRecorder, replayRun } from '@episodic/core';
import { expect, it } from 'vitest';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore } from './index.js';

it('records a run and reads it back as the README shows', async () => {
  const directory = temporaryDirectory();
  try {
    const store = createFsStore({ root: directory.path, durability: 'run' });
    const recorder = createRunRecorder({ store: store.runs, runtime: { cwd: process.cwd() } });

    await recorder.start('list files');
    const seq = await recorder.llmRequest({ messages: [{ role: 'user', content: 'list files' }] });
    await recorder.llmResponse({
      seq,
      messages: [{ role: 'assistant', content: 'AGENTS.md, packages' }],
    });
    await recorder.toolOutput({
      tool: 'exec_command',
      toolCallId: 'call_1',
      resultRaw: 'AGENTS.md\npackages\n',
    });
    await recorder.agentEvent({ type: 'final', content: 'AGENTS.md, packages' });
    await recorder.complete({ final: 'AGENTS.md, packages' });

    const run = await store.runs.read(recorder.runId);
    const { events } = replayRun(run.records);
    const last = await store.runs.tail(recorder.runId, { count: 20 });
    const { runs } = await store.runs.list({ sessionId: recorder.sessionId });
    expect(await store.readToolOutput('call_1')).toBe('AGENTS.md\npackages\n');
    await store.close();

    expect(run).toMatchObject({ bestEffort: false, ended: true, errors: [] });
    expect(run.records.map((record) => record.type)).toEqual([
      'header',
      'run.start',
      'run.status',
      'llm.request',
      'llm.response',
      'tool.output',
      'agent.event',
      'run.status',
      'run.end',
    ]);
    expect(events.map((event) => event.kind)).toEqual(['user_message', 'agent_event']);
    expect(last.records).toEqual(run.records);
    expect(runs.map((summary) => summary.runId)).toEqual([recorder.runId]);
  } finally {
    directory.remove();
  }
});
