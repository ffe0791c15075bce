import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import type { OverviewResponse } from '../../src/api/api-types.js';
import { useApi } from './api.js';
import { Link } from './components/link.js';
import { navigate, type Route, useRoute } from './router.js';
import { ArtifactsView } from './views/artifacts-view.js';
import { InputsView } from './views/inputs-view.js';
import { LedgerView } from './views/ledger-view.js';
import { RunView } from './views/run-view.js';
import { RunsListView } from './views/runs-list-view.js';
import { SessionView } from './views/session-view.js';
import { SessionsListView } from './views/sessions-list-view.js';
import { TasksListView, TaskView } from './views/task-view.js';
import './styles.css';

const SECTIONS = [
  { path: '/runs', label: 'Runs' },
  { path: '/sessions', label: 'Sessions' },
  { path: '/tasks', label: 'Task episodes' },
  { path: '/ledger', label: 'Ledger' },
  { path: '/artifacts', label: 'Artifacts' },
];

const UUID = '([0-9a-fA-F-]{36})';

/** The view of a path, and the page title that names it. */
function viewOf(route: Route): { title: string; view: preact.JSX.Element } {
  const path = route.path;
  let match: RegExpExecArray | null;
  if ((match = new RegExp(`^/runs/${UUID}/inputs$`).exec(path)) !== null) {
    return { title: 'Model inputs', view: <InputsView route={route} runId={match[1] as string} /> };
  }
  if ((match = new RegExp(`^/runs/${UUID}$`).exec(path)) !== null) {
    return { title: 'Run', view: <RunView route={route} runId={match[1] as string} /> };
  }
  if ((match = new RegExp(`^/sessions/${UUID}$`).exec(path)) !== null) {
    return { title: 'Session', view: <SessionView route={route} sessionId={match[1] as string} /> };
  }
  if ((match = new RegExp(`^/tasks/${UUID}$`).exec(path)) !== null) {
    return { title: 'Task episode', view: <TaskView taskId={match[1] as string} /> };
  }
  if (path === '/sessions') return { title: 'Sessions', view: <SessionsListView route={route} /> };
  if (path === '/tasks') return { title: 'Task episodes', view: <TasksListView route={route} /> };
  if (path === '/ledger') return { title: 'Ledger', view: <LedgerView route={route} /> };
  if (path === '/artifacts') return { title: 'Artifacts', view: <ArtifactsView route={route} /> };
  if (path === '/runs') return { title: 'Runs', view: <RunsListView route={route} /> };
  return {
    title: 'Not found',
    view: (
      <>
        <h1>Not found</h1>
        <p>
          Nothing lives at <code>{path}</code>. <Link href="/runs">Go to the runs.</Link>
        </p>
      </>
    ),
  };
}

function App() {
  const route = useRoute();
  const overview = useApi<OverviewResponse>('overview');
  useEffect(() => {
    if (route.path === '/') navigate('/runs', { replace: true });
  }, [route.path]);
  const { title, view } = viewOf(route);
  useEffect(() => {
    document.title = `${title} · Episodic`;
  }, [title, route.path]);
  const section = SECTIONS.find((entry) => route.path === entry.path || route.path.startsWith(`${entry.path}/`));
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
                <Link href={entry.path} aria-current={section?.path === entry.path ? 'page' : undefined}>
                  {entry.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
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
