import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyRunLine } from './classify-run-line.js';
import { fileLines } from './file-lines.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function linesOf(bytes: Buffer) {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-lines-'));
  directories.push(directory);
  const path = join(directory, 'file');
  writeFileSync(path, bytes);
  const fd = openSync(path, 'r');
  try {
    return [...fileLines(fd, bytes.length)];
  } finally {
    closeSync(fd);
  }
}

const record = (seq: number) =>
  JSON.stringify({
    type: 'agent.event',
    run_id: '0f0e0d0c-0b0a-4908-8706-000000000001',
    ts: '2026-02-03T12:00:00.000Z',
    seq,
    event: { type: 'text' },
  });

describe('fileLines', () => {
  it('splits any bytes into the lines between newlines, with their offsets (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (array) => {
        const bytes = Buffer.from(array);
        const lines = linesOf(bytes);
        const rebuilt = Buffer.concat(
          lines.flatMap((line) =>
            line.terminated ? [line.bytes, Buffer.from('\n')] : [line.bytes],
          ),
        );
        expect(rebuilt.equals(bytes)).toBe(true);
        for (const line of lines) {
          expect(
            bytes.subarray(line.byteOffset, line.byteOffset + line.bytes.length).equals(line.bytes),
          ).toBe(true);
          expect(line.bytes.includes(0x0a)).toBe(false);
        }
        expect(lines.map((line) => line.number)).toEqual(lines.map((_, index) => index + 1));
      }),
    );
  });
});

describe('classifyRunLine', () => {
  const classify = (text: string, number = 2, terminated = true) =>
    classifyRunLine({ bytes: Buffer.from(text, 'utf8'), number, byteOffset: 0, terminated });

  it('keeps records, salvages NUL-padded ones, and marks damage', () => {
    expect(classify(record(1)).kind).toBe('record');
    expect(classify(`${record(1)}\r`).kind).toBe('record');
    expect(classify('   ').kind).toBe('blank');
    const salvaged = classify(`\u0000\u0000${record(2)}\u0000`);
    expect(salvaged).toMatchObject({ kind: 'salvaged', text: record(2) });
    expect(classify('{"type":').kind).toBe('damaged');
    expect(classify('{"type":', 3, false)).toMatchObject({
      kind: 'damaged',
      message: expect.stringContaining('torn last line'),
    });
    expect(classify('\u0000'.repeat(10))).toMatchObject({
      kind: 'damaged',
      message: 'a run of 10 NUL bytes',
    });
    expect(
      classifyRunLine({
        bytes: Buffer.from([0x7b, 0xff, 0x7d]),
        number: 2,
        byteOffset: 0,
        terminated: true,
      }),
    ).toMatchObject({
      kind: 'damaged',
      message: 'the line is not valid UTF-8',
    });
  });

  it('never throws, whatever the bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), (array, terminated) => {
        const verdict = classifyRunLine({
          bytes: Buffer.from(array),
          number: 1,
          byteOffset: 0,
          terminated,
        });
        expect(['blank', 'record', 'salvaged', 'damaged']).toContain(verdict.kind);
      }),
    );
  });
});
