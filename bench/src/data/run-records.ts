import type { RunRecord } from '@episodic/core';
import { createRandom, prose } from './text.js';

/** The session every benchmark run belongs to. */
const BENCH_SESSION_ID = '5b0d1a8e-2c3f-4a5b-8c6d-000000000001';

/** A deterministic, lowercase UUIDv4-shaped run id: `family` picks the data set, `index` the run. */
export function benchRunId(family: number, index: number): string {
  const hex = index.toString(16).padStart(12, '0');
  return `be0c0000-${family.toString(16).padStart(4, '0')}-4000-8000-${hex}`;
}

export function runHeader(runId: string): RunRecord {
  return {
    type: 'header',
    schema_version: 1,
    run_id: runId,
    session_id: BENCH_SESSION_ID,
    started_at: '2026-02-03T12:00:00.000Z',
    client: { name: 'episodic-bench', version: '1.0.0' },
    model: { provider: 'bench', name: 'bench-model' },
    runtime: { cwd: '/work/project', os: 'linux' },
  };
}

function timestamp(seq: number): string {
  const millis = seq % 1000;
  const seconds = Math.floor(seq / 1000) % 60;
  const minutes = Math.floor(seq / 60_000) % 60;
  return `2026-02-03T12:${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}.${String(millis).padStart(3, '0')}Z`;
}

/**
 * The `seq`-th record of a run, about 1 KB as JSON: six in ten are agent events, two tool
 * outputs, one an llm.request and one an llm.response, so reads validate several schemas.
 */
function runRecord(runId: string, seq: number, random: () => number): RunRecord {
  const ts = timestamp(seq);
  switch (seq % 10) {
    case 6:
    case 7:
      return {
        type: 'tool.output',
        run_id: runId,
        ts,
        tool: 'read_file',
        tool_call_id: `call_${seq}`,
        result_raw: prose(random, 820),
        is_error: false,
      };
    case 8:
      return {
        type: 'llm.request',
        run_id: runId,
        ts,
        seq,
        model: { provider: 'bench', name: 'bench-model' },
        input: {
          messages: [
            { role: 'system', content: prose(random, 120) },
            { role: 'user', content: prose(random, 640) },
          ],
          tools: null,
        },
      };
    case 9:
      return {
        type: 'llm.response',
        run_id: runId,
        ts,
        seq: seq - 1,
        output: {
          messages: [{ role: 'assistant', content: prose(random, 700) }],
          usage: {
            model: 'bench-model',
            input_tokens: 1200,
            output_tokens: 180,
            total_tokens: 1380,
          },
          stop_reason: 'stop',
        },
      };
    default:
      return {
        type: 'agent.event',
        run_id: runId,
        ts,
        seq,
        event: { type: 'text', content: prose(random, 860) },
      };
  }
}

/** `count` records of a run, starting at `firstSeq`, from a seeded generator. */
export function runRecords(runId: string, firstSeq: number, count: number, seed = 1): RunRecord[] {
  const random = createRandom(seed + firstSeq);
  const records: RunRecord[] = new Array(count);
  for (let index = 0; index < count; index++)
    records[index] = runRecord(runId, firstSeq + index, random);
  return records;
}
