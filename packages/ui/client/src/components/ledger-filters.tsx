// The ledger's filters (scope or every scope, types, session, agent, time range), shared by the
// ledger page and the search page: read from the page's query, shown as form fields, read back
// from a submitted form.

/** The filters a page's query names; the scope defaults to the first one the home has. */
export function ledgerFiltersOf(query: URLSearchParams, scopes: readonly string[]) {
  const global = query.get('global') === '1';
  const scope = query.get('scope') ?? (global ? '' : (scopes[0] ?? ''));
  const filters: Record<string, string> = {
    ...(global ? { global: '1' } : { scope }),
    type: query.get('type') ?? '',
    session: query.get('session') ?? '',
    agent: query.get('agent') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
  };
  for (const key of Object.keys(filters)) if (filters[key] === '') delete filters[key];
  const chosenTypes = new Set((query.get('type') ?? '').split(',').filter((type) => type !== ''));
  return { global, scope, filters, chosenTypes };
}

/** The filters of a submitted form made of `LedgerFilterFields`, as query parameters. */
export function ledgerFilterParams(form: FormData): Record<string, string> {
  const chosen = String(form.get('scope') ?? '');
  return {
    ...(chosen === '*' ? { global: '1' } : { scope: chosen }),
    type: form.getAll('type').join(','),
    session: String(form.get('session') ?? '').trim(),
    agent: String(form.get('agent') ?? '').trim(),
    from: String(form.get('from') ?? ''),
    to: String(form.get('to') ?? ''),
  };
}

/** The filter fields of a ledger form, filled from the page's query. */
export function LedgerFilterFields(props: {
  query: URLSearchParams;
  scope: string;
  global: boolean;
  scopes: readonly string[];
  /** The event types the home's ledger knows (the overview's `ledger_types`). */
  types: readonly string[];
  chosenTypes: ReadonlySet<string>;
}) {
  const { query, scope, global, scopes } = props;
  return (
    <>
      <label>
        Scope
        <select
          name="scope"
          key={`${scope}-${global}-${scopes.length}`}
          defaultValue={global ? '*' : scope}
        >
          {scopes.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
          {scope !== '' && !scopes.includes(scope) && <option value={scope}>{scope}</option>}
          <option value="*">every scope (global)</option>
        </select>
      </label>
      <fieldset>
        <legend>Types</legend>
        {props.types.map((type) => (
          <label key={type} class="check">
            <input
              type="checkbox"
              name="type"
              value={type}
              defaultChecked={props.chosenTypes.has(type)}
            />{' '}
            {type}
          </label>
        ))}
      </fieldset>
      <label>
        Session
        <input type="text" name="session" defaultValue={query.get('session') ?? ''} />
      </label>
      <label>
        Agent
        <input type="text" name="agent" defaultValue={query.get('agent') ?? ''} />
      </label>
      <label>
        From
        <input type="date" name="from" defaultValue={(query.get('from') ?? '').slice(0, 10)} />
      </label>
      <label>
        To
        <input type="date" name="to" defaultValue={(query.get('to') ?? '').slice(0, 10)} />
      </label>
    </>
  );
}
