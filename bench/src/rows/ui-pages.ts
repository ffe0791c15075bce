import type { StoredSession } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { startUiServer, type UiStores } from '@episodic/ui';
import { ensureLedger } from '../data/datasets.js';
import { MAIN_SCOPE } from '../data/ledger-events.js';
import { ensureUiHome } from '../data/ui-home.js';
import { alternate, check, compareRow, type Round, type RowSpec } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { nowMicros } from '../lib/stats.js';

/** Fresh stores over the UI home (run files) and the 1M-event ledger, as `episodic ui --store fs` opens them. */
function openStores(home: string, ledgerPath: string) {
  const files = createFsStore({ root: home, durability: 'none' });
  const sqlite = createSqliteStore({ filename: ledgerPath });
  const stores: UiStores = {
    runs: files.runs,
    sessions: files.sessions,
    ledger: sqlite.ledger,
    artifacts: sqlite.artifacts,
    location: { home, database: ledgerPath, store: 'fs' },
    sqlite,
  };
  return {
    stores,
    files,
    sqlite,
    async close() {
      await files.close();
      await sqlite.close();
    },
  };
}

type Opened = ReturnType<typeof openStores>;

/** One page of the UI: the API requests the browser app makes to show it, and the store work behind them. */
interface Page {
  id: string;
  title: string;
  paths: string[];
  probe: (opened: Opened) => Promise<unknown>;
  probeText: string;
}

const TAIL = { count: 3 };

