import type {
  RunSearchHitRow,
  RunSearchPageResponse,
  SearchHitRow,
  SearchPageResponse,
} from '../../../src/api/api-types.js';
import { useApi, useOverview } from '../api.js';
import { Loading, Pager, ShortId, Time } from '../components/bits.js';
import {
  LedgerFilterFields,
  ledgerFilterParams,
  ledgerFiltersOf,
} from '../components/ledger-filters.js';
import { Link } from '../components/link.js';
import { href, navigate, type Route } from '../router.js';

const MATCH_START = '«';
const MATCH_END = '»';

/**
 * A snippet as text with its matches (between `«` and `»`) in `<mark>`: every part is a text node,
 * so nothing in an event's text ever becomes markup.
 */
export function Snippet(props: { text: string }) {
  const parts: Array<string | preact.JSX.Element> = [];
  let rest = props.text;
  while (rest !== '') {
    const start = rest.indexOf(MATCH_START);
    const end = start === -1 ? -1 : rest.indexOf(MATCH_END, start + 1);
    if (start === -1 || end === -1) {
      parts.push(rest);
      break;
    }
    if (start > 0) parts.push(rest.slice(0, start));
    parts.push(<mark key={parts.length}>{rest.slice(start + 1, end)}</mark>);
    rest = rest.slice(end + 1);
  }
  return <>{parts}</>;
}

/**
 * Where a hit lives: its session's timeline on the ledger page (the same scope, that session only),
 * starting at the hit's time, the row of the event anchored by its id so the page scrolls there and
 * marks it.
 */
export function timelineHref(
  hit: SearchHitRow,
  where: { scope?: string; global?: string },
): string {
  return `${href('/ledger', {
    ...where,
    session: hit.session_id,
    from: new Date(hit.ts_ms).toISOString(),
  })}#event-${encodeURIComponent(hit.event_id)}`;
}

/** The search box of the page header, on every page: it searches the scope the page shows. */
export function HeaderSearch(props: { route: Route }) {
  const query = props.route.query;
  const onSearch = props.route.path === '/search';
  return (
    <search class="header-search" aria-label="Search the ledger">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const text = String(new FormData(event.currentTarget).get('q') ?? '').trim();
          if (text === '') return;
          const keep = onSearch || props.route.path === '/ledger';
          navigate(
            href('/search', {
              q: text,
              in: onSearch ? query.get('in') : null,
              scope: keep ? query.get('scope') : null,
              global: keep ? query.get('global') : null,
            }),
          );
        }}
      >
        <input
          type="search"
          name="q"
          aria-label="Search words"
          placeholder="Search the ledger…"
          key={onSearch ? (query.get('q') ?? '') : 'other'}
          defaultValue={onSearch ? (query.get('q') ?? '') : ''}
          maxLength={1000}
        />
        <button type="submit">Search</button>
      </form>
    </search>
  );
}

/** Where a run hit lives: its run, at the record's position (marked and scrolled to there). */
export function runRecordHref(hit: RunSearchHitRow): string {
  return href(`/runs/${hit.run_id}`, { at: hit.position });
}

/** The "ledger | runs" switch of the search page: the same words, searched in the other place. */
function SearchIn(props: { query: URLSearchParams; current: 'ledger' | 'runs' }) {
  const text = (props.query.get('q') ?? '').trim();
  const link = (target: 'ledger' | 'runs', label: string) => (
    <Link
      href={href('/search', {
        q: text,
        in: target === 'runs' ? 'runs' : null,
        // A ledger scope is not a run filter: runs name their scope in their header (most none).
        scope: target === 'ledger' ? props.query.get('scope') : null,
        global: target === 'ledger' ? props.query.get('global') : null,
      })}
      aria-current={props.current === target ? 'page' : undefined}
    >
      {label}
    </Link>
  );
  return (
    <nav class="search-in" aria-label="Search in">
      {link('ledger', 'Ledger events')}
      {link('runs', 'Run records')}
    </nav>
  );
}

