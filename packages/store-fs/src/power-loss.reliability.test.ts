// Pins the durability promise of run files per mode against a simulated power loss, and the
// reader's recovery of what a power loss leaves (research/reliability.md finding 2, §3 "fsync
// discipline", test plan T8, after SQLite's crash VFS and TH3; DESIGN.md §4: "Durability is a
// documented option"; QUALITY.md rows "kill -9 the writer … 0 lost acknowledged records (under
// `always`) … each torn tail = exactly 1 error report" and "damaged file corpus … errors = damaged
// lines exactly"). A kill -9 cannot lose what `write()` returned (the page cache survives it), so
// only a power loss tests the fsyncs; this test simulates one behind the writer's I/O interface
// (`__fixtures__/crash-io.ts`): the power goes before a random write or sync, the synced prefix of
// the file survives, and of the unsynced tail a random part survives, cut at a sector boundary or
// at any byte, with random sectors replaced by NULs and possibly NULs after it. Then the store is
// reopened with the real file system, one record is appended and the run is read. Pass figures:
// - `always`: 0 lost acknowledged records; `run`: 0 lost records acknowledged up to the last
//   acknowledged run.end (its fsync); every mode: 0 lost records inside the synced prefix;
// - 0 invented, duplicated or reordered records;
// - exactly one error per damaged line (oracle: the file's lines, byte for byte), every intact
//   line returned, the record appended after reopening readable (the torn tail was repaired).
// 120 crash states per `pnpm test`; RELIABILITY_FULL=1 runs 500 (T8). The seed is printed and
// replayable (FC_SEED / FC_PATH).
import * as fs from 'node:fs';
import { EpisodicError, type RunRecord } from '@episodic/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bytesAfterPowerLoss,
  createCrashIo,
  type Damage,
  PowerLoss,
} from './__fixtures__/crash-io.js';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { fuzzParameters } from './__fixtures__/fuzz.js';
import { createFsStore } from './index.js';

type Mode = 'none' | 'run' | 'always';
interface Spec {
  length: number;
  unit: string;
  end: boolean;
}

const TS = '2026-03-04T05:06:07.000Z';
const directory = temporaryDirectory('episodic-power-loss-');
afterAll(() => directory.remove());

let runCounter = 0;
const nextRunId = () => `8e7d6c5b-4a39-4281-9706-${(++runCounter).toString(16).padStart(12, '0')}`;

const specArbitrary: fc.Arbitrary<Spec> = fc.record({
  length: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 200, max: 3000 })),
  unit: fc.constantFrom('a', 'é', '🙂', '"\\', 'x\ny'),
  end: fc.integer({ min: 0, max: 4 }).map((value) => value === 0),
});
const damageArbitrary = fc.record({
  keep: fc.constantFrom('none', 'all', 'sector', 'byte') as fc.Arbitrary<Damage['keep']>,
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  zeroSectors: fc.constantFrom(0, 0, 0.3),
  nulTail: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1024 })),
  seed: fc.integer(),
});

/** A tiny deterministic PRNG, so a replayed seed damages the same sectors. */
function prng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

function recordOf(runId: string, index: number, spec: Spec): RunRecord {
  if (spec.end) {
    return { type: 'run.end', run_id: runId, ts: TS, outcome: 'completed', final: `end ${index}` };
  }
  const pad = spec.unit.repeat(Math.ceil(spec.length / spec.unit.length));
  return { type: 'x.test.write', run_id: runId, ts: TS, index, pad };
}

/** Splits bytes into lines (without their `\n`), with the offset of each line's start. */
function linesOf(bytes: Buffer): Array<{ start: number; bytes: Buffer; complete: boolean }> {
  const lines: Array<{ start: number; bytes: Buffer; complete: boolean }> = [];
  let start = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    lines.push({ start, bytes: bytes.subarray(start, end), complete: newline !== -1 });
    start = end + 1;
  }
  return lines;
}

function stripNuls(bytes: Buffer): Buffer {
  let start = 0;
  let end = bytes.length;
  while (start < end && bytes[start] === 0) start++;
  while (end > start && bytes[end - 1] === 0) end--;
  return bytes.subarray(start, end);
}

function causedByPowerLoss(error: unknown): boolean {
  return EpisodicError.hasCode(error, 'STORAGE_ERROR') && error.cause instanceof PowerLoss;
}

