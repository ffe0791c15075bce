/** ANSI styles for human output; every function returns its text unchanged when colour is off. */
export interface Styles {
  /**
   * The terminal's width in columns, when tables should fit it (stdout is a terminal, or
   * `COLUMNS` is set); undefined when output goes to a pipe or a file (nothing is cut then).
   */
  readonly width?: number | undefined;
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

/** Styles that colour (`color: true`) or leave text as it is; tables fit `width` when given. */
export function createStyles(color: boolean, width?: number): Styles {
  if (!color)
    return { width, bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    width,
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
  /** Never shorten this column to fit the terminal (ids people copy). @default false */
  readonly fixed?: boolean;
  /** Colours a cell's text (padding stays outside, so columns line up). */
  readonly style?: (text: string, row: Row) => string;
}

const GAP = 2;
/** A shortened column keeps at least this many characters (or its header's length). */
const MIN_WIDTH = 6;

/**
 * Column widths that fit `width`: fixed columns keep their width; the others give up characters,
 * the widest first, down to their minimum (a table that cannot fit at the minimums overflows).
 */
export function fitColumnWidths(
  natural: readonly number[],
  minimums: readonly number[],
  fixed: readonly boolean[],
  width: number | undefined,
): number[] {
  const total = natural.reduce((sum, value) => sum + value, 0) + GAP * (natural.length - 1);
  if (width === undefined || total <= width) return [...natural];
  const budget =
    width -
    GAP * (natural.length - 1) -
    natural.reduce((sum, value, index) => sum + (fixed[index] ? value : 0), 0);
  const sized = (cap: number) =>
    natural.map((value, index) =>
      fixed[index] ? value : Math.min(value, Math.max(cap, minimums[index] as number)),
    );
  const flexible = (cap: number) =>
    sized(cap).reduce((sum, value, index) => sum + (fixed[index] ? 0 : value), 0);
  // The largest cap whose widths fit (the widest columns are cut first).
  let low = 0;
  let high = Math.max(0, ...natural);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (flexible(middle) <= budget) low = middle;
    else high = middle - 1;
  }
  return sized(low);
}

/**
 * A plain-text table: a header, then one line per row, columns padded to line up. Cells longer
 * than their column's `max` are shortened with `…`, and so are the widest columns when the table
 * would be wider than the terminal (`styles.width`).
 */
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
  const widths = fitColumnWidths(
    columns.map((column, index) =>
      Math.max(column.header.length, ...cells.map((line) => (line[index] as string).length)),
    ),
    columns.map((column) => Math.max(column.header.length, MIN_WIDTH)),
    columns.map((column) => column.fixed === true),
    styles.width,
  );
  const pad = (text: string, index: number, style?: (cut: string) => string) => {
    const width = widths[index] as number;
    const cut = truncate(text, width);
    const fill = ' '.repeat(Math.max(0, width - cut.length));
    const shown = style === undefined ? cut : style(cut);
    return columns[index]?.align === 'right' ? fill + shown : shown + fill;
  };
  const header = columns
    .map((column, index) => pad(column.header, index))
    .join(' '.repeat(GAP))
    .trimEnd();
  const lines = cells.map((line, rowIndex) =>
    line
      .map((cell, index) => {
        const style = columns[index]?.style;
        const row = rows[rowIndex] as Row;
        return pad(cell, index, style === undefined ? undefined : (cut) => style(cut, row));
      })
      .join(' '.repeat(GAP))
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
