import { isUtf8 } from 'node:buffer';
import type { RunRecord } from '@episodic/core';
import { readRunLine } from '@episodic/core/adapter';
import type { FileLine } from './file-lines.js';

/** What doctor makes of one line of a run file. */
export type LineVerdict =
  | { readonly kind: 'blank' }
  /** A readable record, stored as it should be: kept byte for byte. */
  | { readonly kind: 'record'; readonly record: RunRecord }
  /** A readable record around damage (NUL padding): kept as `text`, the original is quarantined. */
  | {
      readonly kind: 'salvaged';
      readonly record: RunRecord;
      readonly text: string;
      readonly message: string;
    }
  /** Not a record: quarantined and removed by `--fix`. */
  | { readonly kind: 'damaged'; readonly message: string };

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL padding is what is trimmed
const PADDING = /^[\u0000\s\ufeff]+|[\u0000\s]+$/g;

/** Classifies one line with core's tolerant reader (the same rules every run store reads with). */
export function classifyRunLine(line: FileLine): LineVerdict {
  const text = line.bytes.toString('utf8');
  if (text.includes('\uFFFD') && !isUtf8(line.bytes)) {
    return { kind: 'damaged', message: 'the line is not valid UTF-8' };
  }
  const read = readRunLine(text, line.number === 1);
  if (read.kind === 'blank') return { kind: 'blank' };
  if (read.kind === 'damaged') {
    return {
      kind: 'damaged',
      message: line.terminated
        ? read.message
        : `torn last line (the writer stopped mid-record): ${read.message}`,
    };
  }
  if (read.damage !== undefined) {
    const cleaned = text.replace(PADDING, '');
    const check = readRunLine(cleaned, line.number === 1);
    return {
      kind: 'salvaged',
      record: read.record,
      text:
        check.kind === 'record' && check.damage === undefined
          ? cleaned
          : JSON.stringify(read.record),
      message: read.damage,
    };
  }
  return { kind: 'record', record: read.record };
}
