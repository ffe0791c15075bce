import type { RunListResponse } from '../../../src/api/api-types.js';
import { useApi, useOverview } from '../api.js';
import { Bytes, IdLink, Loading, Pager, StatusBadge, Time } from '../components/bits.js';
import { Link } from '../components/link.js';
import { Duration, RowTitle, Tokens } from '../components/run-figures.js';
import { href, navigate, type Route } from '../router.js';

/**
 * Every run, newest first, with its title (first input), status, start, duration, model, tokens,
 * session and size; filters in the URL.
 */
export function RunsListView(props: { route: Route }) {
  const query = props.route.query;
  const filters = {
    status: query.get('status') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
    session: query.get('session') ?? '',
  };
  const loaded = useApi<RunListResponse>(href('runs', { ...filters, cursor: query.get('cursor') }));
  const chosen = new Set(filters.status.split(',').filter((status) => status !== ''));
  const overview = useOverview();
  const statuses = overview.state === 'ready' ? overview.data.run_statuses : [];
  return (
    <>
      <h1>Runs</h1>
      <form
        class="filters"
        aria-label="Filter runs"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          navigate(
            href('/runs', {
              status: form.getAll('status').join(','),
              from: String(form.get('from') ?? ''),
              to: String(form.get('to') ?? ''),
              session: String(form.get('session') ?? '').trim(),
            }),
          );
        }}
      >
        <fieldset>
          <legend>Status</legend>
          {statuses.map((status) => (
            <label key={status} class="check">
              <input
                type="checkbox"
                name="status"
                value={status}
                defaultChecked={chosen.has(status)}
              />{' '}
              {status}
            </label>
          ))}
        </fieldset>
        <label>
          Started from
          <input type="date" name="from" defaultValue={filters.from} />
        </label>
        <label>
          to
          <input type="date" name="to" defaultValue={filters.to} />
        </label>
        <label>
          Session id
          <input
            type="text"
            name="session"
            defaultValue={filters.session}
            size={38}
            placeholder="a session UUID"
          />
        </label>
        <button type="submit">Apply filters</button>
        <Link href="/runs">Clear</Link>
      </form>
      <Loading loaded={loaded}>
        {(data) => (
          <>
            {data.errors.length > 0 && (
              <div class="warning-box" role="status">
                {data.errors.length} run{data.errors.length === 1 ? '' : 's'} could not be listed:{' '}
                {data.errors
                  .slice(0, 3)
                  .map((error) => `${error.location}: ${error.message}`)
                  .join('; ')}
              </div>
            )}
            {data.runs.length === 0 ? (
              <p>No runs match.</p>
            ) : (
              <table class="list">
                <caption class="visually-hidden">Runs, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Run</th>
                    <th scope="col">Title</th>
                    <th scope="col">Status</th>
                    <th scope="col">Started</th>
                    <th scope="col" class="number">
                      Duration
                    </th>
                    <th scope="col">Model</th>
                    <th scope="col" class="number">
                      Tokens
                    </th>
                    <th scope="col">Session</th>
                    <th scope="col" class="number">
                      Size
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.runs.map((run) => (
                    <tr key={run.run_id} class={run.status === 'failed' ? 'row-error' : undefined}>
                      <td>
                        <IdLink to="runs" id={run.run_id} />
                      </td>
                      <td class="title-cell">
                        <RowTitle title={run.title} placeholder="(no input text)" />
                      </td>
                      <td>
                        <StatusBadge status={run.status} />
                      </td>
                      <td>
                        <Time value={run.started_at} />
                      </td>
                      <td class="number">
                        <Duration ms={run.duration_ms} />
                      </td>
                      <td>{run.model ?? <span class="muted">—</span>}</td>
                      <td class="number">
                        <Tokens input={run.input_tokens} output={run.output_tokens} />
                      </td>
                      <td>
                        {run.session_id === null ? (
                          <span class="muted">—</span>
                        ) : (
                          <IdLink to="sessions" id={run.session_id} />
                        )}
                      </td>
                      <td class="number">
                        <Bytes value={run.bytes} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {data.scan_limited && (
              <p class="muted" role="status">
                Looked at {data.scanned} runs for this page; more may match further on.
              </p>
            )}
            <Pager
              label="Runs"
              first={query.get('cursor') === null ? null : href('/runs', filters)}
              next={
                data.next_cursor === null
                  ? null
                  : href('/runs', { ...filters, cursor: data.next_cursor })
              }
            />
          </>
        )}
      </Loading>
    </>
  );
}
