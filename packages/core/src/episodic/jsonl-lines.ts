/** One non-blank line of a JSONL text, with its 1-based line number. */
export interface JsonlLine {
  readonly lineNumber: number;
  readonly text: string;
}

/** True when the line holds nothing but NUL bytes (a torn write padded by the filesystem). */
export function isNulRun(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) !== 0) return false;
  return text.length > 0;
}

/**
 * Splits JSONL text into lines the way every Episodic reader does: a leading BOM is dropped, CRLF
 * and LF both end a line, NUL padding around a line is trimmed, and blank lines are skipped. A line
 * made only of NULs is kept (it is damage the caller must report).
 */
export function splitJsonlLines(text: string): JsonlLine[] {
  const lines: JsonlLine[] = [];
  forEachJsonlLine(text, (line, lineNumber) => {
    lines.push({ lineNumber, text: line });
  });
  return lines;
}

/**
 * Calls `visit` with each line `splitJsonlLines` would return, in order, without building the
 * list (a restore of a million lines would otherwise hold a million line objects at once).
 */
export function forEachJsonlLine(
  text: string,
  visit: (line: string, lineNumber: number) => void,
): void {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let lineNumber = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNumber++;
    const line = trimLine(text.slice(start, end));
    if (line !== '') visit(line, lineNumber);
    start = end + 1;
  }
}

function trimLine(raw: string): string {
  // Fast path: an ordinary record line.
  if (raw.charCodeAt(0) === 0x7b && raw.charCodeAt(raw.length - 1) === 0x7d) return raw;
  let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (line.length > 0 && (line.charCodeAt(0) === 0 || line.charCodeAt(line.length - 1) === 0)) {
    const trimmed = line.replace(/^\0+|\0+$/g, '');
    if (trimmed === '') return line;
    line = trimmed;
  }
  return line.trim();
}
