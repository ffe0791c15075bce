import type { RowResult, SideResult } from './result.js';

function milliseconds(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  if (value >= 10) return `${Math.round(value)} ms`;
  if (value >= 1) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

function ratio(row: RowResult | undefined): string {
  const value = row?.ratio?.median;
  if (value === undefined || !Number.isFinite(value)) return '–';
  if (value < 0.01) return `${value.toFixed(3)}×`;
  if (value < 10) return `${value.toFixed(2)}×`;
  return `${Math.round(value).toLocaleString('en-US')}×`;
}

const median = (side: SideResult | undefined) => side?.metric.median;

/**
 * The peer rows (`peers.<operation>.<N>.<store>-vs-<peer>`) as one Markdown table: each system's
 * median time per operation and N, and Episodic's time ratio to each peer. Empty when there are
 * no peer rows.
 */
export function formatPeerSummary(rows: readonly RowResult[]): string {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const keys: string[] = [];
  for (const row of rows) {
    const match = /^peers\.(turn|load)\.([^.]+)\./.exec(row.id);
    const key = match === null ? null : `${match[1]}.${match[2]}`;
    if (key !== null && !keys.includes(key)) keys.push(key);
  }
  if (keys.length === 0) return '';
  const lines = [
    '| operation | N | Episodic fs | Episodic SQLite | LangGraph | Mastra | fs / LangGraph | SQLite / LangGraph | fs / Mastra | SQLite / Mastra |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const key of keys) {
    const [operation, size] = key.split('.') as [string, string];
    const row = (store: string, peer: string) => byId.get(`peers.${key}.${store}-vs-${peer}`);
    const fs = median(row('fs', 'langgraph')?.productResult ?? row('fs', 'mastra')?.productResult);
    const sqlite = median(
      row('sqlite', 'langgraph')?.productResult ?? row('sqlite', 'mastra')?.productResult,
    );
    const langGraph = median(row('fs', 'langgraph')?.probeResult);
    const mastra = median(row('fs', 'mastra')?.probeResult);
    lines.push(
      `| ${operation} | ${size} | ${milliseconds(fs)} | ${milliseconds(sqlite)} | ${milliseconds(langGraph)} | ${milliseconds(mastra)} | ${ratio(row('fs', 'langgraph'))} | ${ratio(row('sqlite', 'langgraph'))} | ${ratio(row('fs', 'mastra'))} | ${ratio(row('sqlite', 'mastra'))} |`,
    );
  }
  return lines.join('\n');
}
