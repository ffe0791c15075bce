// RunStore.redact: secrets and content modes, idempotent, positions kept (stores declaring
// `redaction`).
import { expect, it, type TestContext } from 'vitest';
import type { RunRecord } from '../../../schema/run-record.js';
import { agentEvent, headerFor, runIdFor, SESSION_A } from '../../run-fixtures.js';
import { expectEpisodicError, requireCapability, utf8 } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

/**
 * Secrets the default content detectors find (assembled so this file does not look like a leak).
 */
const SECRETS = [
  ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join(''),
  ['ghp_', 'a1B2c3D4e5F6g7H8'.repeat(3).slice(0, 36)].join(''),
];

/** A completed run with secrets in its header, input, a tool output and its final answer. */
function secretRun(runId: string): RunRecord[] {
  const [aws, github] = SECRETS as [string, string];
  const ts = '2026-02-03T12:01:00.000Z';
  const header = headerFor(runId);
  return [
    { ...header, prompts: { system: `Deploy with ${aws}.` } },
    {
      type: 'run.start',
      run_id: runId,
      ts,
      input: { type: 'text', text: `list files for ${github}` },
    },
    agentEvent(runId, 0),
    {
      type: 'tool.output',
      run_id: runId,
      ts,
      tool: 'exec',
      tool_call_id: 'call_1',
      result_raw: `AWS_ACCESS_KEY_ID=${aws}\nGITHUB_TOKEN=${github}`,
      is_error: false,
    },
    { type: 'run.end', run_id: runId, ts, outcome: 'completed', final: `done with ${aws}` },
  ];
}
/**
 * Registers the tests of `RunStore.redact` (skipped unless the store declares
 * `capabilities.redaction`).
 */
export function runRedactTests({ open, capabilities }: ContractGroup<'runs'>): void {
  const redactable = async (context: TestContext) => {
    const opened = await open(context);
    requireCapability(context, opened.store.capabilities.redaction, 'redaction (RunStore)');
    return opened.store;
  };

  it('replaces every secret the detectors find in every record, and nothing else', async (context) => {
    const store = await redactable(context);
    const runId = runIdFor(60);
    const records = secretRun(runId);
    await store.append(runId, records);
    const before = await store.read(runId);
    const receipt = await store.redact(runId);
    expect(receipt).toMatchObject({ runId, mode: 'secrets' });
    expect(receipt.changedLines).toBe(4);
    expect(receipt.replacements).toBe(5);
    const after = await store.read(runId);
    const text = JSON.stringify(after);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).toContain('[REDACTED:aws_key]');
    expect(text).toContain('[REDACTED:github_token]');
    expect(after.errors).toEqual([]);
    expect(after.records).toHaveLength(before.records.length);
    // Records without a secret are unchanged, and the others keep every other field.
    expect(after.records[2]).toEqual(records[2]);
    expect(after.records[1]).toMatchObject({ type: 'run.start', input: { type: 'text' } });
    expect(after.header).toMatchObject({ run_id: runId, session_id: SESSION_A });
    // Idempotent: nothing is left to replace.
    expect(await store.redact(runId)).toMatchObject({ changedLines: 0, replacements: 0 });
    // The run still accepts appends.
    await store.append(runId, [agentEvent(runId, 9)]);
    expect((await store.read(runId)).records).toHaveLength(before.records.length + 1);
  });

  it('replaces all text in content mode, keeping every record readable and in order', async (context) => {
    const store = await redactable(context);
    const runId = runIdFor(61);
    const records = secretRun(runId);
    await store.append(runId, records);
    const receipt = await store.redact(runId, { mode: 'content' });
    expect(receipt.mode).toBe('content');
    const after = await store.read(runId);
    expect(after.errors).toEqual([]);
    expect(after.ended).toBe(true);
    expect(after.records.map((record) => record.type)).toEqual(
      records.map((record) => record.type),
    );
    const text = JSON.stringify(after.records);
    for (const secret of [...SECRETS, 'list files for', 'done with']) {
      expect(text).not.toContain(secret);
    }
    expect(after.records[0]).toMatchObject({
      run_id: runId,
      started_at: records[0]?.started_at,
    });
  });

  it('is NOT_FOUND for an unknown run and rejects bad options, changing nothing', async (context) => {
    const store = await redactable(context);
    await expectEpisodicError(store.redact(runIdFor(62)), 'NOT_FOUND');
    const runId = runIdFor(63);
    await store.append(runId, secretRun(runId));
    await expectEpisodicError(
      store.redact(runId, { mode: 'everything' as never }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(store.redact(runId, { kinds: [] }), 'VALIDATION_ERROR');
    await expectEpisodicError(store.redact('../etc/passwd'), 'VALIDATION_ERROR');
    expect(JSON.stringify((await store.read(runId)).records)).toContain(SECRETS[0]);
  });

  it('scrubs a damaged line too, and keeps it (as a damaged line) in content mode', async (context) => {
    requireCapability(context, capabilities.runDamage, 'runDamage');
    const opened = await open(context);
    requireCapability(context, opened.store.capabilities.redaction, 'redaction (RunStore)');
    const { store, harness } = opened;
    const runId = runIdFor(64);
    await store.append(runId, [headerFor(runId), agentEvent(runId, 0)]);
    await harness.damage?.appendRawToRun?.(
      runId,
      utf8(`{"type":"agent.event","run_id":"${runId}","note":"key ${SECRETS[0]} torn\n`),
    );
    const receipt = await store.redact(runId);
    expect(receipt.changedLines).toBe(1);
    const read = await store.read(runId);
    expect(JSON.stringify(read)).not.toContain(SECRETS[0]);
    expect(read.errors).toHaveLength(1);
    expect(read.records).toHaveLength(2);
    expect(read.position).toBe(3);
    const content = await store.redact(runId, { mode: 'content' });
    expect(content.changedLines).toBeGreaterThanOrEqual(1);
    const after = await store.read(runId);
    // A line is never removed, so every reader's position stays valid.
    expect(after.position).toBe(3);
    expect(after.errors).toHaveLength(1);
    expect(after.errors[0]?.excerpt).toContain('REDACTED');
    expect(after.records).toHaveLength(2);
    await store.append(runId, [agentEvent(runId, 1)]);
    expect((await store.readAfter(runId, 3)).records).toEqual([agentEvent(runId, 1)]);
  });

  it('keeps positions: a reader continues with readAfter where it left off', async (context) => {
    const store = await redactable(context);
    const runId = runIdFor(65);
    await store.append(runId, secretRun(runId));
    const { position } = await store.read(runId);
    await store.redact(runId, { mode: 'content' });
    expect((await store.read(runId)).position).toBe(position);
    await store.append(runId, [agentEvent(runId, 7)], { expectedPosition: position });
    expect((await store.readAfter(runId, position)).records).toEqual([agentEvent(runId, 7)]);
  });
}
