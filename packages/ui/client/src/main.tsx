import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { useOverview } from './api.js';
import { Link } from './components/link.js';
import { navigate, type Route, useRoute } from './router.js';
import { ArtifactsView } from './views/artifacts-view.js';
import { InputsView } from './views/inputs-view.js';
import { LedgerView } from './views/ledger-view.js';
import { RunView } from './views/run-view.js';
import { RunsListView } from './views/runs-list-view.js';
import { HeaderSearch, SearchView } from './views/search-view.js';
import { SessionChartsView } from './views/session-charts-view.js';
import { SessionView } from './views/session-view.js';
import { SessionsListView } from './views/sessions-list-view.js';
import { TasksListView, TaskView } from './views/task-view.js';
import { TraceView } from './views/trace-view.js';
import './styles.css';

const SECTIONS = [
  { path: '/runs', label: 'Runs' },
  { path: '/sessions', label: 'Sessions' },
  { path: '/tasks', label: 'Task episodes' },
  { path: '/ledger', label: 'Ledger' },
  { path: '/artifacts', label: 'Artifacts' },
];

// A whole id, or its first 6 or more characters as the lists show them (the server resolves it).
const UUID = '([0-9a-fA-F-]{6,36})';

/** The pages with an id in their path, and the view of each. */
const ID_ROUTES: Array<{
  pattern: RegExp;
  title: string;
  view: (route: Route, id: string) => preact.JSX.Element;
}> = [
  {
    pattern: new RegExp(`^/runs/${UUID}/inputs$`),
    title: 'Model inputs',
    view: (route, id) => <InputsView route={route} runId={id} />,
  },
  {
    pattern: new RegExp(`^/runs/${UUID}/trace$`),
    title: 'Trace',
    view: (route, id) => <TraceView route={route} runId={id} />,
  },
  {
    pattern: new RegExp(`^/sessions/${UUID}/trace$`),
    title: 'Session charts',
    view: (route, id) => <SessionChartsView route={route} sessionId={id} />,
  },
  {
    pattern: new RegExp(`^/runs/${UUID}$`),
    title: 'Run',
    view: (route, id) => <RunView route={route} runId={id} />,
  },
  {
    pattern: new RegExp(`^/sessions/${UUID}$`),
    title: 'Session',
    view: (route, id) => <SessionView route={route} sessionId={id} />,
  },
  {
    pattern: new RegExp(`^/tasks/${UUID}$`),
    title: 'Task episode',
    view: (_route, id) => <TaskView taskId={id} />,
  },
];

/** The list pages, and the view of each. */
const LIST_ROUTES: Record<string, { title: string; view: (route: Route) => preact.JSX.Element }> = {
  '/runs': { title: 'Runs', view: (route) => <RunsListView route={route} /> },
  '/sessions': { title: 'Sessions', view: (route) => <SessionsListView route={route} /> },
  '/tasks': { title: 'Task episodes', view: (route) => <TasksListView route={route} /> },
  '/ledger': { title: 'Ledger', view: (route) => <LedgerView route={route} /> },
  '/artifacts': { title: 'Artifacts', view: (route) => <ArtifactsView route={route} /> },
  '/search': { title: 'Search', view: (route) => <SearchView route={route} /> },
};

/** The view of a path, and the page title that names it. */
function viewOf(route: Route): { title: string; view: preact.JSX.Element } {
  for (const entry of ID_ROUTES) {
    const match = entry.pattern.exec(route.path);
    if (match !== null) return { title: entry.title, view: entry.view(route, match[1] as string) };
  }
  const list = LIST_ROUTES[route.path];
  if (list !== undefined) return { title: list.title, view: list.view(route) };
  return {
    title: 'Not found',
    view: (
      <>
        <h1>Not found</h1>
        <p>
          Nothing lives at <code>{route.path}</code>. <Link href="/runs">Go to the runs.</Link>
        </p>
      </>
    ),
  };
}

function App() {
  const route = useRoute();
  const overview = useOverview();
  useEffect(() => {
    if (route.path === '/') navigate('/runs', { replace: true });
  }, [route.path]);
  const { title, view } = viewOf(route);
  useEffect(() => {
    document.title = `${title} · Episodic`;
  }, [title, route.path]);
  const section = SECTIONS.find(
    (entry) => route.path === entry.path || route.path.startsWith(`${entry.path}/`),
  );
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Episodic</span>
        <nav aria-label="Views">
          <ul>
            {SECTIONS.map((entry) => (
              <li key={entry.path}>
                <Link
                  href={entry.path}
                  aria-current={section?.path === entry.path ? 'page' : undefined}
                >
                  {entry.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <HeaderSearch route={route} />
        <span class="read-only" title="This UI never changes anything">
          read-only
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {view}
      </main>
      <footer class="bottom muted">
        {overview.state === 'ready' &&
          `${overview.data.home} · ${overview.data.store} store · ${overview.data.database} · @episodic/ui ${overview.data.version}`}
      </footer>
    </>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
