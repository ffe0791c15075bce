import type { RowResult, SideResult } from './result.js';

function number(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const magnitude = Math.abs(value);
  if (magnitude >= 100) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 10) return value.toFixed(1);
  // Tiny ratios keep two significant digits (0.0051×, not 0.00×).
  if (magnitude > 0 && magnitude < 0.01) return value.toPrecision(2);
  return value.toFixed(2);
}

/** `0.84×`, `0.0051×` (as the table prints ratios). */
export function formatRatio(value: number): string {
  return `${number(value)}×`;
}

function withUnit(value: number, unit: string): string {
  if (unit === '%') return `${number(value)} %`;
  if (unit === '×') return `${number(value)}×`;
  return `${number(value)} ${unit}`;
}

function short(unit: string | undefined): string {
  return (unit ?? '').split(' ')[0] ?? '';
}

function sideLines(
  side: SideResult | undefined,
  unit: string,
  latencyUnit?: string,
): [string, string] {
  if (side === undefined) return ['', ''];
  const first = withUnit(side.metric.median, unit);
  const range = side.metric.n > 1 ? `[${number(side.metric.min)}–${number(side.metric.max)}]` : '';
  const latency =
    side.latency === undefined
      ? ''
      : ` p50 ${number(side.latency.median)} p99 ${number(side.latency.p99)} ${short(latencyUnit)}`;
  return [first, `${range}${latency}`.trim()];
}

function pad(text: string, width: number): string {
  return text.length >= width ? `${text} ` : text.padEnd(width);
}

const RESULT: Record<RowResult['status'], string> = {
  pass: 'ok',
  miss: 'MISS',
  info: 'info',
  unavailable: 'n/a',
  error: 'ERROR',
};

/** The stdout table: two lines per row (medians, then ranges and latency percentiles). */
export function formatTable(rows: readonly RowResult[]): string {
  const longestId = rows.reduce((longest, row) => Math.max(longest, row.id.length), 0);
  const longestMode = rows.reduce((longest, row) => Math.max(longest, row.mode.length), 0);
  const widths = [Math.max(30, longestId + 2), Math.max(20, longestMode + 2), 36, 36, 16, 50];
  const header = ['row', 'mode', 'product (median)', 'probe (median)', 'product/probe', 'target'];
  const lines: string[] = [];
  lines.push(`${header.map((cell, index) => pad(cell, widths[index] as number)).join('')}result`);
  lines.push('-'.repeat(widths.reduce((sum, width) => sum + width, 0) + 6));
  for (const row of rows) {
    const [product, productDetail] = sideLines(row.productResult, row.metric.unit, row.latencyUnit);
    const [probe, probeDetail] = sideLines(row.probeResult, row.metric.unit, row.latencyUnit);
    const ratio = row.ratio === undefined ? '' : `${number(row.ratio.median)}×`;
    const ratioRange =
      row.ratio === undefined || row.ratio.n < 2
        ? ''
        : `[${number(row.ratio.min)}–${number(row.ratio.max)}]`;
    const target = row.target;
    const first = [row.id, row.mode, product, probe, ratio, target];
    lines.push(
      first.map((cell, index) => pad(cell, widths[index] as number)).join('') + RESULT[row.status],
    );
    const second = ['', '', productDetail, probeDetail, ratioRange, ''];
    if (second.some((cell) => cell !== ''))
      lines.push(
        second
          .map((cell, index) => pad(cell, widths[index] as number))
          .join('')
          .trimEnd(),
      );
  }
  return lines.join('\n');
}

/** Notes and checks under the table: durability in full, failed checks, why a row is n/a. */
export function formatNotes(rows: readonly RowResult[]): string {
  const lines: string[] = [];
  for (const row of rows) {
    lines.push(`${row.id} (${row.status}): ${row.title}`);
    lines.push(`    durability: ${row.durability}; data: ${row.dataset}`);
    for (const entry of row.checks) {
      const actual = `${number(entry.actual)}`;
      lines.push(
        `    ${entry.pass ? 'ok  ' : 'MISS'} ${entry.label} (actual ${actual}${entry.kind === 'absolute' ? ', absolute bound' : ''})`,
      );
    }
    for (const note of row.notes) lines.push(`    note: ${note}`);
  }
  return lines.join('\n');
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** The same rows as a Markdown table (for bench/README.md). */
export function formatMarkdown(rows: readonly RowResult[]): string {
  const lines = [
    '| row | durability | product (median; p50 / p99) | probe (median; p50 / p99) | product/probe (median [min–max]) | target | result |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const side = (result: RowResult['productResult']) => {
      if (result === undefined) return '';
      const [first, detail] = sideLines(result, row.metric.unit, row.latencyUnit);
      return detail === '' ? first : `${first} ${detail}`;
    };
    const ratio =
      row.ratio === undefined
        ? ''
        : `${number(row.ratio.median)}× [${number(row.ratio.min)}–${number(row.ratio.max)}]`;
    const failed = row.checks.filter((entry) => !entry.pass).map((entry) => entry.label);
    const result = row.status === 'miss' ? `**miss** (${failed.join('; ')})` : RESULT[row.status];
    lines.push(
      `| \`${row.id}\` | ${cell(row.mode)} | ${cell(side(row.productResult))} | ${cell(side(row.probeResult))} | ${ratio} | ${cell(row.target)} | ${cell(result)} |`,
    );
  }
  return lines.join('\n');
}
