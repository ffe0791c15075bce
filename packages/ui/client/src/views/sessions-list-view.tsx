import type { SessionListResponse } from '../../../src/api/api-types.js';
import { useApi } from '../api.js';
import { IdLink, Loading, Pager, Time } from '../components/bits.js';
import { href, type Route } from '../router.js';

/** Sessions: every state snapshot, most recently updated first. */
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
                    <th scope="col">Updated</th>
                    <th scope="col" class="number">
                      Revision
                    </th>
                    <th scope="col" class="number">
                      Messages
                    </th>
                    <th scope="col">Last run</th>
                  </tr>
                </thead>
                <tbody>
                  {data.sessions.map((session) => (
                    <tr key={session.session_id}>
                      <td>
                        <IdLink to="sessions" id={session.session_id} />
                      </td>
                      <td>
                        <Time value={session.updated_at} />
                      </td>
                      <td class="number">{session.revision}</td>
                      <td class="number">{session.message_count}</td>
                      <td>
                        {session.last_run_id === null ? (
                          <span class="muted">—</span>
                        ) : (
                          <IdLink to="runs" id={session.last_run_id} />
                        )}
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
