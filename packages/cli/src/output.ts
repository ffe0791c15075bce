/** ANSI styles for human output; every function returns its text unchanged when colour is off. */
export interface Styles {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly cyan: (text: string) => string;
}

const plain = (text: string) => text;
const ansi = (open: number, close: number) => (text: string) =>
  `\u001b[${open}m${text}\u001b[${close}m`;

/** Styles that colour (`color: true`) or leave text as it is. */
export function createStyles(color: boolean): Styles {
  if (!color)
    return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    bold: ansi(1, 22),
    dim: ansi(2, 22),
    red: ansi(31, 39),
    green: ansi(32, 39),
    yellow: ansi(33, 39),
    cyan: ansi(36, 39),
  };
}

/**
 * Whether human output may use colour: only on a terminal, never with `--no-color` or a non-empty
 * `NO_COLOR` (https://no-color.org). `FORCE_COLOR` (not `0`) turns it on without a terminal.
 */
export function useColor(
  isTTY: boolean,
  noColorFlag: boolean,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true;
  return isTTY && env.TERM !== 'dumb';
}

// C0 and C1 controls, DEL, bidirectional overrides and isolates, zero-width and tag characters:
// stored text may hold any of them, and a terminal would obey escape sequences or reorder the line.
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/**
 * Makes stored text safe to print on a terminal: newlines and tabs become spaces (or `⏎` with
 * `keepLines: false`), every other control or invisible formatting character becomes a visible
 * `\u{…}` escape. JSON output never needs this (JSON.stringify escapes controls).
 */
export function sanitizeForTerminal(text: string): string {
  return text.replace(UNSAFE, (character) => {
    if (character === '\n' || character === '\r' || character === '\t') return ' ';
    return `\\u{${(character.codePointAt(0) as number).toString(16)}}`;
  });
}

/** Shortens text to `max` characters with an ellipsis (never splitting a surrogate pair). */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** One column of a table. */
export interface Column<Row> {
  readonly header: string;
  readonly value: (row: Row) => string | number | boolean | null | undefined;
  /** Cells longer than this are shortened with `…`. @default 60 */
  readonly max?: number;
  /** Right-align (numbers). */
  readonly align?: 'left' | 'right';
}

/** A plain-text table: a header, then one line per row, columns padded to line up. */
export function renderTable<Row>(
  rows: readonly Row[],
  columns: readonly Column<Row>[],
  styles: Styles,
): string {
  const cells = rows.map((row) =>
    columns.map((column) => {
      const raw = column.value(row);
      const text = raw === null || raw === undefined ? '' : sanitizeForTerminal(String(raw));
      return truncate(text, column.max ?? 60);
    }),
  );
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...cells.map((line) => (line[index] as string).length)),
  );
  const pad = (text: string, index: number) => {
    const width = widths[index] as number;
    return columns[index]?.align === 'right' ? text.padStart(width) : text.padEnd(width);
  };
  const header = columns
    .map((column, index) => pad(column.header, index))
    .join('  ')
    .trimEnd();
  const lines = cells.map((line) =>
    line
      .map((cell, index) => pad(cell, index))
      .join('  ')
      .trimEnd(),
  );
  return `${styles.bold(header)}\n${lines.join('\n')}${lines.length > 0 ? '\n' : ''}`;
}

/** `key  value` lines, keys padded to line up. Values are sanitized. */
export function renderFields(
  fields: ReadonlyArray<readonly [string, string | number | boolean | null | undefined]>,
  styles: Styles,
): string {
  const shown = fields.filter(([, value]) => value !== undefined);
  const width = Math.max(0, ...shown.map(([key]) => key.length));
  return shown
    .map(
      ([key, value]) =>
        `${styles.dim(key.padEnd(width))}  ${value === null ? '—' : sanitizeForTerminal(String(value))}`,
    )
    .join('\n')
    .concat(shown.length > 0 ? '\n' : '');
}

/** A timestamp in epoch milliseconds as ISO 8601 (or the number itself when out of range). */
export function formatTsMs(tsMs: number): string {
  const date = new Date(tsMs);
  return Number.isNaN(date.getTime()) ? String(tsMs) : date.toISOString();
}