export const uiPagesModule: RowModule = {
  id: 'ui',
  rows: [
    'ui.page.runs',
    'ui.page.runs.status-filter',
    'ui.page.runs.deep',
    'ui.page.sessions',
    'ui.page.session',
    'ui.page.session.runs',
    'ui.page.session.forks',
    'ui.page.run',
    'ui.page.run.trace',
    'ui.page.session.trace',
    'ui.page.ledger',
    'ui.page.ledger.agent-filter',
  ],
  needs: ['ui-home', 'ledger'],
  async run(context: BenchContext): Promise<RowResult[]> {
    const home = await ensureUiHome(context);
    const ledger = await ensureLedger(context);
    const { rounds, warmup } = context.sizes;
    const dataset = `${formatCount(home.runs)} run files and ${home.sessions.length} session snapshots (fs store), ${formatCount(ledger.rows)}-event ledger`;
    const session = home.sessions[0] as string;

    // The cursor of page 100 of the runs (50 a page), found by walking the pages once.
    let deepCursor = '';
    const deepPage = Math.min(100, Math.floor(home.runs / 50) - 1);
    {
      const opened = openStores(home.home, ledger.path);
      const ui = await startUiServer({ stores: opened.stores });
      try {
        let cursor: string | null = null;
        for (let page = 1; page < deepPage; page++) {
          const response = await fetch(
            `${ui.origin}/api/runs${cursor === null ? '' : `?cursor=${cursor}`}`,
            {
              headers: { authorization: `Bearer ${ui.token}` },
            },
          );
          cursor = ((await response.json()) as { next_cursor: string | null }).next_cursor;
        }
        deepCursor = cursor ?? '';
      } finally {
        await ui.close();
        await opened.close();
      }
    }
    const deepStart = JSON.parse(Buffer.from(deepCursor, 'base64url').toString('utf8')) as {
      s: string;
    };

    // The runs the session's commits name (what the timeline reads instead of every header).
    const runsNamedIn = (stored: StoredSession | null): string[] => {
      const named = new Set<string>();
      if (typeof stored?.base.head.run_id === 'string') named.add(stored.base.head.run_id);
      for (const delta of stored?.deltas ?? []) {
        if (typeof delta.run_id === 'string') named.add(delta.run_id);
      }
      return [...named];
    };
    const namedRuns = await (async () => {
      const opened = openStores(home.home, ledger.path);
      try {
        return runsNamedIn(await opened.stores.sessions.read(session));
      } finally {
        await opened.close();
      }
    })();

    const tails = async (opened: Opened, runIds: readonly string[]) => {
      for (const runId of runIds) await opened.stores.runs.tail(runId, TAIL);
    };
    const pages: Page[] = [
      {
        id: 'ui.page.runs',
        title: 'runs list, first page (50 runs)',
        paths: ['/api/overview', '/api/runs'],
        probe: async (opened) => {
          const listed = await opened.stores.runs.list({ limit: 51 });
          await tails(
            opened,
            listed.runs.slice(0, 50).map((run) => run.runId),
          );
        },
        probeText: 'runs.list({ limit: 51 }) + runs.tail(id, { count: 3 }) of 50 runs',
      },
      {
        id: 'ui.page.runs.status-filter',
        title:
          'runs list filtered by a status no run has (scans 1,000 run statuses, the most a page reads)',
        paths: ['/api/overview', '/api/runs?status=cancelled'],
        probe: async (opened) => {
          const listed = await opened.stores.runs.list({ limit: 1001 });
          await tails(
            opened,
            listed.runs.slice(0, 1000).map((run) => run.runId),
          );
        },
        probeText: 'runs.list({ limit: 1001 }) + runs.tail of 1,000 runs',
      },
      {
        id: 'ui.page.runs.deep',
        title: `runs list, page ${deepPage} (a shared URL with its cursor)`,
        paths: ['/api/overview', `/api/runs?cursor=${deepCursor}`],
        probe: async (opened) => {
          const listed = await opened.stores.runs.list({ to: deepStart.s, limit: 52 });
          await tails(
            opened,
            listed.runs.slice(1, 51).map((run) => run.runId),
          );
        },
        probeText: 'runs.list({ to: cursor, limit: 52 }) + runs.tail of 50 runs',
      },
      {
        id: 'ui.page.sessions',
        title: `sessions list (${home.sessions.length} snapshots)`,
        paths: ['/api/overview', '/api/sessions'],
        probe: (opened) => opened.stores.sessions.list(),
        probeText: 'sessions.list()',
      },
      {
        id: 'ui.page.session',
        title: `session timeline (the headers of the ${namedRuns.length} runs it names, not of all ${formatCount(home.runs)}; failed turns and forks load after it)`,
        paths: ['/api/overview', `/api/sessions/${session}`],
        probe: async (opened) => {
          const stored = await opened.stores.sessions.read(session);
          const runIds = runsNamedIn(stored);
          const listed = await opened.stores.runs.list({ runIds });
          await tails(
            opened,
            listed.runs.map((run) => run.runId),
          );
        },
        probeText: 'sessions.read + runs.list({ runIds: the runs its deltas name }) + their tails',
      },
      {
        id: 'ui.page.session.runs',
        title: `every run of a session, failed turns included (the request after the timeline: all ${formatCount(home.runs)} headers)`,
        paths: [`/api/sessions/${session}/runs`],
        probe: async (opened) => {
          await opened.stores.sessions.read(session);
          const listed = await opened.stores.runs.list({ sessionId: session });
          await tails(
            opened,
            listed.runs.map((run) => run.runId),
          );
        },
        probeText: 'sessions.read + runs.list({ sessionId }) + their tails',
      },
      {
        id: 'ui.page.session.forks',
        title: "a session's forks and shared history (the request that follows the timeline)",
        paths: [`/api/sessions/${session}/relatives`],
        probe: async (opened) => {
          for (const summary of await opened.stores.sessions.list()) {
            await opened.stores.sessions.read(summary.sessionId);
          }
        },
        probeText: 'sessions.read of every session (its base and deltas)',
      },
      {
        id: 'ui.page.run',
        title: 'run view and its model inputs (run with a 12,000-character output)',
        paths: [
          '/api/overview',
          `/api/runs/${home.sampleRunId}`,
          `/api/runs/${home.sampleRunId}/inputs`,
        ],
        probe: async (opened) => {
          await opened.stores.runs.read(home.sampleRunId);
          await opened.stores.runs.read(home.sampleRunId);
        },
        probeText: 'runs.read(id) twice (the view and its inputs)',
      },
      {
        id: 'ui.page.run.trace',
        title: 'trace of a run (its model and tool calls, timed)',
        paths: ['/api/overview', `/api/runs/${home.sampleRunId}/trace`],
        probe: (opened) => opened.stores.runs.read(home.sampleRunId),
        probeText: 'runs.read(id)',
      },
      {
        id: 'ui.page.session.trace',
        title: `a session's tokens and latency by turn, first view (the ${namedRuns.length} runs it names, each read whole; its failed turns follow with ?runs=all, as ui.page.session.runs)`,
        paths: ['/api/overview', `/api/sessions/${session}/trace`],
        probe: async (opened) => {
          const stored = await opened.stores.sessions.read(session);
          const listed = await opened.stores.runs.list({ runIds: runsNamedIn(stored) });
          for (const run of listed.runs) await opened.stores.runs.read(run.runId);
        },
        probeText: 'sessions.read + runs.list({ runIds: the runs it names }) + runs.read of each',
      },
      {
        id: 'ui.page.ledger',
        title: 'ledger explorer, first page of the main scope',
        paths: ['/api/overview', `/api/ledger?scope=${MAIN_SCOPE}`],
        probe: (opened) => opened.stores.ledger.query({ scope: MAIN_SCOPE, limit: 50 }),
        probeText: 'ledger.query({ scope, limit: 50 })',
      },
      {
        id: 'ui.page.ledger.agent-filter',
        title: 'ledger explorer filtered by type and agent',
        paths: [
          '/api/overview',
          `/api/ledger?scope=${MAIN_SCOPE}&type=tool.call,tool.result&agent=cron`,
        ],
        probe: (opened) =>
          opened.stores.ledger.query({
            scope: MAIN_SCOPE,
            types: ['tool.call', 'tool.result'],
            limit: 500,
          }),
        probeText: "ledger.query({ scope, types: ['tool.call', 'tool.result'], limit: 500 })",
      },
    ];

    const rows: RowResult[] = [];
    for (const page of pages) {
      const product = async (): Promise<Round> => {
        const opened = openStores(home.home, ledger.path);
        const ui = await startUiServer({ stores: opened.stores });
        try {
          const start = nowMicros();
          for (const path of page.paths) {
            const response = await fetch(`${ui.origin}${path}`, {
              headers: { authorization: `Bearer ${ui.token}` },
            });
            if (response.status !== 200)
              throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
            await response.arrayBuffer();
          }
          const ms = (nowMicros() - start) / 1000;
          return { value: ms, latencies: [ms] };
        } finally {
          await ui.close();
          await opened.close();
        }
      };
      const probe = async (): Promise<Round> => {
        const opened = openStores(home.home, ledger.path);
        try {
          const start = nowMicros();
          await page.probe(opened);
          const ms = (nowMicros() - start) / 1000;
          return { value: ms, latencies: [ms] };
        } finally {
          await opened.close();
        }
      };
      const spec: RowSpec = {
        id: page.id,
        area: 'ui',
        title: page.title,
        mode: 'read, page cache',
        durability:
          'n/a (read; files and database in the page cache); a fresh server and fresh stores each round (first view)',
        dataset,
        product: `a fresh startUiServer, then GET ${page.paths.join(' + ')} over HTTP (sequentially)`,
        probe: `fresh stores, then ${page.probeText}`,
        metric: { name: 'first view', unit: 'ms', better: 'lower' },
        latencyUnit: 'ms',
        target: 'first view of any page < 1 s (issue 17)',
      };
      const measured = await alternate({ rounds, warmup, product, probe });
      rows.push(
        compareRow(spec, measured, (row) => [
          check(
            'slowest first view < 1000 ms',
            row.productResult?.metric.max ?? Number.NaN,
            '<=',
            1000,
            'absolute',
          ),
        ]),
      );
    }
    return rows;
  },
};
