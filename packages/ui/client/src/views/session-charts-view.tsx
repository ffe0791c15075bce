import { useEffect, useState } from 'preact/hooks';
import type { SessionTraceResponse, SessionTraceTurn } from '../../../src/api/trace-types.js';
import { useApi } from '../api.js';
import { IdLink, Loading, ShortId, StatusBadge, Time } from '../components/bits.js';
import { Link } from '../components/link.js';
import { formatCount, formatMs } from '../components/trace-format.js';
import { href, type Route } from '../router.js';

type ChartsComponent = typeof import('../components/turn-charts.js')['TurnCharts'];

/** The link to a turn's trace: the run's, narrowed to the turn when the run names it. */
function traceHref(turn: SessionTraceTurn): string {
  return href(`/runs/${turn.run_id}/trace`, { turn: turn.turn_id });
}

/**
 * A session's turns charted: tokens (in, out) and latency (the turn, its model calls, its tool
 * calls) by turn, with the same figures as a table. The charting library (uPlot) loads with this
 * page only.
 */
export function SessionChartsView(props: { route: Route; sessionId: string }) {
  // First the turns the session names (cost follows the session), then every run of it: its
  // failed turns are found by their run files' headers (on run files, every header of the home).
  const named = useApi<SessionTraceResponse>(`sessions/${props.sessionId}/trace`);
  const all = useApi<SessionTraceResponse>(
    named.state === 'ready' ? `sessions/${props.sessionId}/trace?runs=all` : null,
  );
  const loaded = all.state === 'ready' ? all : named;
  const [Charts, setCharts] = useState<ChartsComponent | null>(null);
  const [chartsError, setChartsError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    import('../components/turn-charts.js').then(
      ({ TurnCharts }) => live && setCharts(() => TurnCharts),
      (error: Error) => live && setChartsError(error.message),
    );
    return () => {
      live = false;
    };
  }, []);
  return (
    <Loading loaded={loaded}>
      {(data) => (
        <>
          <h1>
            Tokens and latency of session <ShortId id={data.session_id} />
          </h1>
          <p>
            {data.turns.length} turn{data.turns.length === 1 ? '' : 's'} in {data.total_runs} run
            {data.total_runs === 1 ? '' : 's'}
            {data.task_runs > 0 &&
              ` (${data.task_runs} task episode${data.task_runs === 1 ? ' is' : 's are'} not a turn and not charted)`}
            . <Link href={`/sessions/${data.session_id}`}>Back to the session's timeline</Link>
          </p>
          {all.state === 'error' ? (
            <div class="error-box" role="alert">
              <strong>Could not look for this session's failed turns.</strong> {all.error.message}
            </div>
          ) : (
            <p class="muted" role="status">
              {all.state === 'loading'
                ? 'The turns this session records. Looking for its failed turns and runs still going…'
                : `All ${data.total_runs} run${data.total_runs === 1 ? '' : 's'} of this session, failed turns included.`}
            </p>
          )}
          {data.missing.length > 0 && (
            <div class="warning-box trace-missing">
              <strong>What the records do not say</strong>
              <ul>
                {data.missing.map((note) => (
                  <li key={note}>{note}</li>
                ))}
              </ul>
            </div>
          )}
          {data.turns.length === 0 ? (
            <p>This session has no recorded turn to chart.</p>
          ) : chartsError !== null ? (
            <div class="error-box" role="alert">
              <strong>Could not load the charts.</strong> {chartsError} The table below has the same
              figures.
            </div>
          ) : Charts === null ? (
            <p class="muted">Loading the charts…</p>
          ) : (
            <Charts turns={data.turns} />
          )}
          <section aria-labelledby="turn-figures">
            <h2 id="turn-figures">By turn</h2>
            <table class="list compact turn-figures">
              <thead>
                <tr>
                  <th scope="col">Turn</th>
                  <th scope="col">Run</th>
                  <th scope="col">Status</th>
                  <th scope="col">Started</th>
                  <th scope="col" class="number">
                    Tokens in
                  </th>
                  <th scope="col" class="number">
                    Tokens out
                  </th>
                  <th scope="col" class="number">
                    Model calls
                  </th>
                  <th scope="col" class="number">
                    Tool calls
                  </th>
                  <th scope="col" class="number">
                    Errors
                  </th>
                  <th scope="col" class="number">
                    Turn
                  </th>
                  <th scope="col" class="number">
                    In model calls
                  </th>
                  <th scope="col" class="number">
                    In tool calls
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.turns.map((turn) => (
                  <tr
                    key={`${turn.run_id}-${turn.turn_id}`}
                    class={
                      turn.totals.errors > 0 || turn.status === 'failed' ? 'row-error' : undefined
                    }
                  >
                    <th scope="row">
                      <Link href={traceHref(turn)}>#{turn.number} trace</Link>
                    </th>
                    <td>
                      <IdLink to="runs" id={turn.run_id} />
                    </td>
                    <td>
                      <StatusBadge status={turn.status} />
                      {turn.failed_turn && ' failed turn'}
                    </td>
                    <td>
                      <Time value={turn.started_at} />
                    </td>
                    <td class="number">{formatCount(turn.totals.tokens?.input)}</td>
                    <td class="number">{formatCount(turn.totals.tokens?.output)}</td>
                    <td class="number">{turn.totals.model_calls}</td>
                    <td class="number">{turn.totals.tool_calls}</td>
                    <td class="number">{turn.totals.errors}</td>
                    <td class="number">{formatMs(turn.duration_ms)}</td>
                    <td class="number">{formatMs(turn.totals.model_ms)}</td>
                    <td class="number">{formatMs(turn.totals.tool_ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </Loading>
  );
}