describe('run files under a simulated power loss', () => {
  it('keep what each durability mode promises, invent nothing, and report each damaged line once', async () => {
    const parameters = fuzzParameters('power loss', 200, 2_000);
    const seen = { crashed: 0, damagedLines: 0, lostUnsynced: 0, modes: new Set<Mode>() };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Mode>('none', 'run', 'always'),
        fc.array(fc.array(specArbitrary, { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.integer({ min: 1, max: 60 }),
        damageArbitrary,
        async (mode, groups, crashAt, damageInput) => {
          seen.modes.add(mode);
          const runId = nextRunId();
          const crash = createCrashIo(crashAt);
          const store = createFsStore({ root: directory.path, durability: mode, io: crash.io });
          const header: RunRecord = {
            type: 'header',
            schema_version: 1,
            run_id: runId,
            started_at: TS,
          };
          const written: RunRecord[] = [header];
          const acked = new Set<number>();
          const failures: unknown[] = [];
          const append = (index: number, record: RunRecord) =>
            store.runs.append(runId, [record]).then(
              () => acked.add(index),
              (error: unknown) => failures.push(error),
            );
          await append(0, header);
          for (const group of groups) {
            if (crash.crashed) break;
            const pending = group.map((spec) => {
              const index = written.length;
              const record = recordOf(runId, index, spec);
              written.push(record);
              return append(index, record);
            });
            await Promise.all(pending);
          }
          if (crash.crashed) seen.crashed++;
          const snapshot = crash.crash();
          await store.close();
          // Every failure is the power loss, reported as a typed storage error.
          for (const error of failures) expect(causedByPowerLoss(error), String(error)).toBe(true);

          const [file] = snapshot;
          if (file === undefined) throw new Error('the run file was never opened');
          expect(snapshot).toHaveLength(1);
          const damage: Damage = { ...damageInput, random: prng(damageInput.seed) };
          const survived = bytesAfterPowerLoss(file, damage);
          if (survived.length < file.bytes.length) seen.lostUnsynced++;
          fs.writeFileSync(file.path, survived);

          const jsonOf = written.map((record) => JSON.stringify(record));
          const indexOfJson = new Map(jsonOf.map((json, index) => [json, index]));
          // Which records the synced prefix held in full: those must survive in every mode.
          const mustSurvive = new Set<number>();
          for (const line of linesOf(file.bytes)) {
            if (!line.complete || line.start + line.bytes.length >= file.syncedLength) continue;
            const index = indexOfJson.get(line.bytes.toString('utf8'));
            if (index !== undefined) mustSurvive.add(index);
          }
          if (mode === 'always') for (const index of acked) mustSurvive.add(index);
          if (mode === 'run') {
            const lastEnd = Math.max(
              -1,
              ...[...acked].filter((index) => written[index]?.type === 'run.end'),
            );
            for (const index of acked) if (index <= lastEnd) mustSurvive.add(index);
          }

          const reopened = createFsStore({ root: directory.path, durability: 'none' });
          try {
            const marker: RunRecord = { type: 'x.test.marker', run_id: runId, ts: TS };
            await reopened.runs.append(runId, [marker]);
            const read = await reopened.runs.read(runId);
            const listed = await reopened.runs.list();
            expect(listed.runs.length + listed.errors.length).toBe(1);

            // The oracle: the file's own lines, byte for byte.
            const finalBytes = fs.readFileSync(file.path);
            const expectedRecords: RunRecord[] = [];
            const expectedErrors: number[] = [];
            linesOf(finalBytes).forEach((line, position) => {
              if (line.bytes.length === 0) return;
              const core = stripNuls(line.bytes);
              const text = core.toString('utf8');
              const index = indexOfJson.get(text);
              const record =
                index !== undefined
                  ? written[index]
                  : text === JSON.stringify(marker)
                    ? marker
                    : undefined;
              if (record !== undefined) expectedRecords.push(record);
              if (record === undefined || core.length !== line.bytes.length) {
                expectedErrors.push(position + 1);
              }
            });
            seen.damagedLines += expectedErrors.length;
            expect(read.records).toEqual(expectedRecords);
            expect(read.errors.map((error) => error.line)).toEqual(expectedErrors);
            expect(read.records.at(-1)).toEqual(marker);

            // Nothing invented, duplicated or reordered; nothing promised lost.
            const indices = read.records.slice(0, -1).map((record) => {
              const index = indexOfJson.get(JSON.stringify(record));
              expect(index, JSON.stringify(record).slice(0, 80)).toBeDefined();
              return index as number;
            });
            for (let position = 1; position < indices.length; position++) {
              expect(indices[position]).toBeGreaterThan(indices[position - 1] as number);
            }
            const present = new Set(indices);
            for (const index of mustSurvive) {
              expect(present.has(index), `${mode}: record ${index} was promised`).toBe(true);
            }
            if (mustSurvive.has(0)) expect(read.header).toEqual(header);
          } finally {
            await reopened.close();
            // Each case leaves the directory as it found it, failing or not (shrinking reruns cases).
            fs.rmSync(file.path, { force: true });
          }
        },
      ),
      parameters,
    );
    // The campaign really crashed mid-run, lost unsynced bytes and met damaged lines (not
    // checked when replaying one counterexample with FC_PATH).
    if (parameters.path !== undefined) return;
    console.log(
      `[figures] power loss: ${parameters.numRuns} crash states (${seen.crashed} mid-run, ${seen.lostUnsynced} lost unsynced bytes), ${seen.damagedLines} damaged lines each reported once, 0 promised records lost`,
    );
    expect(seen.modes.size).toBe(3);
    expect(seen.crashed).toBeGreaterThan(parameters.numRuns / 4);
    expect(seen.lostUnsynced).toBeGreaterThan(0);
    expect(seen.damagedLines).toBeGreaterThan(0);
  }, 600_000);
});
