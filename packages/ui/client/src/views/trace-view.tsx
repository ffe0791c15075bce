import { useState } from 'preact/hooks';
import type { RunTraceResponse, TraceSpan } from '../../../src/api/trace-types.js';
import { useApi } from '../api.js';
import { Fields, IdLink, Loading, ShortId, StatusBadge, Time } from '../components/bits.js';
import { Link } from '../components/link.js';
import { formatCount, formatMs } from '../components/trace-format.js';
import { href, type Route } from '../router.js';
import '../trace.css';

const BAR_WIDTH = 320;

/** Where a span sits on the time axis, in words (the bar itself is decoration). */
function whenText(span: TraceSpan): string {
  if (span.start_ms === null && span.end_ms === null) return 'not timed';
  if (span.start_ms === null) return `answered at +${formatMs(span.end_ms)}`;
  if (span.end_ms === null) return `from +${formatMs(span.start_ms)}, no end recorded`;
  return `+${formatMs(span.start_ms)}`;
}

/** The span's timing bar: its start offset and duration on the trace's axis (SVG: no inline style under the CSP). */
function TimingBar(props: { span: TraceSpan; extent: number }) {
  const { span, extent } = props;
  if (span.start_ms === null && span.end_ms === null) return null;
  const scale = (ms: number) => (extent <= 0 ? 0 : (ms / extent) * BAR_WIDTH);
  let x: number;
  let width: number;
  let shape = 'bar';
  if (span.start_ms === null) {
    // Only its end is known (a model call imported without its request): a tick at the answer.
    x = scale(span.end_ms as number) - 1.5;
    width = 3;
    shape = 'tick';
  } else if (span.end_ms === null) {
    x = scale(span.start_ms);
    width = Math.max(3, BAR_WIDTH - x);
    shape = 'unended';
  } else {
    x = scale(span.start_ms);
    width = Math.max(3, scale(span.end_ms) - x);
  }
  return (
    <svg
      class={`timing kind-${span.kind} status-${span.status} ${shape}`}
      width={BAR_WIDTH}
      height="14"
      aria-hidden="true"
    >
      <rect x="0" y="6" width={BAR_WIDTH} height="2" class="timing-track" />
      <rect
        x={Math.max(0, Math.min(BAR_WIDTH - width, x))}
        y="1"
        width={width}
        height="12"
        class="timing-fill"
      />
    </svg>
  );
}

