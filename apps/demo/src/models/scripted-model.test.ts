import { type InputItem, truncateToolOutput } from '@episodic/core';
import { describe, expect, it } from 'vitest';
import { createScriptedModel, decideStep, summarizeItems } from './scripted-model.js';

const user = (content: string): InputItem => ({ type: 'message', role: 'user', content });
const assistant = (content: string): InputItem => ({ type: 'message', role: 'assistant', content });
const call = (id: string, name: string, args: Record<string, unknown> = {}): InputItem => ({
  type: 'function_call',
  call_id: id,
  name,
  arguments: JSON.stringify(args),
});
const output = (id: string, text: string): InputItem => ({
  type: 'function_call_output',
  call_id: id,
  output: text,
});

describe('the built-in model', () => {
  it('lists the files, then answers from the listing', () => {
    expect(decideStep([user('What files are in the workspace?')])).toEqual({
      call: { name: 'list_files', args: {} },
    });
    expect(
      decideStep([
        user('What files are in the workspace?'),
        call('c1', 'list_files'),
        output('c1', 'a.md  3 bytes\nb/c.log  9 bytes'),
      ]),
    ).toEqual({ answer: 'The workspace has 2 files: a.md, b/c.log.' });
  });

  it('adds up the invoice with the calculator, never by itself', () => {
    const csv = 'item,quantity,unit_price\nA,4,12.50\nB,2,7.25\n';
    const steps = [
      user('What does the invoice add up to?'),
      call('c1', 'read_file', { path: 'invoice.csv' }),
      output('c1', csv),
    ];
    expect(decideStep(steps)).toEqual({
      call: { name: 'calculator', args: { expression: '4*12.50 + 2*7.25' } },
    });
    const answered = decideStep([
      ...steps,
      call('c2', 'calculator', { expression: '4*12.50 + 2*7.25' }),
      output('c2', '64.5'),
    ]);
    expect(answered).toEqual({ answer: 'The invoice adds up to 64.50 (4*12.50 + 2*7.25).' });
  });

  it('searches a log it only saw truncated, then reports what the search found', () => {
    const log = `${'x'.repeat(5_000)}\nERROR boom\n${'y'.repeat(5_000)}`;
    const truncated = truncateToolOutput(log).text;
    const steps = [
      user('Check whether logs/server.log has errors.'),
      call('c1', 'read_file', { path: 'logs/server.log' }),
      output('c1', truncated),
    ];
    expect(decideStep(steps)).toEqual({
      call: { name: 'search_files', args: { pattern: 'ERROR', path: 'logs/server.log' } },
    });
    const searched = decideStep([
      ...steps,
      call('c2', 'search_files'),
      output('c2', '1 line contains "ERROR":\nlogs/server.log:2: ERROR boom'),
    ]);
    expect(searched).toEqual({
      answer: `My view of logs/server.log left out ${(log.length - 8_000).toLocaleString('en-US')} characters in the middle, so I searched the whole file. 1 line contains "ERROR": ERROR boom.`,
    });
  });

  it('reads every file one call at a time and skips the long ones', () => {
    const listing = 'a.md  10 bytes\nbig.log  20000 bytes\nc.md  5 bytes';
    const steps: InputItem[] = [
      user('Read every file, one by one.'),
      call('c1', 'list_files'),
      output('c1', listing),
    ];
    expect(decideStep(steps)).toEqual({ call: { name: 'read_file', args: { path: 'a.md' } } });
    steps.push(call('c2', 'read_file', { path: 'a.md' }), output('c2', '# A'));
    expect(decideStep(steps)).toEqual({ call: { name: 'read_file', args: { path: 'c.md' } } });
    steps.push(call('c3', 'read_file', { path: 'c.md' }), output('c3', 'C'));
    expect(decideStep(steps)).toEqual({
      answer: 'I read a.md (A); c.md (C). I skipped big.log: too long to read whole.',
    });
  });

  it('recalls the invoice total from a checkpoint summary, and says when it does not know', () => {
    const summary = user(
      '<checkpoint>\nSummary of episodes 1–9:\n- Asked "x": answered "The invoice adds up to 367.90 (…)."\n</checkpoint>',
    );
    expect(decideStep([summary, user('What was the invoice total again?')])).toEqual({
      answer: 'From earlier in this conversation: the invoice adds up to 367.90.',
    });
    expect(decideStep([user('What was the invoice total again?')])).toEqual({
      answer: 'I have not added up the invoice yet in this conversation; ask me to and I will.',
    });
  });

  it('answers a tool error instead of retrying, and explains itself for anything else', () => {
    expect(
      decideStep([
        user('read nope.md'),
        call('c1', 'read_file', { path: 'nope.md' }),
        output('c1', 'Error from read_file: nope'),
      ]),
    ).toEqual({
      answer: 'I could not finish: read_file reported "Error from read_file: nope".',
    });
    const help = decideStep([user('Tell me a joke')]);
    expect('answer' in help && help.answer).toMatch(/^I am the built-in demo model/);
  });

  it('never reads an interrupt notice or a summary as the request', () => {
    const items = [
      user('What files are in the workspace?'),
      user('<interrupt>\nstopped\n</interrupt>'),
    ];
    expect(decideStep(items)).toEqual({ call: { name: 'list_files', args: {} } });
  });

  it('reports usage from what it was sent, and call ids unique per turn and round', async () => {
    const model = createScriptedModel();
    const signal = new AbortController().signal;
    const request = {
      items: [user('list the files')],
      tools: [],
      system: 'sys',
      turnId: '0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e',
      round: 2,
      signal,
    };
    const response = await model.respond(request);
    expect(response.stopReason).toBe('tool_use');
    expect(response.output[0]).toMatchObject({
      type: 'function_call',
      call_id: 'call_0b7d9c1e2f3a_2',
    });
    expect(response.usage.inputTokens).toBeGreaterThan(0);
    const aborted = new AbortController();
    aborted.abort(new Error('stop'));
    await expect(model.respond({ ...request, signal: aborted.signal })).rejects.toThrow('stop');
  });

  it('summarizes requests with their answers, keeps interrupts and carries the previous summary', () => {
    const text = summarizeItems(
      [
        user(
          '<checkpoint>\nSummary of episodes 1–3:\n- Asked "first": answered "one"\n</checkpoint>',
        ),
        user('second'),
        call('c1', 'list_files'),
        output('c1', 'a'),
        assistant('two'),
        user('<interrupt>\nThe user pressed Ctrl-C.\n</interrupt>'),
        user('third'),
      ],
      { fromId: 4, toId: 9 },
    );
    expect(text).toBe(
      [
        'Summary of episodes 4–9:',
        '- Asked "first": answered "one"',
        '- Asked "second" [tools: list_files]: answered "two"',
        '- Interrupted: The user pressed Ctrl-C.',
        '- Asked "third": no answer (the turn stopped before answering)',
      ].join('\n'),
    );
  });
});
