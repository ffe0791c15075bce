import { describe, expect, it } from 'vitest';
import { thrownError } from '../__fixtures__/episodic-errors.js';
import { DEFAULT_CONTENT_RULES } from './content-rules.js';
import {
  type PrepareEventContext,
  prepareLedgerEvent,
  resolveLedgerCaps,
} from './prepare-event.js';
import {
  DEFAULT_RETENTION_POLICY,
  isExpired,
  resolveRetentionPolicy,
  retentionCutoffs,
} from './retention.js';

const context = (overrides: Partial<PrepareEventContext> = {}): PrepareEventContext => ({
  caps: resolveLedgerCaps(),
  guard: { rules: DEFAULT_CONTENT_RULES, allow: [], mode: 'reject' },
  now: () => new Date('2026-02-03T12:00:00.000Z'),
  generateId: () => '01JKXYZ0000000000000000000',
  ...overrides,
});
const event = {
  scope: ' Team A ',
  session_id: 's1',
  agent_id: 'a',
  type: 'ops.decision',
  summary: 'chose plan B',
};

describe('prepareLedgerEvent', () => {
  it('normalizes the scope and fills in id, time and schema version from the injected context', () => {
    const { row, tsSupplied } = prepareLedgerEvent(
      { ...event, payload: { b: 1, a: [1, 'x'] } },
      context(),
    );
    expect(row).toMatchObject({
      event_id: '01JKXYZ0000000000000000000',
      ts_ms: Date.parse('2026-02-03T12:00:00.000Z'),
      scope: 'team-a',
      payload_json: '{"a":[1,"x"],"b":1}',
      refs_json: null,
      metadata_json: null,
      created_at: '2026-02-03T12:00:00.000Z',
      schema_version: 'episodic.ledger.v0',
    });
    expect(tsSupplied).toBe(false);
  });

  it('applies configurable caps to the UTF-8 bytes of the canonical form and reports both numbers', () => {
    const small = context({ caps: resolveLedgerCaps({ payloadBytes: 10 }) });
    expect(prepareLedgerEvent({ ...event, payload: { a: 'é' } }, small).row.payload_json).toBe(
      '{"a":"é"}',
    );
    const error = thrownError(() => prepareLedgerEvent({ ...event, payload: { a: 'éé' } }, small));
    expect(error.message).toContain(
      'payload is 12 bytes as canonical JSON, over the cap of 10 bytes',
    );
    expect(error.details).toMatchObject({ bytes: 12, cap: 10, field: 'payload' });
  });

  it('hides content values in validation errors', () => {
    const secret = 'AKIAQZ2X7WJ4KT5M3R6N';
    const error = thrownError(() =>
      prepareLedgerEvent({ ...event, summary: 42, payload: undefined, refs: [secret] }, context()),
    );
    expect(JSON.stringify(error.toJSON())).not.toContain(secret);
    expect(error.message).toContain('withheld');
  });

  it('redacts with typed placeholders in redact mode (ledger-wide or per call) and re-applies the caps', () => {
    const secret = 'AKIAQZ2X7WJ4KT5M3R6N';
    const redactMode = context({
      guard: { rules: DEFAULT_CONTENT_RULES, allow: [], mode: 'redact' },
    });
    const prepared = prepareLedgerEvent(
      { ...event, summary: `key ${secret}`, metadata: { owner: 'jane.doe@example.com' } },
      redactMode,
    );
    expect(prepared.row.summary).toBe('key [REDACTED:aws_key]');
    expect(prepared.row.metadata_json).toBe('{"owner":"[REDACTED:email]"}');
    expect(prepared.redactions.map((finding) => finding.rule)).toEqual(['aws_key', 'email']);
    expect(
      prepareLedgerEvent({ ...event, summary: `key ${secret}` }, context(), { redact: true }).row
        .summary,
    ).toBe('key [REDACTED:aws_key]');
    const tight = context({
      caps: resolveLedgerCaps({ summaryBytes: 12 }),
      guard: { rules: DEFAULT_CONTENT_RULES, allow: [], mode: 'redact' },
    });
    expect(
      thrownError(() => prepareLedgerEvent({ ...event, summary: 'a@b.example' }, tight)).details,
    ).toMatchObject({ field: 'summary' });
  });

  it('refuses an id that looks like a secret, naming the field, even with allow or redact', () => {
    const secret = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');
    for (const field of ['session_id', 'agent_id', 'event_id', 'scope'] as const) {
      for (const call of [{}, { allow: ['secret' as const] }, { redact: true }]) {
        const error = thrownError(() =>
          prepareLedgerEvent({ ...event, [field]: `x-${secret}` }, context(), call),
        );
        expect(error.code).toBe('VALIDATION_ERROR');
        expect(error.details.field).toBe(field);
        expect(error.message).toContain(`${field} looks like a secret (rule aws_key)`);
        expect(error.message).not.toContain(secret);
      }
    }
    // Personal data in an id follows the allow list, like a summary.
    const email = { ...event, agent_id: 'alice@example.com' };
    expect(thrownError(() => prepareLedgerEvent(email, context())).details.field).toBe('agent_id');
    expect(prepareLedgerEvent(email, context(), { allow: ['pii'] }).row.agent_id).toBe(
      'alice@example.com',
    );
  });

  it('guards object keys: a secret key is refused without echoing it, or replaced by a unique placeholder key', () => {
    const secret = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');
    const keyed = {
      ...event,
      payload: { [secret]: 'v', '[REDACTED:aws_key]': 'w' },
      refs: { [`b-${secret}`]: 1 },
      metadata: { [`m-${secret}`]: 'x' },
    };
    const error = thrownError(() => prepareLedgerEvent(keyed, context()));
    expect(error.message).toContain('payload (an object key) looks like a secret (rule aws_key)');
    expect(JSON.stringify(error.details)).not.toContain(secret);
    expect(error.message).not.toContain(secret);
    const { row } = prepareLedgerEvent(keyed, context(), { redact: true });
    expect(JSON.parse(row.payload_json as string)).toEqual({
      '[REDACTED:aws_key]#2': 'v',
      '[REDACTED:aws_key]': 'w',
    });
    expect(row.refs_json).toBe('{"b-[REDACTED:aws_key]":1}');
    expect(row.metadata_json).toBe('{"m-[REDACTED:aws_key]":"x"}');
  });

  it('refuses an unusable generated id', () => {
    expect(
      thrownError(() => prepareLedgerEvent(event, context({ generateId: () => '../x' }))).message,
    ).toContain('generateId');
  });
});

