import { LEDGER_EVENT_TYPES, METADATA_FILTER_OPERATORS } from '@episodic/core/schemas';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { apiErrorBody, httpStatusOf } from '../api/api-error.js';
import type { OverviewResponse } from '../api/api-types.js';
import { artifactsPage } from '../api/artifacts-explorer.js';
import { ledgerChainBadge, runChainBadge } from '../api/chain-badge.js';
import { ledgerEvent, ledgerPage } from '../api/ledger-explorer.js';
import { createRunFollower } from '../api/live-run.js';
import { modelInputs } from '../api/model-inputs.js';
import { createRunDigestCache } from '../api/run-digests.js';
import { runSearchPage } from '../api/run-search.js';
import { createRunStatusCache } from '../api/run-status.js';
import { runRecord, runView, toolOutput } from '../api/run-view.js';
import { listRunsPage, RUN_STATUS_FILTERS } from '../api/runs-list.js';
import { searchPage } from '../api/search-explorer.js';
import { createRelativesFinder } from '../api/session-relatives.js';
import { sessionRuns } from '../api/session-runs.js';
import { sessionEpisode, sessionRelatives, sessionTimeline } from '../api/session-timeline.js';
import { listSessionsPage } from '../api/sessions-list.js';
import { listTasksPage, taskView } from '../api/task-view.js';
import { runTrace, sessionTrace } from '../api/trace-api.js';
import type { StoreAccess, UiStores } from '../stores/ui-stores.js';
import { VERSION } from '../version.js';
import { checkRequest, type RequestGuardOptions } from './request-guard.js';
import type { StaticAssets } from './static-assets.js';

/** What `createUiApp` needs. */
export interface UiAppOptions {
  stores: UiStores;
  access: StoreAccess;
  guard: RequestGuardOptions;
  assets: StaticAssets;
  /** How often a live run is polled. @default 500 */
  livePollMs?: number;
  /** Ends open live streams when aborted (the server is closing). */
  signal?: AbortSignal;
}

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Episodic UI</title>
<p>The Episodic UI's browser app is not built. Run <code>pnpm build</code> in the repository (or reinstall <code>@episodic/ui</code>).</p></html>`;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The UI as a Hono app: every request passes the guard (Host, Origin, read-only method, token)
 * first; then `/api/*` answers JSON (GET only), `/assets/*` serves the built browser app, and any
 * other path serves its `index.html` so a shared URL reloads to the same view.
 */
