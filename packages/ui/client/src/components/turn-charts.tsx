// Loaded only by the session charts page (a chunk of its own), with the charting library.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { SessionTraceTurn } from '../../../src/api/trace-types.js';
import { formatCount, formatMs } from './trace-format.js';

interface Line {
  label: string;
  values: Array<number | null>;
  color: string;
  dash: number[];
  /** The y scale: one per unit, a second one for figures of another size. */
  scale: string;
}

const BLUE = '#0b57d0';
const ORANGE = '#b45309';
const GREEN = '#0a6b2d';

/** A line chart of figures by turn number (uPlot on a canvas; its legend is ours, in HTML). */
function Chart(props: {
  id: string;
  title: string;
  summary: string;
  turns: number[];
  lines: Line[];
  format: (value: number) => string;
  /** The label of each y scale's axis. */
  axes: Record<string, string>;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (element === null) return undefined;
    const scales = [...new Set(props.lines.map((line) => line.scale))];
    const plot = new uPlot(
      {
        width: Math.max(320, Math.min(960, element.clientWidth || 720)),
        height: 240,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: false } },
        axes: [
          {
            label: 'turn',
            incrs: [1, 2, 5, 10, 20, 50, 100],
            values: (_plot, values) => values.map((value) => `#${value}`),
          },
          ...scales.map((scale, index) => ({
            scale,
            side: index === 0 ? 3 : 1,
            size: 70,
            label: props.axes[scale] ?? scale,
            grid: { show: index === 0 },
            values: (_plot: uPlot, values: number[]) => values.map((value) => props.format(value)),
          })),
        ],
        series: [
          {},
          ...props.lines.map((line) => ({
            label: line.label,
            scale: line.scale,
            stroke: line.color,
            width: 2,
            dash: line.dash,
            spanGaps: false,
            points: { show: true, size: 7, stroke: line.color, fill: '#fff' },
          })),
        ],
      },
      [props.turns, ...props.lines.map((line) => line.values)] as uPlot.AlignedData,
      element,
    );
    return () => plot.destroy();
  }, [props.turns, props.lines]);
  return (
    <figure class="turn-chart" aria-labelledby={`${props.id}-title`}>
      <figcaption id={`${props.id}-title`}>
        <strong>{props.title}</strong>
        <ul class="chart-legend">
          {props.lines.map((line) => (
            <li key={line.label}>
              <svg width="28" height="10" aria-hidden="true">
                <line
                  x1="0"
                  y1="5"
                  x2="28"
                  y2="5"
                  stroke={line.color}
                  stroke-width="2"
                  stroke-dasharray={line.dash.join(' ')}
                />
              </svg>{' '}
              {line.label}
            </li>
          ))}
        </ul>
      </figcaption>
      <div ref={box} class="chart-canvas" role="img" aria-label={props.summary} />
    </figure>
  );
}

function range(values: Array<number | null>, format: (value: number) => string): string {
  const known = values.filter((value): value is number => value !== null);
  if (known.length === 0) return 'not recorded';
  return `${format(Math.min(...known))} to ${format(Math.max(...known))}`;
}

/** The session's charts: tokens by turn, and latency by turn. */
export function TurnCharts(props: { turns: readonly SessionTraceTurn[] }) {
  const turns = props.turns.map((turn) => turn.number);
  const input = props.turns.map((turn) => turn.totals.tokens?.input ?? null);
  const output = props.turns.map((turn) => turn.totals.tokens?.output ?? null);
  const duration = props.turns.map((turn) => turn.duration_ms);
  const model = props.turns.map((turn) => turn.totals.model_ms);
  const tool = props.turns.map((turn) => turn.totals.tool_ms);
  const count = `${turns.length} turn${turns.length === 1 ? '' : 's'}`;
  return (
    <section aria-labelledby="charts" class="turn-charts">
      <h2 id="charts">Charts</h2>
      <Chart
        id="tokens-chart"
        title="Tokens by turn"
        summary={`Tokens of ${count}: in ${range(input, formatCount)} (left axis), out ${range(output, formatCount)} (right axis).`}
        turns={turns}
        lines={[
          { label: 'tokens in', values: input, color: BLUE, dash: [], scale: 'in' },
          { label: 'tokens out', values: output, color: ORANGE, dash: [6, 4], scale: 'out' },
        ]}
        format={(value) => formatCount(value)}
        axes={{ in: 'tokens in', out: 'tokens out' }}
      />
      <Chart
        id="latency-chart"
        title="Latency by turn"
        summary={`Latency of ${count}: the turn ${range(duration, formatMs)}, its model calls ${range(model, formatMs)}, its tool calls ${range(tool, formatMs)}.`}
        turns={turns}
        lines={[
          { label: 'the turn', values: duration, color: BLUE, dash: [], scale: 'ms' },
          { label: 'in model calls', values: model, color: ORANGE, dash: [6, 4], scale: 'ms' },
          { label: 'in tool calls', values: tool, color: GREEN, dash: [2, 3], scale: 'ms' },
        ]}
        format={(value) => formatMs(value)}
        axes={{ ms: 'latency' }}
      />
    </section>
  );
}
