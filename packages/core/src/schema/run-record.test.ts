import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { utf8ByteLength } from '../util/utf8.js';
import {
  checkRunRecord,
  countLines,
  isCustomRunRecordType,
  isKnownRunRecordType,
  isRunRecordOfType,
  isSupportedRunSchemaVersion,
  nearKnownRunRecordType,
  parseRunRecordLine,
  RUN_RECORD_TYPES,
  type RunRecord,
  runRecordSchemas,
  toolOutputCacheId,
  toolOutputRefFor,
} from './run-record.js';

/** Seed 001 §7, verbatim. */
const SEED_EXAMPLE = `{"type":"header","schema_version":1,"run_id":"8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a","started_at":"2026-02-03T12:00:00.123Z","client":{"name":"tui","version":"0.1.0"},"server":{"name":"runtime","version":"0.1.0"},"model":{"provider":"openai","name":"gpt-4.1-mini","reasoning":"medium"},"prompts":{"system":"You are a coding assistant."}}
{"type":"run.start","run_id":"8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a","ts":"2026-02-03T12:00:00.456Z","input":{"type":"text","text":"list files"},"ui_context":{"cwd":"/home/kousw/cospace/codelia"}}
{"type":"llm.request","run_id":"8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a","ts":"2026-02-03T12:00:01.000Z","seq":1,"model":{"provider":"openai","name":"gpt-4.1-mini"},"input":{"messages":[{"role":"system","content":"You are a coding assistant.","message_ts":"2026-02-03T12:00:00.123Z"},{"role":"user","content":"list files","message_ts":"2026-02-03T12:00:00.456Z"}],"tools":[{"type":"function","function":{"name":"exec_command","description":"Runs a command in a PTY.","parameters":{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}}}],"tool_choice":null,"model":"gpt-4.1-mini"}}
{"type":"llm.response","run_id":"8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a","ts":"2026-02-03T12:00:02.100Z","seq":1,"output":{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"exec_command","arguments":"{\\"cmd\\":\\"ls\\"}"}}]}],"usage":{"model":"gpt-4.1-mini","input_tokens":120,"output_tokens":15,"total_tokens":135},"stop_reason":"tool_use"}}
{"type":"agent.event","run_id":"8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a","ts":"2026-02-03T12:00:02.150Z","seq":0,"event":{"type":"tool_call","tool":"exec_command","args":{"cmd":"ls"},"tool_call_id":"call_1"}}
{"type":"tool.output","run_id":"8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a","ts":"2026-02-03T12:00:02.600Z","tool":"exec_command","tool_call_id":"call_1","result_raw":"AGENTS.md\\nRULES.md\\npackages\\n","output_ref":{"id":"call_1","byte_size":33,"line_count":3}}
{"type":"agent.event","run_id":"8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a","ts":"2026-02-03T12:00:02.700Z","seq":1,"event":{"type":"final","content":"Here are the files: AGENTS.md, RULES.md, packages."}}
{"type":"run.status","run_id":"8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a","ts":"2026-02-03T12:00:02.750Z","status":"completed"}
{"type":"run.end","run_id":"8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a","ts":"2026-02-03T12:00:02.800Z","outcome":"completed","final":"Here are the files: AGENTS.md, RULES.md, packages."}`;

const base = { run_id: 'r', ts: '2026-02-03T12:00:00.000Z' };