/** Search results: the hits of one scope (or every scope), filters as the ledger page has, paging. */
export function SearchView(props: { route: Route }) {
  return props.route.query.get('in') === 'runs' ? (
    <RunSearchView route={props.route} />
  ) : (
    <LedgerSearchView route={props.route} />
  );
}

/** Search over the records of runs and task episodes (every run of the home, as the Runs page). */
function RunSearchView(props: { route: Route }) {
  const query = props.route.query;
  const overview = useOverview();
  const searchable = overview.state === 'ready' && overview.data.run_search;
  const text = (query.get('q') ?? '').trim();
  const filters: Record<string, string> = { in: 'runs' };
  for (const name of ['q', 'scope', 'session', 'type', 'from', 'to'] as const) {
    const value = (query.get(name) ?? '').trim();
    if (value !== '') filters[name] = value;
  }
  const { in: _in, ...apiFilters } = filters;
  const cursor = query.get('cursor');
  const ready = searchable && text !== '';
  const loaded = useApi<RunSearchPageResponse>(
    ready ? href('search/runs', { ...apiFilters, cursor }) : null,
  );
  const field = (name: string, label: string, hint?: string) => (
    <label>
      {label}
      <input
        type="text"
        name={name}
        key={query.get(name) ?? ''}
        defaultValue={query.get(name) ?? ''}
        placeholder={hint}
      />
    </label>
  );
  return (
    <>
      <h1>Search</h1>
      <SearchIn query={query} current="runs" />
      <form
        class="filters"
        aria-label="Search run records with filters"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const params: Record<string, string> = { in: 'runs' };
          for (const name of ['q', 'scope', 'session', 'type', 'from', 'to']) {
            params[name] = String(form.get(name) ?? '').trim();
          }
          navigate(href('/search', params));
        }}
      >
        <label>
          Words
          <input
            type="text"
            name="q"
            key={text}
            defaultValue={text}
            maxLength={1000}
            aria-describedby="run-search-help"
          />
        </label>
        {field('type', 'Record types', 'tool.output, agent.event')}
        {field('session', 'Session')}
        {field('scope', 'Scope (task episodes)')}
        {field('from', 'From', 'YYYY-MM-DD')}
        {field('to', 'To', 'YYYY-MM-DD')}
        <button type="submit">Search with filters</button>
      </form>
      <p id="run-search-help" class="muted">
        Every word and "quoted phrase" must match, in a run's input, model answers and tool calls,
        tool outputs, task steps and completions, errors and final answers; case and accents do not
        matter. Best matches first.
      </p>
      {overview.state === 'ready' && !overview.data.run_search ? (
        <p class="notice" role="status">
          This home's runs ({overview.data.store} store) keep no search index, so they cannot be
          searched yet: only runs kept in SQLite can be (run files and PostgreSQL's runs come
          later). The <Link href="/runs">Runs</Link> page filters runs by status, session and time.
        </p>
      ) : !ready ? (
        <p>{overview.state === 'loading' ? 'Loading…' : 'Type the words to search for.'}</p>
      ) : (
        <Loading loaded={loaded}>
          {(data) => (
            <>
              {data.hits.length === 0 ? (
                <p>No run records match.</p>
              ) : (
                <table class="list search-hits run-hits">
                  <caption class="visually-hidden">
                    Run records matching the search, best first
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Run</th>
                      <th scope="col">Type</th>
                      <th scope="col">Match (opens the run at this record)</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.hits.map((hit) => (
                      <tr key={`${hit.run_id}-${hit.position}`}>
                        <td>
                          <Time value={hit.ts} />
                        </td>
                        <td>
                          <Link href={`/runs/${hit.run_id}`}>
                            <ShortId id={hit.run_id} />
                          </Link>{' '}
                          <span class="muted">#{hit.position}</span>
                        </td>
                        <td>
                          <span class="kind">{hit.type}</span>
                        </td>
                        <td class="wrap snippet">
                          <Link href={runRecordHref(hit)}>
                            <Snippet text={hit.snippet} />
                          </Link>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              <Pager
                label="Search"
                first={cursor === null ? null : href('/search', filters)}
                next={
                  data.next_cursor === null
                    ? null
                    : href('/search', { ...filters, cursor: data.next_cursor })
                }
              />
            </>
          )}
        </Loading>
      )}
    </>
  );
}

/** Search over the ledger of one scope (or every scope), with the ledger page's filters. */
function LedgerSearchView(props: { route: Route }) {
  const query = props.route.query;
  const overview = useOverview();
  const scopes = overview.state === 'ready' ? overview.data.scopes : [];
  const searchable = overview.state === 'ready' && overview.data.search;
  const { global, scope, filters: ledgerFilters, chosenTypes } = ledgerFiltersOf(query, scopes);
  const text = (query.get('q') ?? '').trim();
  const where: { scope?: string; global?: string } = global ? { global: '1' } : { scope };
  const filters: Record<string, string> =
    text === '' ? ledgerFilters : { q: text, ...ledgerFilters };
  const cursor = query.get('cursor');
  const ready = searchable && text !== '' && (global || scope !== '');
  const loaded = useApi<SearchPageResponse>(ready ? href('search', { ...filters, cursor }) : null);
  return (
    <>
      <h1>Search</h1>
      <SearchIn query={query} current="ledger" />
      <form
        class="filters"
        aria-label="Search the ledger with filters"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          navigate(
            href('/search', {
              q: String(form.get('q') ?? '').trim(),
              ...ledgerFilterParams(form),
            }),
          );
        }}
      >
        <label>
          Words
          <input
            type="text"
            name="q"
            key={text}
            defaultValue={text}
            maxLength={1000}
            aria-describedby="search-help"
          />
        </label>
        <LedgerFilterFields
          query={query}
          scope={scope}
          global={global}
          scopes={scopes}
          types={overview.state === 'ready' ? overview.data.ledger_types : []}
          chosenTypes={chosenTypes}
        />
        <button type="submit">Search with filters</button>
      </form>
      <p id="search-help" class="muted">
        Every word and "quoted phrase" must match, in an event's summary, payload or refs; case and
        accents do not matter. Best matches first.
      </p>
      {overview.state === 'ready' && !overview.data.search ? (
        <p class="notice" role="status">
          This home's ledger ({overview.data.store} store) keeps no search index, so it cannot be
          searched yet. The <Link href="/ledger">Ledger</Link> page filters events by type, session,
          agent and time.
        </p>
      ) : !ready ? (
        <p>
          {overview.state === 'loading'
            ? 'Loading scopes…'
            : text === ''
              ? 'Type the words to search for.'
              : 'The ledger has no events yet.'}
        </p>
      ) : (
        <Loading loaded={loaded}>
          {(data) => (
            <>
              {data.hits.length === 0 ? (
                <p>No events match.</p>
              ) : (
                <table class="list search-hits">
                  <caption class="visually-hidden">Events matching the search, best first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Type</th>
                      <th scope="col">Session</th>
                      <th scope="col">Agent</th>
                      <th scope="col">Match (opens the event in its session's timeline)</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.hits.map((hit) => (
                      <tr key={hit.event_id}>
                        <td>
                          <Time value={hit.ts_ms} />
                        </td>
                        <td>
                          <span class="kind">{hit.type}</span>
                        </td>
                        <td>
                          <code title={hit.session_id}>
                            {hit.session_id.length > 12
                              ? `${hit.session_id.slice(0, 8)}…`
                              : hit.session_id}
                          </code>
                        </td>
                        <td>{hit.agent_id}</td>
                        <td class="wrap snippet">
                          <Link href={timelineHref(hit, where)}>
                            <Snippet text={hit.snippet} />
                          </Link>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              <Pager
                label="Search"
                first={cursor === null ? null : href('/search', filters)}
                next={
                  data.next_cursor === null
                    ? null
                    : href('/search', { ...filters, cursor: data.next_cursor })
                }
              />
            </>
          )}
        </Loading>
      )}
    </>
  );
}
