import { isBlankRunLine } from '../core-kit.js';

/** Where one entry of a run's JSONL text ends: the offset after its newline, and its line number. */
export interface RunEntryEnd {
  readonly offset: number;
  readonly line: number;
}

/**
 * The entries of a run stored as JSONL text: one per complete, non-blank line (a torn last line
 * without its newline is no entry yet). `ends.length` is the run's position.
 */
export function runEntryEnds(text: string): RunEntryEnd[] {
  const ends: RunEntryEnd[] = [];
  let start = 0;
  let line = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    if (end === -1) return ends;
    line++;
    if (!isBlankRunLine(text.slice(start, end), line === 1)) ends.push({ offset: end + 1, line });
    start = end + 1;
  }
}

/** The run's text with `lines` appended; a torn last line is terminated first, so it stays one bad line. */
export function appendLines(text: string, lines: readonly string[]): string {
  const head = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  return head + lines.map((line) => `${line}\n`).join('');
}

/** The first line of a run's text: its header, when the run is readable. */
export function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end === -1 ? text : text.slice(0, end);
}
