import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../schema/run-record.js';
import { raceEvent } from './conformance-child.js';
import {
  agentEvent,
  completedRun,
  headerFor,
  runIdFor,
  SESSION_A,
  SESSION_B,
} from './run-fixtures.js';
import type { CreateStoreHarness, StoreConformanceCapabilities } from './store-harness.js';
import { expectEpisodicError, openStore, requireCapability, utf8 } from './suite-helpers.js';

const CONTRACT = 'RunStore';

/** Secrets the default content detectors find (assembled so this file does not look like a leak). */
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

/** Registers the `RunStore` contract tests (see `describeStoreConformance`). */
export function describeRunStoreSuite(
  createHarness: CreateStoreHarness,
  capabilities: StoreConformanceCapabilities,
): void {
  const open = async (context: Parameters<typeof openStore>[0]) =>
    openStore(context, createHarness, 'runs', CONTRACT);

  describe(CONTRACT, () => {
    it('declares its capabilities as data', async (context) => {
      const { store } = await open(context);
      expect(typeof store.name).toBe('string');
      expect(typeof store.capabilities.crossProcessAppends).toBe('boolean');
      expect(typeof store.capabilities.toolOutputCache).toBe('boolean');
      expect(['none', 'run', 'always']).toContain(store.capabilities.durability);
    });

    it('reads back every appended record in order, unknown fields and custom types included', async (context) => {
      const { store } = await open(context);
      const runId = runIdFor(1);
      const records = completedRun(runId, 4);
      const custom: RunRecord = {
        type: 'x.acme.checkpoint',
        run_id: runId,
        ts: '2026-02-03T12:02:00.000Z',
        label: 'custom',
      };
      const withExtra = { ...agentEvent(runId, 4), future_field: { nested: [1, 2] } };
      // A seed type newer than this version (a file or export written by a newer Episodic).
      const later: RunRecord = {
        type: 'run.plan',
        run_id: runId,
        ts: '2026-02-03T12:02:30.000Z',
        steps: ['a', 'b'],
      };
      const receipt = await store.append(runId, records.slice(0, 3));
      expect(receipt).toMatchObject({ runId, appended: 3 });
      await store.append(runId, [custom, withExtra, later]);
      await store.append(runId, records.slice(3));

      const read = await store.read(runId);
      expect(read.runId).toBe(runId);
      expect(read.errors).toEqual([]);
      expect(read.bestEffort).toBe(false);
      expect(read.ended).toBe(true);
      expect(read.header).toEqual(records[0]);
      expect(read.records).toEqual([
        ...records.slice(0, 3),
        custom,
        withExtra,
        later,
        ...records.slice(3),
      ]);
    });

    it('keeps the call order of appends issued without awaiting each other', async (context) => {
      const { store } = await open(context);
      const runId = runIdFor(2);
      await store.append(runId, [headerFor(runId)]);
      await Promise.all(
        Array.from({ length: 40 }, (_, seq) => store.append(runId, [agentEvent(runId, seq)])),
      );
      const read = await store.read(runId);
      expect(read.records.slice(1).map((record) => record.seq)).toEqual(
        Array.from({ length: 40 }, (_, seq) => seq),
      );
    });

    it('accepts unknown enum strings and reads an unknown schema_version best-effort, saying so', async (context) => {
      const { store } = await open(context);
      const runId = runIdFor(3);
      await store.append(runId, [
        headerFor(runId, { schemaVersion: 7 }),
        {
          type: 'run.status',
          run_id: runId,
          ts: '2026-02-03T12:00:01.000Z',
          status: 'paused_for_review',
        },
      ]);
      const read = await store.read(runId);
      expect(read.bestEffort).toBe(true);
      expect(read.bestEffortReason).toContain('schema_version 7');
      expect(read.records[1]).toMatchObject({ status: 'paused_for_review' });
      expect(read.ended).toBe(false);
      const { runs } = await store.list();
      expect(runs).toEqual([
        expect.objectContaining({ runId, schemaVersion: 7, bestEffort: true }),
      ]);
    });

    it('is NOT_FOUND for a run that does not exist, and never creates one without a header', async (context) => {
      const { store } = await open(context);
      const runId = runIdFor(4);
      await expectEpisodicError(store.append(runId, [agentEvent(runId, 0)]), 'NOT_FOUND');
      await expectEpisodicError(store.read(runId), 'NOT_FOUND');
      await expectEpisodicError(store.tail(runId), 'NOT_FOUND');
      expect(await store.delete(runId)).toBe(false);
      expect((await store.list()).runs).toEqual([]);
    });

    it('never rewrites a header: an identical one is skipped (idempotent), a different one is CONFLICT', async (context) => {
      const { store } = await open(context);
      const runId = runIdFor(5);
      const header = headerFor(runId);
      await store.append(runId, [header, agentEvent(runId, 0)]);
      const again = await store.append(runId, [{ ...header }, agentEvent(runId, 1)]);
      expect(again.appended).toBe(1);
      const conflict = await expectEpisodicError(
        store.append(runId, [
          headerFor(runId, { startedAt: '2026-02-04T00:00:00.000Z' }),
          agentEvent(runId, 2),
        ]),
        'CONFLICT',
      );
      expect(conflict.message).toContain(runId);
      const read = await store.read(runId);
      expect(read.header).toEqual(header);
      expect(read.records.map((record) => record.type)).toEqual([
        'header',
        'agent.event',
        'agent.event',
      ]);
    });

    it('rejects bad input with VALIDATION_ERROR before touching storage, writing nothing', async (context) => {
      const { store } = await open(context);
      const runId = runIdFor(6);
      await store.append(runId, [headerFor(runId)]);
      const cases: Array<[string, unknown, unknown]> = [
        ['a path in the id', '../../etc/passwd', [agentEvent(runId, 0)]],
        ['an empty id', '', [agentEvent(runId, 0)]],
        ['no records', runId, []],
        ['a negative seq', runId, [agentEvent(runId, 0), agentEvent(runId, -1)]],
        ['a header not first', runId, [agentEvent(runId, 0), headerFor(runId)]],
        ['another run id', runId, [agentEvent(runIdFor(99), 0)]],
        [
          'an unnamespaced unknown type',
          runId,
          [{ type: 'checkpoint', run_id: runId, ts: '2026-02-03T12:00:00.000Z' }],
        ],
        [
          'a typo of a seed type',
          runId,
          [{ type: 'run.strat', run_id: runId, ts: '2026-02-03T12:00:00.000Z' }],
        ],
        ['a bad timestamp', runId, [{ ...agentEvent(runId, 0), ts: 'yesterday' }]],
        [
          'a lone surrogate',
          runId,
          [{ ...agentEvent(runId, 0), event: { type: 'text', content: 'cut \ud83d' } }],
        ],
      ];
      for (const [label, id, records] of cases) {
        const error = await expectEpisodicError(
          store.append(id as string, records as RunRecord[]),
          'VALIDATION_ERROR',
        );
        expect(error.message, label).toMatch(/Invalid/);
      }
      await expectEpisodicError(store.read('not-a-uuid'), 'VALIDATION_ERROR');
      await expectEpisodicError(store.tail(runId, { count: 0 }), 'VALIDATION_ERROR');
      await expectEpisodicError(store.list({ sessionId: 'nope' }), 'VALIDATION_ERROR');
      await expectEpisodicError(store.list({ limit: 0 }), 'VALIDATION_ERROR');
      await expectEpisodicError(store.list({ runIds: ['not-a-uuid'] }), 'VALIDATION_ERROR');
      await expectEpisodicError(
        store.list({ from: '2026-02-05T00:00:00.000Z', to: '2026-02-04T00:00:00.000Z' }),
        'VALIDATION_ERROR',
      );
      await expectEpisodicError(store.delete('RUN-1'), 'VALIDATION_ERROR');
      const read = await store.read(runId);
      expect(read.records).toHaveLength(1);
    });

    it('treats run ids case-insensitively', async (context) => {
      const { store } = await open(context);
      const runId = runIdFor(7);
      await store.append(runId.toUpperCase(), [headerFor(runId)]);
      await store.append(runId, [agentEvent(runId.toUpperCase(), 0)]);
      expect((await store.read(runId.toUpperCase())).records).toHaveLength(2);
      expect((await store.list()).runs.map((run) => run.runId)).toEqual([runId]);
    });

    it('resolves a unique id prefix; an ambiguous one names its candidates, an unknown one is NOT_FOUND', async (context) => {
      const { store } = await open(context);
      // Three runs: two share their first 8 characters with each other, one differs at the 2nd.
      const first = 'a1b2c3d4-0000-4000-8000-000000000001';
      const second = 'a1b2c3d4-0000-4000-8000-000000000002';
      const other = 'a9b2c3d4-0000-4000-8000-000000000003';
      for (const runId of [first, second, other]) await store.append(runId, [headerFor(runId)]);
      expect(await store.resolveRunId('A9B2C3')).toBe(other);
      expect(await store.resolveRunId('a1b2c3d4-0000-4000-8000-000000000002')).toBe(second);
      await expectEpisodicError(
        store.resolveRunId('a1b2c3d4-0000-4000-8000-00000000000'),
        'VALIDATION_ERROR',
      );
      const ambiguous = await expectEpisodicError(
        store.resolveRunId('a1b2c3d4'),
        'VALIDATION_ERROR',
      );
      expect(ambiguous.message).toContain(first);
      expect(ambiguous.message).toContain(second);
      expect(ambiguous.message).not.toContain(other);
      expect(ambiguous.details).toMatchObject({ count: 2, candidates: [first, second] });
      await expectEpisodicError(store.resolveRunId('a1b2c3e'), 'NOT_FOUND');
      // A prefix that is the start of an id but runs past it in the next character range.
      await expectEpisodicError(store.resolveRunId('a1b2c3d5'), 'NOT_FOUND');
      const short = await expectEpisodicError(store.resolveRunId('a1b2c'), 'VALIDATION_ERROR');
      expect(short.message).toContain('UUID');
      await expectEpisodicError(store.resolveRunId('a1b2c3d4-0000-40zz'), 'VALIDATION_ERROR');
      // The caller's visibility filter is a wall: what it hides is never resolved, named or counted.
      const onlyFirst = { visible: (runId: string) => runId === first };
      expect(await store.resolveRunId('a1b2c3d4', onlyFirst)).toBe(first);
      const hidden = await expectEpisodicError(
        store.resolveRunId('a9b2c3', onlyFirst),
        'NOT_FOUND',
      );
      expect(hidden.message).not.toContain(other);
    });

    it('returns fresh copies: changing a read result never changes the store', async (context) => {
      const { store } = await open(context);
      const runId = runIdFor(8);
      const records = completedRun(runId, 2);
      await store.append(runId, records);
      const first = await store.read(runId);
      (first.records[1] as { input: { text: string } }).input.text = 'changed';
      first.records.pop();
      const tail = await store.tail(runId, { count: 2 });
      (tail.records[0] as { status: string }).status = 'changed';
      const { runs } = await store.list();
      (runs[0] as { startedAt: string }).startedAt = 'changed';
      const second = await store.read(runId);
      expect(second.records).toEqual(records);
      expect((await store.list()).runs[0]?.startedAt).toBe('2026-02-03T12:00:00.000Z');
    });

    it('tails the last records, oldest first', async (context) => {
      const { store } = await open(context);
      const runId = runIdFor(9);
      const records = completedRun(runId, 150);
      await store.append(runId, records);
      const last3 = await store.tail(runId, { count: 3 });
      expect(last3.records).toEqual(records.slice(-3));
      expect(last3.errors).toEqual([]);
      expect((await store.tail(runId)).records).toEqual(records.slice(-100));
      expect((await store.tail(runId, { count: 10_000 })).records).toEqual(records);
    });

    it('lists runs newest first, by session, by run ids, by inclusive time range and with a limit', async (context) => {
      const { store } = await open(context);
      const starts = [
        '2026-01-31T23:59:59.000Z',
        '2026-02-01T10:00:00.000Z',
        '2026-02-02T10:00:00.000Z',
        '2026-02-03T10:00:00.000Z',
      ];
      for (const [index, startedAt] of starts.entries()) {
        const runId = runIdFor(20 + index);
        const sessionId = index % 2 === 0 ? SESSION_A : SESSION_B;
        await store.append(runId, [headerFor(runId, { startedAt, sessionId })]);
      }
      const all = await store.list();
      expect(all.errors).toEqual([]);
      expect(all.runs.map((run) => run.startedAt)).toEqual([...starts].reverse());
      expect(all.runs[0]).toEqual({
        runId: runIdFor(23),
        sessionId: SESSION_B,
        startedAt: starts[3],
        schemaVersion: 1,
        bestEffort: false,
        model: { provider: 'test', name: 'test-model' },
        runtime: { cwd: '/work/project', os: 'linux' },
      });
      const bySession = await store.list({ sessionId: SESSION_A });
      expect(bySession.runs.map((run) => run.runId)).toEqual([runIdFor(22), runIdFor(20)]);
      const upper = await store.list({ sessionId: SESSION_A.toUpperCase() });
      expect(upper.runs).toHaveLength(2);
      const range = await store.list({ from: starts[1], to: starts[2] });
      expect(range.runs.map((run) => run.runId)).toEqual([runIdFor(22), runIdFor(21)]);
      const limited = await store.list({ limit: 2 });
      expect(limited.runs.map((run) => run.runId)).toEqual([runIdFor(23), runIdFor(22)]);
      const combined = await store.list({ sessionId: SESSION_B, from: starts[0], limit: 1 });
      expect(combined.runs.map((run) => run.runId)).toEqual([runIdFor(23)]);
      const named = await store.list({
        runIds: [runIdFor(20), runIdFor(23).toUpperCase(), runIdFor(99)],
      });
      expect(named.runs.map((run) => run.runId)).toEqual([runIdFor(23), runIdFor(20)]);
      const namedOfSession = await store.list({
        runIds: [runIdFor(20), runIdFor(21), runIdFor(23)],
        sessionId: SESSION_A,
      });
      expect(namedOfSession.runs.map((run) => run.runId)).toEqual([runIdFor(20)]);
      expect((await store.list({ runIds: [] })).runs).toEqual([]);
    });

    it('deletes a run once: then it is NOT_FOUND and no longer listed', async (context) => {
      const { store } = await open(context);
      const keep = runIdFor(30);
      const remove = runIdFor(31);
      await store.append(keep, completedRun(keep, 1));
      await store.append(remove, completedRun(remove, 1));
      expect(await store.delete(remove)).toBe(true);
      expect(await store.delete(remove)).toBe(false);
      await expectEpisodicError(store.read(remove), 'NOT_FOUND');
      expect((await store.list()).runs.map((run) => run.runId)).toEqual([keep]);
      // The id can be used again for a new run.
      await store.append(remove, [headerFor(remove)]);
      expect((await store.read(remove)).records).toHaveLength(1);
    });

    it('reads a run whose writer crashed before run.end', async (context) => {
      const { store } = await open(context);
      const runId = runIdFor(32);
      const records = completedRun(runId, 2).slice(0, -2);
      await store.append(runId, records);
      const read = await store.read(runId);
      expect(read.ended).toBe(false);
      expect(read.records).toEqual(records);
    });

    describe('redaction', () => {
      const redactable = async (context: Parameters<typeof openStore>[0]) => {
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
    });

    describe('compare-and-append', () => {
      it('appends only at the expected position; a stale expectation is CONFLICT and writes nothing', async (context) => {
        const { store } = await open(context);
        const runId = runIdFor(70);
        const created = await store.append(runId, [headerFor(runId)], { expectedPosition: 0 });
        expect(created).toEqual({ runId, appended: 1, position: 1 });
        const next = await store.append(runId, [agentEvent(runId, 0), agentEvent(runId, 1)], {
          expectedPosition: 1,
        });
        expect(next).toEqual({ runId, appended: 2, position: 3 });
        const stale = await expectEpisodicError(
          store.append(runId, [agentEvent(runId, 9)], { expectedPosition: 1 }),
          'CONFLICT',
        );
        expect(stale.details).toMatchObject({ runId, expectedPosition: 1, position: 3 });
        await expectEpisodicError(
          store.append(runId, [headerFor(runId)], { expectedPosition: 0 }),
          'CONFLICT',
        );
        const read = await store.read(runId);
        expect(read.position).toBe(3);
        expect(read.records).toEqual([
          headerFor(runId),
          agentEvent(runId, 0),
          agentEvent(runId, 1),
        ]);
        // A plain append still works and moves the position on.
        await store.append(runId, [agentEvent(runId, 2)]);
        expect((await store.read(runId)).position).toBe(4);
      });

      it('is NOT_FOUND (not a new run) when a compare-and-append at position 0 has no header', async (context) => {
        const { store } = await open(context);
        const runId = runIdFor(71);
        await expectEpisodicError(
          store.append(runId, [agentEvent(runId, 0)], { expectedPosition: 0 }),
          'NOT_FOUND',
        );
        await expectEpisodicError(
          store.append(runId, [headerFor(runId)], { expectedPosition: 1 }),
          'CONFLICT',
        );
        await expectEpisodicError(store.read(runId), 'NOT_FOUND');
      });

      it('lets exactly one of many appends at the same position win', async (context) => {
        const { store } = await open(context);
        const runId = runIdFor(72);
        await store.append(runId, [headerFor(runId)]);
        const attempts = await Promise.allSettled(
          Array.from({ length: 12 }, (_, seq) =>
            store.append(runId, [agentEvent(runId, seq)], { expectedPosition: 1 }),
          ),
        );
        const won = attempts.filter((attempt) => attempt.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const attempt of attempts) {
          if (attempt.status === 'rejected') expect(attempt.reason.code).toBe('CONFLICT');
        }
        expect((await store.read(runId)).records).toHaveLength(2);
      });

      it('reads only what follows a position with readAfter', async (context) => {
        const { store } = await open(context);
        const runId = runIdFor(73);
        const records = completedRun(runId, 5);
        await store.append(runId, records);
        for (let position = 0; position <= records.length; position++) {
          const after = await store.readAfter(runId, position);
          expect(after).toEqual({
            runId,
            records: records.slice(position),
            errors: [],
            position: records.length,
          });
        }
        await expectEpisodicError(store.readAfter(runId, records.length + 1), 'CONFLICT');
        await expectEpisodicError(store.readAfter(runIdFor(74), 0), 'NOT_FOUND');
        const read = await store.read(runId);
        expect(read.position).toBe(records.length);
      });

      it('rejects bad positions with VALIDATION_ERROR, writing nothing', async (context) => {
        const { store } = await open(context);
        const runId = runIdFor(75);
        await store.append(runId, [headerFor(runId)]);
        for (const bad of [-1, 1.5, Number.NaN, '1', null]) {
          await expectEpisodicError(
            store.append(runId, [agentEvent(runId, 0)], { expectedPosition: bad as never }),
            'VALIDATION_ERROR',
          );
          await expectEpisodicError(store.readAfter(runId, bad as never), 'VALIDATION_ERROR');
        }
        await expectEpisodicError(
          store.append(runId, [agentEvent(runId, 0)], { expectedPostion: 1 } as never),
          'VALIDATION_ERROR',
        );
        expect((await store.read(runId)).position).toBe(1);
      });

      it('holds across processes: racing writers lose nothing and never share a position', async (context) => {
        requireCapability(context, capabilities.crossProcess, 'crossProcess');
        const opened = await open(context);
        const { store, harness } = opened;
        requireCapability(
          context,
          store.capabilities.crossProcessAppends,
          'crossProcessAppends (RunStore)',
        );
        const runInChild = harness.runInChild;
        if (runInChild === undefined) {
          throw new Error('capabilities.crossProcess needs StoreHarness.runInChild');
        }
        const runId = runIdFor(76);
        await store.append(runId, [headerFor(runId)]);
        const writers = 4;
        const count = 30;
        const results = await Promise.all(
          Array.from({ length: writers }, (_, writer) =>
            runInChild({ kind: 'run-append-race', runId, writer, count }),
          ),
        );
        const read = await store.read(runId);
        expect(read.errors).toEqual([]);
        expect(read.position).toBe(1 + writers * count);
        results.forEach((result, writer) => {
          expect(result.acknowledged.map((ack) => ack.n)).toEqual(
            Array.from({ length: count }, (_, n) => n),
          );
          for (const ack of result.acknowledged) {
            // The acknowledged position is exactly where the record is stored.
            expect(read.records[ack.position - 1]).toEqual(
              raceEvent(runId, writer, ack.n, ack.position - 1),
            );
          }
        });
      });
    });

    describe('damaged data', () => {
      const damage = async (context: Parameters<typeof openStore>[0]) => {
        requireCapability(context, capabilities.runDamage, 'runDamage');
        const opened = await open(context);
        const hooks = opened.harness.damage;
        if (hooks?.appendRawToRun === undefined || hooks.replaceRawRun === undefined) {
          throw new Error(
            'capabilities.runDamage needs damage.appendRawToRun and damage.replaceRawRun',
          );
        }
        return {
          store: opened.store,
          appendRaw: (runId: string, text: string) => hooks.appendRawToRun?.(runId, utf8(text)),
          replaceRaw: (runId: string, text: string) => hooks.replaceRawRun?.(runId, utf8(text)),
        };
      };

      it('repairs a torn tail before the next append: one error, no merged record', async (context) => {
        const { store, appendRaw } = await damage(context);
        const runId = runIdFor(40);
        await store.append(runId, [headerFor(runId), agentEvent(runId, 0)]);
        await appendRaw(runId, '{"type":"agent.event","run_id":"torn');
        await store.append(runId, [agentEvent(runId, 1), agentEvent(runId, 2)]);
        const read = await store.read(runId);
        expect(read.records.map((record) => record.seq ?? 'header')).toEqual(['header', 0, 1, 2]);
        expect(read.errors).toHaveLength(1);
        expect(read.errors[0]?.line).toBe(3);
        expect(read.errors[0]?.message).toContain('not valid JSON');
        const tail = await store.tail(runId, { count: 3 });
        expect(tail.records.map((record) => record.seq)).toEqual([0, 1, 2]);
        expect(tail.errors).toHaveLength(1);
      });

      it('counts a damaged line as an entry: positions and readAfter report it', async (context) => {
        const { store, appendRaw } = await damage(context);
        const runId = runIdFor(44);
        await store.append(runId, [headerFor(runId), agentEvent(runId, 0)]);
        await appendRaw(runId, '{"type":"agent.event","run_id":"cut\n');
        await store.append(runId, [agentEvent(runId, 1)]);
        const read = await store.read(runId);
        expect(read.position).toBe(4);
        const after = await store.readAfter(runId, 2);
        expect(after.errors).toHaveLength(1);
        expect(after.records).toEqual([agentEvent(runId, 1)]);
        expect(after.position).toBe(4);
      });

      it('counts a torn last line in positions only once an append has terminated it', async (context) => {
        requireCapability(context, capabilities.runText, 'runText');
        const { store, appendRaw } = await damage(context);
        const runId = runIdFor(43);
        await store.append(runId, [headerFor(runId), agentEvent(runId, 0)]);
        await appendRaw(runId, '{"type":"agent.event","run_id":"torn');
        const read = await store.read(runId);
        expect(read.errors).toHaveLength(1);
        expect(read.position).toBe(2);
        // Not complete yet: it may still be being written, so a reader after 2 sees nothing.
        expect(await store.readAfter(runId, 2)).toEqual({
          runId,
          records: [],
          errors: [],
          position: 2,
        });
        const receipt = await store.append(runId, [agentEvent(runId, 1)], {
          expectedPosition: 2,
        });
        expect(receipt.position).toBe(4);
        const after = await store.readAfter(runId, 2);
        expect(after.errors).toHaveLength(1);
        expect(after.records).toEqual([agentEvent(runId, 1)]);
        expect(after.position).toBe(4);
        // Damaged lines and blank lines: damaged ones count, blank ones do not.
        await appendRaw(runId, '\n\n  \n\0\0\0\n');
        expect((await store.read(runId)).position).toBe(5);
      });

      it('reads past every kind of damage, reporting exactly the damaged lines', async (context) => {
        const { store, replaceRaw } = await damage(context);
        const runId = runIdFor(41);
        await store.append(runId, [headerFor(runId)]);
        const good = (seq: number) => JSON.stringify(agentEvent(runId, seq));
        const lines = [
          `\uFEFF${JSON.stringify(headerFor(runId))}`,
          good(0),
          '{"type":"agent.event","run_id":"cut mid-str',
          good(1),
          '\0'.repeat(300),
          `${good(2)}\r`,
          JSON.stringify({
            type: 'agent.event',
            run_id: runId,
            ts: '2026-02-03T12:00:00.000Z',
            seq: 'x',
            event: { type: 'a' },
          }),
          '{"type":"agent.event","run_id":"a","ts":"2026-02-03T12:00:00.000Z","seq":9,"event":{"type":"text","content":"\\ud83d"}}',
          `${good(3)}${good(4)}`,
          '',
          JSON.stringify({ type: 'x.future.kind', run_id: runId }),
          good(5),
          '[1,2,3]',
          '{"type":"run.end","run_id":"x","ts":"2026',
        ];
        await replaceRaw(runId, lines.join('\n'));
        const read = await store.read(runId);
        expect(read.header).toEqual(headerFor(runId));
        expect(read.bestEffort).toBe(false);
        expect(read.records.map((record) => record.seq ?? record.type)).toEqual([
          'header',
          0,
          1,
          2,
          'x.future.kind',
          5,
        ]);
        expect(read.errors.map((error) => error.line)).toEqual([3, 5, 7, 8, 9, 13, 14]);
        for (const error of read.errors) expect(error.message.length).toBeGreaterThan(0);
      });

      it('reads a run whose header line is damaged, best-effort', async (context) => {
        const { store, replaceRaw } = await damage(context);
        const runId = runIdFor(42);
        await store.append(runId, [headerFor(runId)]);
        await replaceRaw(runId, `{"type":"header","sch\n${JSON.stringify(agentEvent(runId, 0))}\n`);
        const read = await store.read(runId);
        expect(read.header).toBeNull();
        expect(read.bestEffort).toBe(true);
        expect(read.bestEffortReason).toContain('header');
        expect(read.records).toEqual([agentEvent(runId, 0)]);
        expect(read.errors).toHaveLength(1);
        await expectEpisodicError(store.append(runId, [headerFor(runId)]), 'CONFLICT');
        await store.append(runId, [agentEvent(runId, 1)]);
        expect((await store.read(runId)).records).toHaveLength(2);
      });

      it('lists the good runs and reports exactly one error naming a corrupt one', async (context) => {
        const { store, replaceRaw } = await damage(context);
        for (let index = 0; index < 12; index++) {
          const runId = runIdFor(50 + index);
          await store.append(runId, [
            headerFor(runId, { startedAt: `2026-02-0${1 + (index % 5)}T10:00:00.000Z` }),
          ]);
        }
        const bad = runIdFor(55);
        await replaceRaw(bad, '\uFEFF\0\0\0{"type":"hea');
        const listed = await store.list();
        expect(listed.runs).toHaveLength(11);
        expect(listed.runs.map((run) => run.runId)).not.toContain(bad);
        expect(listed.errors).toHaveLength(1);
        expect(listed.errors[0]?.runId).toBe(bad);
        expect(listed.errors[0]?.location).toContain(bad);
        const bySession = await store.list({ sessionId: SESSION_A });
        expect(bySession.runs).toHaveLength(11);
        expect(bySession.errors).toHaveLength(1);
      });
    });
  });
}