function SpanRows(props: {
  span: TraceSpan;
  depth: number;
  runId: string;
  extent: number;
  collapsed: ReadonlySet<string>;
  toggle: (id: string) => void;
}) {
  const { span, depth, runId, collapsed } = props;
  const open = !collapsed.has(span.id);
  const label =
    span.kind === 'tool' ? `tool ${span.name}` : span.kind === 'error' ? 'run error' : span.name;
  return (
    <>
      <tr
        class={`span span-${span.kind} ${span.status === 'error' ? 'row-error' : ''}`}
        id={`span-${span.id.replace(/[^A-Za-z0-9_-]/g, '_')}`}
      >
        <th scope="row" class={`span-name depth-${Math.min(depth, 4)}`}>
          {span.children.length > 0 ? (
            <button
              type="button"
              class="toggle"
              aria-expanded={open}
              aria-label={`${open ? 'Collapse' : 'Expand'} ${label} (${span.children.length} inside)`}
              onClick={() => props.toggle(span.id)}
            >
              {open ? '▾' : '▸'}
            </button>
          ) : (
            <span class="toggle-space" />
          )}
          {span.record_index === null ? (
            <span>{label}</span>
          ) : (
            <Link href={href(`/runs/${runId}`, { from: span.record_index })}>{label}</Link>
          )}
          {span.requested_by !== null && (
            <span class="muted"> · asked by model call #{span.requested_by}</span>
          )}
          {span.detail !== null && span.kind !== 'error' && (
            <span class="span-detail muted">{span.detail}</span>
          )}
        </th>
        <td class="span-bar">
          <TimingBar span={span} extent={props.extent} />
        </td>
        <td class="number">{whenText(span)}</td>
        <td class="number">{formatMs(span.duration_ms)}</td>
        <td class="number">
          {span.tokens === null
            ? span.kind === 'model'
              ? '—'
              : ''
            : `${formatCount(span.tokens.input)} in / ${formatCount(span.tokens.output)} out${
                span.tokens.cached === null ? '' : ` (${formatCount(span.tokens.cached)} cached)`
              }`}
        </td>
        <td class="span-status">
          {span.status === 'error' && (
            <>
              <span class="badge status-failed">error</span>{' '}
              {span.error !== null && <strong class="span-error">{span.error}</strong>}
            </>
          )}
          {span.status === 'open' && <span class="badge status-running">no end</span>}
          {span.missing.length > 0 && (
            <ul class="span-missing">
              {span.missing.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
        </td>
      </tr>
      {open &&
        span.children.map((child) => (
          <SpanRows
            key={child.id}
            span={child}
            depth={depth + 1}
            runId={runId}
            extent={props.extent}
            collapsed={collapsed}
            toggle={props.toggle}
          />
        ))}
    </>
  );
}

/** The trace of a run or one of its turns: model and tool calls as a tree with timing bars, tokens and errors. */
export function TraceView(props: { route: Route; runId: string }) {
  const turn = props.route.query.get('turn');
  const loaded = useApi<RunTraceResponse>(href(`runs/${props.runId}/trace`, { turn }));
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setCollapsed((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <Loading loaded={loaded}>
      {(trace) => {
        const { totals } = trace;
        return (
          <>
            <h1>
              Trace of {trace.turn_id === null ? 'run' : 'turn'}{' '}
              <ShortId id={trace.turn_id ?? trace.run_id} /> <StatusBadge status={trace.status} />
            </h1>
            <Fields
              fields={[
                ['run', <IdLink key="r" to="runs" id={trace.run_id} />],
                [
                  'session',
                  trace.session_id === null ? null : (
                    <span key="s">
                      <IdLink to="sessions" id={trace.session_id} /> ·{' '}
                      <Link href={`/sessions/${trace.session_id}/trace`}>
                        tokens and latency by turn
                      </Link>
                    </span>
                  ),
                ],
                ['started', <Time key="t" value={trace.origin} />],
                ['model calls', totals.model_calls],
                ['tool calls', totals.tool_calls],
                [
                  'tokens',
                  totals.tokens === null
                    ? 'not reported'
                    : `${formatCount(totals.tokens.input)} in / ${formatCount(totals.tokens.output)} out${
                        totals.tokens.cached === null
                          ? ''
                          : ` (${formatCount(totals.tokens.cached)} cached)`
                      }${totals.calls_without_usage > 0 ? `; ${totals.calls_without_usage} call${totals.calls_without_usage === 1 ? '' : 's'} report none` : ''}`,
                ],
                ['in model calls', formatMs(totals.model_ms)],
                ['in tool calls', formatMs(totals.tool_ms)],
                ['errors', totals.errors],
              ]}
            />
            {trace.turns.length > 1 && (
              <nav aria-label="Turns of this run" class="trace-turns">
                <span>Turns:</span>
                {trace.turn_id !== null && (
                  <Link href={`/runs/${trace.run_id}/trace`}>the whole run</Link>
                )}
                {trace.turns.map((entry) => (
                  <Link
                    key={entry.turn_id}
                    href={href(`/runs/${trace.run_id}/trace`, { turn: entry.turn_id })}
                    aria-current={entry.turn_id === trace.turn_id ? 'page' : undefined}
                  >
                    {entry.turn_id.slice(0, 8)}
                  </Link>
                ))}
              </nav>
            )}
            {trace.missing.length > 0 && (
              <div class="warning-box trace-missing">
                <strong>What the records do not say</strong>
                <ul>
                  {trace.missing.map((note) => (
                    <li key={note}>{note}</li>
                  ))}
                </ul>
              </div>
            )}
            <table class="list trace">
              <caption class="visually-hidden">
                Model and tool calls of the {trace.turn_id === null ? 'run' : 'turn'}, with their
                timing, tokens and errors
              </caption>
              <thead>
                <tr>
                  <th scope="col">Call</th>
                  <th scope="col">
                    Timeline{trace.timed ? ` (0 – ${formatMs(trace.extent_ms)})` : ''}
                  </th>
                  <th scope="col" class="number">
                    Start
                  </th>
                  <th scope="col" class="number">
                    Duration
                  </th>
                  <th scope="col" class="number">
                    Tokens
                  </th>
                  <th scope="col">Errors and gaps</th>
                </tr>
              </thead>
              <tbody>
                <SpanRows
                  span={trace.root}
                  depth={0}
                  runId={trace.run_id}
                  extent={trace.extent_ms}
                  collapsed={collapsed}
                  toggle={toggle}
                />
              </tbody>
            </table>
            {trace.root.children.length === 0 && (
              <p>This run recorded no model call and no tool call.</p>
            )}
          </>
        );
      }}
    </Loading>
  );
}