export function createUiApp(options: UiAppOptions): Hono {
  const { stores, access, guard, assets } = options;
  const statuses = createRunStatusCache(stores.runs);
  const digests = createRunDigestCache(stores.runs);
  const relatives = createRelativesFinder(stores.sessions);
  const livePollMs = options.livePollMs ?? 500;
  const app = new Hono();

  app.use('*', async (c, next) => {
    const verdict = checkRequest(c.req.raw, guard);
    if (!verdict.ok) {
      return c.text(verdict.message, verdict.status, { ...SECURITY_HEADERS, ...verdict.headers });
    }
    // The printed URL carries the token once: keep it in a cookie and drop it from the address bar.
    const url = new URL(c.req.url);
    if (url.searchParams.has('token') && !url.pathname.startsWith('/api/')) {
      url.searchParams.delete('token');
      const location = `${url.pathname}${url.search}${url.hash}`;
      return c.body(null, 303, {
        ...SECURITY_HEADERS,
        location,
        'set-cookie': `${guard.cookie}=${encodeURIComponent(guard.token)}; Path=/; HttpOnly; SameSite=Strict`,
        'cache-control': 'no-store',
      });
    }
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
    return undefined;
  });

  app.onError((error, c) => {
    c.header('cache-control', 'no-store');
    return c.json(apiErrorBody(error), httpStatusOf(error));
  });

  const query = (c: { req: { query(): Record<string, string> } }) => c.req.query();
  const api = new Hono();
  api.use('*', async (c, next) => {
    await next();
    c.header('cache-control', 'no-store');
  });
  api.get('/overview', async (c) => {
    const body: OverviewResponse = {
      version: VERSION,
      home: stores.location.home,
      database: stores.location.database,
      store: stores.location.store,
      scopes: await access.listScopes(),
      run_statuses: [...RUN_STATUS_FILTERS],
      ledger_types: [...LEDGER_EVENT_TYPES],
      filter_operators: [...METADATA_FILTER_OPERATORS],
      search: stores.ledger.capabilities.search === true,
      run_search: stores.runs.capabilities.search === true,
    };
    return c.json(body);
  });
  api.get('/runs', async (c) =>
    c.json(await listRunsPage({ runs: stores.runs, statuses, digests, access }, query(c))),
  );
  api.get('/runs/:id', async (c) =>
    c.json(await runView(stores.runs, c.req.param('id'), query(c))),
  );
  api.get('/runs/:id/records/:index', async (c) =>
    c.json(await runRecord(stores.runs, c.req.param('id'), c.req.param('index'))),
  );
  api.get('/runs/:id/tool-outputs/:callId', async (c) =>
    c.json(
      await toolOutput({ runs: stores.runs, access }, c.req.param('id'), c.req.param('callId')),
    ),
  );
  api.get('/runs/:id/inputs', async (c) =>
    c.json(
      await modelInputs(
        { runs: stores.runs, sessions: stores.sessions },
        c.req.param('id'),
        query(c),
      ),
    ),
  );
  api.get('/runs/:id/verify', async (c) =>
    c.json(await runChainBadge({ runs: stores.runs, ledger: stores.ledger }, c.req.param('id'))),
  );
  api.get('/runs/:id/trace', async (c) =>
    c.json(await runTrace(stores.runs, c.req.param('id'), query(c))),
  );
  api.get('/runs/:id/live', async (c) => {
    const runId = await stores.runs.resolveRunId(c.req.param('id'), { subject: 'run id' });
    const follower = createRunFollower(stores.runs, runId, query(c));
    // Fails here (404, 400) before the stream starts when the run does not exist.
    const first = await follower.poll();
    const closing = options.signal;
    return streamSSE(c, async (stream) => {
      const stop = new AbortController();
      stream.onAbort(() => stop.abort());
      closing?.addEventListener('abort', () => stop.abort(), { once: true });
      let batch = first;
      let idle = 0;
      for (;;) {
        if (batch.records.length > 0 || batch.damaged > 0) {
          await stream.writeSSE({ event: 'records', data: JSON.stringify(batch) });
          idle = 0;
        } else if (++idle * livePollMs >= 15_000) {
          await stream.writeSSE({ event: 'ping', data: '{}' });
          idle = 0;
        }
        if (batch.ended) {
          await stream.writeSSE({ event: 'end', data: '{}' });
          return;
        }
        await sleep(livePollMs, stop.signal);
        if (stop.signal.aborted) return;
        batch = await follower.poll();
      }
    });
  });
  api.get('/sessions', async (c) =>
    c.json(
      await listSessionsPage({ sessions: stores.sessions, runs: stores.runs, digests }, query(c)),
    ),
  );
  api.get('/sessions/:id', async (c) =>
    c.json(
      await sessionTimeline(
        { sessions: stores.sessions, runs: stores.runs, statuses },
        c.req.param('id'),
        query(c),
      ),
    ),
  );
  api.get('/sessions/:id/runs', async (c) =>
    c.json(
      await sessionRuns(
        { sessions: stores.sessions, runs: stores.runs, statuses },
        c.req.param('id'),
      ),
    ),
  );
  api.get('/sessions/:id/relatives', async (c) =>
    c.json(await sessionRelatives({ sessions: stores.sessions, relatives }, c.req.param('id'))),
  );
  api.get('/sessions/:id/trace', async (c) =>
    c.json(
      await sessionTrace(
        { sessions: stores.sessions, runs: stores.runs },
        c.req.param('id'),
        query(c),
      ),
    ),
  );
  api.get('/sessions/:id/episodes/:episode', async (c) =>
    c.json(await sessionEpisode(stores.sessions, c.req.param('id'), c.req.param('episode'))),
  );
  api.get('/tasks', async (c) => c.json(await listTasksPage(stores.artifacts, query(c))));
  api.get('/tasks/:id', async (c) =>
    c.json(await taskView({ runs: stores.runs, artifacts: stores.artifacts }, c.req.param('id'))),
  );
  api.get('/ledger', async (c) => c.json(await ledgerPage(stores.ledger, query(c))));
  api.get('/ledger/event', async (c) => c.json(await ledgerEvent(stores.ledger, query(c))));
  api.get('/ledger/verify', async (c) =>
    c.json(await ledgerChainBadge({ runs: stores.runs, ledger: stores.ledger }, query(c))),
  );
  api.get('/search', async (c) => c.json(await searchPage(stores.ledger, query(c))));
  api.get('/search/runs', async (c) => c.json(await runSearchPage(stores.runs, query(c))));
  api.get('/artifacts', async (c) => c.json(await artifactsPage(stores.artifacts, query(c))));
  api.all('*', (c) =>
    c.json(
      {
        error: {
          code: 'NOT_FOUND',
          message: `No API route ${c.req.path}: the UI's API is read-only (GET).`,
        },
      },
      404,
    ),
  );
  app.route('/api', api);

  app.get('*', (c) => {
    const asset = assets.get(c.req.path);
    if (asset !== undefined && c.req.path !== '/index.html') {
      return c.body(asset.body, 200, {
        'content-type': asset.type,
        'cache-control': c.req.path.startsWith('/assets/')
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
      });
    }
    if (c.req.path.startsWith('/assets/')) return c.text('Not found', 404);
    if (assets.index === null) return c.html(NOT_BUILT, 503);
    return c.body(assets.index.body, 200, {
      'content-type': assets.index.type,
      'cache-control': 'no-cache',
    });
  });
  return app;
}