describe('retention', () => {
  it('has the documented defaults and merges overrides in order', () => {
    expect(DEFAULT_RETENTION_POLICY).toEqual({
      'conversation.assistant': 90,
      'conversation.user': 60,
      'ops.alert': 90,
      'ops.decision': null,
      'tool.call': 30,
      'tool.result': 30,
    });
    const policy = resolveRetentionPolicy(
      { 'tool.call': 7 },
      { 'tool.call': null, 'ops.decision': 365 },
    );
    expect(policy['tool.call']).toBeNull();
    expect(policy['ops.decision']).toBe(365);
    expect(policy['tool.result']).toBe(30);
  });

  it('expires strictly older events only', () => {
    const now = 100 * 86_400_000;
    const cutoffs = retentionCutoffs(DEFAULT_RETENTION_POLICY, now);
    expect(cutoffs['tool.result']).toBe(70 * 86_400_000);
    expect(cutoffs['ops.decision']).toBeNull();
    expect(isExpired('tool.result', 70 * 86_400_000, DEFAULT_RETENTION_POLICY, now)).toBe(false);
    expect(isExpired('tool.result', 70 * 86_400_000 - 1, DEFAULT_RETENTION_POLICY, now)).toBe(true);
    expect(isExpired('ops.decision', 0, DEFAULT_RETENTION_POLICY, now)).toBe(false);
  });
});