describe('run record schemas', () => {
  it('accept every line of the seed 001 example as a known record, unchanged', () => {
    const lines = SEED_EXAMPLE.split('\n');
    expect(lines).toHaveLength(9);
    for (const line of lines) {
      const checked = parseRunRecordLine(line);
      expect(checked, line).toMatchObject({ success: true, known: true });
      if (checked.success) expect(checked.record).toEqual(JSON.parse(line));
    }
  });

  it('define a schema for each of the ten seed 001 types', () => {
    expect(RUN_RECORD_TYPES).toHaveLength(10);
    for (const type of RUN_RECORD_TYPES) {
      expect(isKnownRunRecordType(type)).toBe(true);
      expect(runRecordSchemas[type]).toBeDefined();
    }
    expect(isKnownRunRecordType('x.acme.thing')).toBe(false);
    expect(isKnownRunRecordType('constructor')).toBe(false);
  });

  it('keep unknown fields, unknown enum strings and unknown schema versions', () => {
    const header = {
      type: 'header',
      schema_version: 3,
      run_id: 'r',
      started_at: 'x',
      future: { a: 1 },
    };
    expect(checkRunRecord(header)).toEqual({ success: true, record: header, known: true });
    expect(isSupportedRunSchemaVersion(3)).toBe(false);
    expect(isSupportedRunSchemaVersion(1)).toBe(true);
    const status = { type: 'run.status', ...base, status: 'paused_for_review', extra: [1] };
    expect(checkRunRecord(status)).toMatchObject({ success: true, record: status });
    const end = { type: 'run.end', ...base, outcome: 'timed_out' };
    expect(checkRunRecord(end)).toMatchObject({ success: true });
  });

  it('accept unknown record types (custom x.<org>.<name> and newer seed types) as unknown records', () => {
    for (const record of [
      { type: 'x.acme.checkpoint', ...base, label: 'a' },
      { type: 'run.checkpoint', whatever: true },
    ]) {
      expect(checkRunRecord(record)).toEqual({ success: true, record, known: false });
    }
    expect(isCustomRunRecordType('x.acme.checkpoint')).toBe(true);
    expect(isCustomRunRecordType('x.acme')).toBe(false);
    expect(isCustomRunRecordType('acme.checkpoint')).toBe(false);
  });

  it('reject damaged records with a message naming the field', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /JSON object/],
      [[1], /JSON object/],
      ['text', /JSON object/],
      [{ no: 'type' }, /no "type"/],
      [{ type: '' }, /no "type"/],
      [{ type: 'agent.event', ...base, seq: -1, event: { type: 'a' } }, /agent\.event.*seq/],
      [{ type: 'agent.event', ...base, seq: 0, event: {} }, /event\.type/],
      [{ type: 'run.context', ...base, context_left_percent: '50' }, /context_left_percent/],
      [
        { type: 'llm.request', ...base, seq: 1, input: { messages: [{ content: 'no role' }] } },
        /input\.messages\[0\]\.role|input\.messages/,
      ],
      [{ type: 'tool.output', ...base, tool: 't', tool_call_id: 'c' }, /result_raw/],
      [{ type: 'run.end', run_id: 'r', ts: 'yesterday', outcome: 'completed' }, /ts/],
      [{ type: 'header', schema_version: '1', run_id: 'r', started_at: 'x' }, /schema_version/],
    ];
    for (const [value, message] of cases) {
      const checked = checkRunRecord(value);
      expect(checked.success, JSON.stringify(value)).toBe(false);
      if (!checked.success) expect(checked.message).toMatch(message);
    }
    expect(parseRunRecordLine('{"type":')).toMatchObject({
      success: false,
      message: expect.stringContaining('not valid JSON'),
    });
  });

  it('validate without copying: the parsed value is returned as is', () => {
    const value = { type: 'agent.event', ...base, seq: 0, event: { type: 'a' } };
    const checked = checkRunRecord(value);
    expect(checked.success && checked.record).toBe(value);
  });

  it('narrow with isRunRecordOfType', () => {
    const record: RunRecord = { type: 'llm.request', ...base, seq: 4, input: { messages: [] } };
    if (isRunRecordOfType(record, 'llm.request')) expect(record.input.messages).toEqual([]);
    expect(isRunRecordOfType(record, 'llm.response')).toBe(false);
  });

  test.prop([fc.string()])('never throw on any line', (line) => {
    const checked = parseRunRecordLine(line);
    expect(typeof checked.success).toBe('boolean');
  });

  test.prop([fc.jsonValue()])('never throw on any JSON value', (value) => {
    const checked = checkRunRecord(value);
    if (!checked.success) expect(checked.message.length).toBeGreaterThan(0);
  });
});

describe('tool output refs (seed 001)', () => {
  it('derive the cache id, UTF-8 byte size and line count', () => {
    expect(toolOutputCacheId('call_1')).toBe('call_1');
    expect(toolOutputCacheId('toolu_01:a/b.c d')).toBe('toolu_01_a_b_c_d');
    expect(toolOutputRefFor('call_1', 'AGENTS.md\nRULES.md\npackages\n')).toEqual({
      id: 'call_1',
      byte_size: 28,
      line_count: 3,
    });
    expect(toolOutputRefFor('c', '')).toEqual({ id: 'c', byte_size: 0, line_count: 0 });
    expect(countLines('one')).toBe(1);
    expect(countLines('one\ntwo')).toBe(2);
    expect(countLines('\n')).toBe(1);
    expect(utf8ByteLength('é🙂')).toBe(6);
    expect(utf8ByteLength('\ud83d')).toBe(3);
  });

  test.prop([fc.string({ unit: 'binary' })])(
    'count UTF-8 bytes as TextEncoder encodes them',
    (text) => {
      expect(utf8ByteLength(text)).toBe(new TextEncoder().encode(text).length);
    },
  );

  test.prop([fc.string({ unit: 'binary' })])(
    'count lines as split does, without a trailing empty line',
    (text) => {
      const parts = text.split('\n');
      const expected = text === '' ? 0 : text.endsWith('\n') ? parts.length - 1 : parts.length;
      expect(countLines(text)).toBe(expected);
    },
  );

  test.prop([fc.string()])('make cache ids of [A-Za-z0-9_-] only, keeping length', (id) => {
    const cacheId = toolOutputCacheId(id);
    expect(cacheId).toMatch(/^[A-Za-z0-9_-]*$/);
    expect(cacheId.length).toBe(id.length);
  });
});

describe('nearKnownRunRecordType', () => {
  it('takes a name one edit from a known type for a typo, and anything further for a newer type', () => {
    expect(nearKnownRunRecordType('run.strat')).toBe('run.start');
    expect(nearKnownRunRecordType('llm.reqest')).toBe('llm.request');
    expect(nearKnownRunRecordType('run.ends')).toBe('run.end');
    expect(nearKnownRunRecordType('tool.outpt')).toBe('tool.output');
    expect(nearKnownRunRecordType('run.start')).toBeUndefined();
    expect(nearKnownRunRecordType('run.plan')).toBeUndefined();
    expect(nearKnownRunRecordType('llm.stream')).toBeUndefined();
  });
});
