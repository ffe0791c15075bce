import type { SessionListResponse } from '../../../src/api/api-types.js';
import { useApi } from '../api.js';
import { IdLink, Loading, Pager, StatusBadge, Time } from '../components/bits.js';
import { RowTitle, Tokens } from '../components/run-figures.js';
import { href, type Route } from '../router.js';

/**
 * Sessions, most recently updated first: each with its last input, last activity, message count
 * and its last run's status, model and tokens.
 */
export function SessionsListView(props: { route: Route }) {
  const offset = props.route.query.get('offset');
  const loaded = useApi<SessionListResponse>(href('sessions', { offset }));
  return (
    <>
      <h1>Sessions</h1>
      <Loading loaded={loaded}>
        {(data) => (
          <>
            <p class="muted">
              {data.total} session{data.total === 1 ? '' : 's'}
            </p>
            {data.sessions.length > 0 && (
              <table class="list">
                <caption class="visually-hidden">Sessions, most recently updated first</caption>
                <thead>
                  <tr>
                    <th scope="col">Session</th>
                    <th scope="col">Last input</th>
                    <th scope="col">Last activity</th>
                    <th scope="col" class="number">
                      Messages
                    </th>
                    <th scope="col">Last run</th>
                    <th scope="col">Model</th>
                    <th scope="col" class="number">
                      Tokens (last run)
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.sessions.map((session) => (
                    <tr key={session.session_id}>
                      <td>
                        <IdLink to="sessions" id={session.session_id} />
                      </td>
                      <td class="title-cell">
                        <RowTitle title={session.title} placeholder="(no user message)" />
                      </td>
                      <td>
                        <Time value={session.last_activity_at} />
                      </td>
                      <td class="number">{session.message_count}</td>
                      <td>
                        {session.last_run_id === null ? (
                          <span class="muted">—</span>
                        ) : (
                          <>
                            <IdLink to="runs" id={session.last_run_id} />{' '}
                            {session.last_run_status !== null && (
                              <StatusBadge status={session.last_run_status} />
                            )}
                          </>
                        )}
                      </td>
                      <td>{session.model ?? <span class="muted">—</span>}</td>
                      <td class="number">
                        <Tokens input={session.input_tokens} output={session.output_tokens} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <Pager
              label="Sessions"
              first={offset === null ? null : '/sessions'}
              next={
                data.next_offset === null ? null : href('/sessions', { offset: data.next_offset })
              }
            />
          </>
        )}
      </Loading>
    </>
  );
}
