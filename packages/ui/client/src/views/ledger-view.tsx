import { useEffect, useState } from 'preact/hooks';
import type {
  LedgerEventResponse,
  LedgerPageResponse,
  LedgerRow,
} from '../../../src/api/api-types.js';
import { getJson, useApi, useOverview } from '../api.js';
import { JsonBlock, Loading, Pager, Time } from '../components/bits.js';
import { ChainBadge } from '../components/chain-badge.js';
import {
  LedgerFilterFields,
  ledgerFilterParams,
  ledgerFiltersOf,
} from '../components/ledger-filters.js';
import { Link } from '../components/link.js';
import { href, navigate, type Route } from '../router.js';

function LedgerRowView(props: {
  row: LedgerRow;
  filters: Record<string, string>;
  before: string | null;
  target: boolean;
}) {
  const { row } = props;
  const [payload, setPayload] = useState<LedgerEventResponse | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  return (
    <>
      <tr
        id={`event-${row.event_id}`}
        class={
          [
            row.redacted ? 'row-redacted' : row.type === 'ops.alert' ? 'row-error' : '',
            props.target ? 'row-target' : '',
          ]
            .filter((name) => name !== '')
            .join(' ') || undefined
        }
        aria-current={props.target ? 'true' : undefined}
      >
        <td>
          <Time value={row.ts_ms} />
        </td>
        <td>
          <span class="kind">{row.type}</span>
        </td>
        <td>
          <code title={row.session_id}>
            {row.session_id.length > 12 ? `${row.session_id.slice(0, 8)}…` : row.session_id}
          </code>
        </td>
        <td>{row.agent_id}</td>
        <td class="number">{row.position}</td>
        <td class="wrap">
          {row.redacted && <span class="badge redacted">redacted</span>} {row.summary}
        </td>
        <td>
          {payload === null ? (
            <button
              type="button"
              class="small"
              aria-label={`Payload of event ${row.event_id}`}
              onClick={() =>
                getJson<LedgerEventResponse>(
                  href('ledger/event', {
                    ...props.filters,
                    cursor: props.before,
                    event: row.event_id,
                  }),
                ).then(setPayload, (error: Error) => setFailed(error.message))
              }
            >
              Payload
            </button>
          ) : (
            <button type="button" class="small" onClick={() => setPayload(null)}>
              Hide
            </button>
          )}
          {failed !== null && <span role="alert"> {failed}</span>}
        </td>
      </tr>
      {payload !== null && (
        <tr class="payload-row">
          <td colSpan={7}>
            <JsonBlock
              value={{
                event_id: payload.event.event_id,
                payload: payload.event.payload,
                refs: payload.event.refs,
                metadata: payload.event.metadata,
              }}
              label={`Payload of event ${row.event_id}`}
            />
          </td>
        </tr>
      )}
    </>
  );
}

/** Ledger explorer: one scope (or every scope, asked for explicitly), filters, paging, payloads on demand. */
export function LedgerView(props: { route: Route }) {
  const query = props.route.query;
  const overview = useOverview();
  const scopes = overview.state === 'ready' ? overview.data.scopes : [];
  const { global, scope, filters, chosenTypes } = ledgerFiltersOf(query, scopes);
  const cursor = query.get('cursor');
  const ready = global || scope !== '';
  // One session of one scope is one chained stream: its badge is cheap to verify.
  const session = (query.get('session') ?? '').trim();
  const loaded = useApi<LedgerPageResponse>(ready ? href('ledger', { ...filters, cursor }) : null);
  // A link to one event (a search hit) ends in `#event-<id>`: that row is marked and scrolled to
  // once the page has loaded (the rows arrive after the browser looked for the fragment).
  const target = decodeURIComponent(window.location.hash.replace(/^#event-/, ''));
  useEffect(() => {
    if (loaded.state !== 'ready' || target === '') return;
    document.getElementById(`event-${target}`)?.scrollIntoView({ block: 'center' });
  }, [loaded, target]);
  return (
    <>
      <h1>Ledger</h1>
      <form
        class="filters"
        aria-label="Filter ledger events"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          navigate(
            href('/ledger', {
              ...ledgerFilterParams(form),
            }),
          );
        }}
      >
        <LedgerFilterFields
          query={query}
          scope={scope}
          global={global}
          scopes={scopes}
          types={overview.state === 'ready' ? overview.data.ledger_types : []}
          chosenTypes={chosenTypes}
        />
        <button type="submit">Apply filters</button>
        <Link href="/ledger">Clear</Link>
      </form>
      {/T/.test(query.get('from') ?? '') && (
        <p class="muted">
          From <Time value={query.get('from')} /> on.
        </p>
      )}
      {!global && scope !== '' && session !== '' && (
        <p class="chain-line">
          Chain of session <code>{session}</code>:{' '}
          <ChainBadge path={href('ledger/verify', { scope, session })} />
        </p>
      )}
      {!ready ? (
        <p>{overview.state === 'loading' ? 'Loading scopes…' : 'The ledger has no events yet.'}</p>
      ) : (
        <Loading loaded={loaded}>
          {(data) => (
            <>
              {data.events.length === 0 ? (
                <p>No events match.</p>
              ) : (
                <table class="list">
                  <caption class="visually-hidden">Ledger events, oldest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Type</th>
                      <th scope="col">Session</th>
                      <th scope="col">Agent</th>
                      <th scope="col" class="number">
                        Pos.
                      </th>
                      <th scope="col">Summary</th>
                      <th scope="col">
                        <span class="visually-hidden">Payload</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.events.map((row, index) => (
                      <LedgerRowView
                        key={row.event_id}
                        row={row}
                        filters={filters}
                        before={index === 0 ? cursor : (data.events[index - 1]?.event_id ?? null)}
                        target={target !== '' && row.event_id === target}
                      />
                    ))}
                  </tbody>
                </table>
              )}
              {data.scan_limited && (
                <p class="muted" role="status">
                  Read {data.scanned.toLocaleString()} events for this page; more may match further
                  on.
                </p>
              )}
              <Pager
                label="Ledger"
                first={cursor === null ? null : href('/ledger', filters)}
                next={
                  data.next_cursor === null
                    ? null
                    : href('/ledger', { ...filters, cursor: data.next_cursor })
                }
              />
            </>
          )}
        </Loading>
      )}
    </>
  );
}
