// The UI in a real browser: the demo writes a home, the real `episodic ui` process serves it, and
// Debian's Chromium (driven by playwright-core) clicks through every view and checks what a user
// sees, with axe-core on each page. EPISODIC_UI_SCREENSHOTS=1 also writes the README screenshots.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunRecord } from '@episodic/core';
import { openEpisodicStores } from '@episodic/home';
import { importTranscript } from '@episodic/interop';
import { createFsStore } from '@episodic/store-fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchChromium } from './browser.js';
import { CLI, type DemoHome, runDemoHome, runNode, startUi, type UiProcess } from './processes.js';

const SCREENSHOTS = process.env.EPISODIC_UI_SCREENSHOTS === '1';
const CODEX = 'codex/rollout-2025-10-29T00-59-38-0199a2f4-6b1c-7d22-9e31-4c5a6b7c8d9e.jsonl';
const docs = fileURLToPath(new URL('../docs/', import.meta.url));

let demo: DemoHome;
let ui: UiProcess;
let browser: Browser;
let page: Page;
let redactedEventId: string;
let hostileEventId: string;
/** An event whose text is markup and script: the search page must show it as text. */
const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> kestrel';

const turn = (label: string) =>
  demo.report.turns.find((entry) => entry.label === label)?.runId as string;

async function open(path: string): Promise<void> {
  await page.goto(`${ui.origin}${path}`);
  await page.waitForSelector('main h1');
  await page.waitForFunction(
    () => document.querySelector('[role="status"]')?.textContent !== 'Loading…',
  );
}

async function expectAccessible(name: string): Promise<void> {
  const violations = await axeViolations(page);
  expect(violations, `${name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
}

async function screenshot(name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: join(docs, `${name}.png`) });
}

beforeAll(async () => {
  demo = await runDemoHome();
  // A redacted ledger row, redacted with the real CLI as a user would.
  const alerts = JSON.parse(
    await runNode(CLI, [
      'episodes',
      'query',
      '--scope',
      'episodic-demo',
      '--type',
      'ops.alert',
      '--json',
      '--home',
      demo.home,
    ]),
  ) as { events: Array<{ event_id: string }> };
  redactedEventId = alerts.events[0]?.event_id as string;
  await runNode(CLI, [
    'episodes',
    'redact',
    '--event-id',
    redactedEventId,
    '--scope',
    'episodic-demo',
    '--runs',
    'none',
    '--home',
    demo.home,
  ]);
  // A session of the ledger whose found event sits below 30 events of the same millisecond, so
  // opening it from a search hit must scroll to it.
  const stores = await openEpisodicStores({ home: demo.home, store: 'fs' });
  try {
    const at = Date.parse('2026-03-01T10:00:00Z');
    const receipts = await stores.ledger.appendBatch([
      ...Array.from({ length: 30 }, (_, index) => ({
        scope: 'episodic-demo',
        session_id: 'search-e2e',
        agent_id: 'worker',
        type: 'tool.call' as const,
        summary: `filler step ${index}`,
        ts_ms: at,
      })),
      {
        scope: 'episodic-demo',
        session_id: 'search-e2e',
        agent_id: 'planner',
        type: 'conversation.user' as const,
        summary: HOSTILE,
        ts_ms: at,
      },
    ]);
    hostileEventId = receipts.at(-1)?.event.event_id as string;
  } finally {
    await stores.close();
  }
  ui = await startUi(['--home', demo.home, '--store', 'fs']);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  // The printed URL: its token becomes a cookie, and the address bar loses it.
  await page.goto(ui.url);
  await page.waitForSelector('table.list');
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await ui?.stop();
  // The demo's home lives in a folder of its own: remove it with everything the demo wrote.
  if (demo !== undefined) rmSync(dirname(demo.home), { recursive: true, force: true });
});

describe('episodic ui in Chromium', () => {
  it('opens on the runs: statuses, models, sizes; the failed turn is marked', async () => {
    expect(new URL(page.url()).search).toBe('');
    expect(new URL(page.url()).pathname).toBe('/runs');
    const failedRow = page.locator('tr', { has: page.locator(`a[href="/runs/${turn('T7')}"]`) });
    await expect(failedRow.locator('.badge').textContent()).resolves.toBe('failed');
    await expect(page.locator('tbody tr').count()).resolves.toBe(10);
    await expect(page.getByText('episodic-demo/scripted-v1').first().isVisible()).resolves.toBe(
      true,
    );
    await screenshot('runs');
    await expectAccessible('runs');
  });

  it('filters runs by status, in the URL, and a reload shows the same', async () => {
    await page.getByLabel('failed').check();
    await page.getByLabel('cancelled').check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/status=failed%2Ccancelled|status=failed,cancelled/);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 2);
    await page.reload();
    await page.waitForSelector('tbody tr');
    const ids = await page
      .locator('tbody tr a[href^="/runs/"]')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(ids.sort()).toEqual([`/runs/${turn('T4')}`, `/runs/${turn('T7')}`].sort());
    await expect(page.getByLabel('failed').isChecked()).resolves.toBe(true);
  });

  it('shows a session: runs, the failed turn absent from the session, the checkpoint and what it covers, the fork', async () => {
    await open(`/sessions/${demo.report.session.id}`);
    // The timeline shows the runs the session names at once; its failed turns, which only their
    // run files record, follow.
    await page.waitForSelector('text=/All \\d+ runs of this session/');
    const failedRunRow = page.locator('tr.row-error', {
      has: page.locator(`a[href="/runs/${turn('T7')}"]`),
    });
    await expect(failedRunRow.textContent()).resolves.toContain('failed turn');
    const failed = page.locator('li.failed-turn');
    await expect(failed.textContent()).resolves.toContain('HTTP 503 Service Unavailable');
    await expect(failed.textContent()).resolves.toContain('nothing of it is in the session');
    await expect(page.locator('ul.boundaries').textContent()).resolves.toMatch(
      /checkpoint\s*covers #1–#40/,
    );
    await expect(page.locator('ul.boundaries').textContent()).resolves.toContain('interrupt');
    // Forks load after the timeline.
    await page.waitForSelector('text=Forked into');
    await screenshot('session');
    await expectAccessible('session');
    await page
      .getByRole('link', { name: demo.report.fork.id.slice(0, 8) })
      .first()
      .click();
    await page.waitForURL(new RegExp(`/sessions/${demo.report.fork.id}$`));
    await page.waitForSelector('text=Forked from');
  });

  it('shows a run: tool calls paired with outputs, the long output collapsed, its full text from the cache', async () => {
    await open(`/runs/${turn('T5')}`);
    await expect(page.locator('#tool-calls + table tbody tr').count()).resolves.toBe(2);
    await expect(page.getByText('Long output: 13,936 characters').isVisible()).resolves.toBe(true);
    await screenshot('run');
    // A line from the middle of the log is not in the collapsed preview…
    const log = readFileSync(join(demo.home, 'workspace', 'logs', 'server.log'), 'utf8');
    const middle = log.split('\n')[Math.floor(log.split('\n').length / 2)] as string;
    await expect(page.locator('.output').first().textContent()).resolves.not.toContain(middle);
    await page.getByRole('button', { name: 'Show the full output' }).click();
    await page.waitForSelector('text=Full output, 13,936 characters, from the tool-output cache');
    // …and is in the full text, read from the tool-output cache.
    await expect(page.locator('.full-output pre').textContent()).resolves.toContain(middle);
    await expectAccessible('run');
  });

  it('traces a run: model and tool calls as a tree with timing bars, tokens and errors, from the keyboard', async () => {
    await open(`/runs/${turn('T3')}`);
    await page.getByRole('link', { name: /^Trace: model and tool calls/ }).click();
    await page.waitForURL(new RegExp(`/runs/${turn('T3')}/trace$`));
    await page.waitForSelector('table.trace');
    // T3 reads file after file until it reaches its model-call limit: 4 model calls, 4 tool calls,
    // the last never answered (the turn stopped first).
    await expect(page.locator('tr.span-model').count()).resolves.toBe(4);
    await expect(page.locator('tr.span-tool').count()).resolves.toBe(4);
    await expect(page.locator('tr.span-model svg.timing').count()).resolves.toBe(4);
    await expect(page.locator('tr.span-model').first().textContent()).resolves.toMatch(
      /843 in \/ 24 out/,
    );
    const unanswered = page.locator('tr.span-tool').last();
    await expect(unanswered.textContent()).resolves.toContain('no output recorded');
    await expect(unanswered.locator('svg.timing.unended').count()).resolves.toBe(1);
    await screenshot('trace');
    await expectAccessible('trace');
    // The tree folds from the keyboard.
    await page.getByRole('button', { name: /^Collapse run/ }).focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('table.trace tbody tr').count()).resolves.toBe(1);
    await page.keyboard.press('Enter');
    await expect(page.locator('table.trace tbody tr').count()).resolves.toBe(9);

    await open(`/runs/${turn('T7')}/trace`);
    const errors = page.locator('table.trace tr.row-error');
    await expect(errors.count()).resolves.toBe(3);
    await expect(errors.last().textContent()).resolves.toContain('HTTP 503 Service Unavailable');
    await expect(page.locator('tr.span-model.row-error').textContent()).resolves.toContain(
      'no answer: the run failed while the model was being asked',
    );
  });

  it("charts a session's tokens and latency by turn (the charting library loads on that page only)", async () => {
    await open('/runs');
    const loaded = () =>
      page.evaluate(() =>
        performance.getEntriesByType('resource').map((entry) => entry.name.split('/').pop()),
      );
    expect((await loaded()).some((name) => name?.startsWith('turn-charts'))).toBe(false);
    await open(`/sessions/${demo.report.session.id}`);
    await page.getByRole('link', { name: 'Tokens and latency by turn (charts)' }).click();
    await page.waitForURL(new RegExp(`/sessions/${demo.report.session.id}/trace$`));
    await page.waitForSelector('text=/All \\d+ runs of this session, failed turns included/');
    await page.waitForSelector('#latency-chart-title');
    await expect(page.locator('.chart-canvas canvas').count()).resolves.toBe(2);
    expect((await loaded()).some((name) => name?.startsWith('turn-charts'))).toBe(true);
    await expect(page.locator('.chart-canvas').first().getAttribute('aria-label')).resolves.toMatch(
      /^Tokens of \d+ turns: in [\d,]+ to [\d,]+/,
    );
    const failedRow = page.locator('table.turn-figures tr', {
      has: page.locator(`a[href="/runs/${turn('T7')}"]`),
    });
    await expect(failedRow.textContent()).resolves.toContain('failed turn');
    await screenshot('session-charts');
    await expectAccessible('session charts');
    // Each turn links to its trace.
    await failedRow.getByRole('link', { name: /trace$/ }).click();
    await page.waitForURL(new RegExp(`/runs/${turn('T7')}/trace\\?turn=`));
    await page.waitForSelector('table.trace tr.row-error');
  });

  it('highlights errors in a failed run', async () => {
    await open(`/runs/${turn('T7')}`);
    await expect(page.locator('li.record-error').first().textContent()).resolves.toContain(
      'HTTP 503',
    );
    await expect(page.locator('h1 .badge').textContent()).resolves.toBe('failed');
  });

  it('answers "why did the model not see X?": the healed call, the truncated output, the budget cut', async () => {
    await open(`/runs/${turn('T5')}/inputs`);
    await expect(
      page.locator('.badge.note-synthesized-output').first().textContent(),
    ).resolves.toBe('healed call');
    await expect(page.locator('.badge.note-truncated-output').first().textContent()).resolves.toBe(
      'truncated output',
    );
    await expect(page.locator('.over-budget').first().textContent()).resolves.toContain(
      'over budget',
    );
    await page.getByLabel(/Why did the model not see episode/).fill('20');
    await page.getByRole('button', { name: 'Explain' }).click();
    await page.waitForURL(/episode=20/);
    await page.waitForSelector('.explanation');
    const explanations = await page.locator('.explanation').allTextContents();
    expect(explanations.at(-1)).toMatch(/^Episode 20 was not sent \(budget\)/);
    await screenshot('model-inputs');
    await expectAccessible('model inputs');
    await page.reload();
    await page.waitForSelector('.explanation');
    await expect(page.locator('.explanation').count()).resolves.toBe(explanations.length);
  });

  it("shows the task episode: steps with latency bars, the outcome, the reward's factors, reflection, patterns", async () => {
    await open('/tasks');
    await page.getByRole('link', { name: demo.report.task.episodeId.slice(0, 8) }).click();
    await page.waitForSelector('#reward');
    await expect(page.locator('.reward-score').textContent()).resolves.toBe(
      demo.report.task.episode.reward_score.toFixed(3),
    );
    await expect(page.locator('table.factors tbody tr').count()).resolves.toBe(6);
    await expect(page.locator('table.steps tbody tr').count()).resolves.toBe(20);
    await expect(page.locator('table.steps svg.bar').count()).resolves.toBeGreaterThan(0);
    await expect(page.getByText('partial_success').first().isVisible()).resolves.toBe(true);
    await expect(page.locator('#reflection').isVisible()).resolves.toBe(true);
    await expect(
      page.locator(`#patterns ~ table a[href="/tasks/${demo.report.task.episodeId}"]`).count(),
    ).resolves.toBeGreaterThan(0);
    await screenshot('task');
    await expectAccessible('task');
  });

  it('explores the ledger: a scope, filters, a redacted row shown as such, a payload on demand', async () => {
    await open('/ledger');
    await page.waitForSelector('tbody tr');
    await expect(page.getByLabel('Scope').inputValue()).resolves.toBe('episodic-demo');
    await page.getByLabel('ops.alert').check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/type=ops.alert/);
    await page.waitForSelector('tr.row-redacted');
    const redacted = page.locator('tr.row-redacted').first();
    await expect(redacted.textContent()).resolves.toContain('[REDACTED]');
    await expect(redacted.locator('.badge.redacted').textContent()).resolves.toBe('redacted');
    await redacted.getByRole('button', { name: `Payload of event ${redactedEventId}` }).click();
    await page.waitForSelector('.payload-row pre');
    await expect(page.locator('.payload-row pre').textContent()).resolves.toContain(
      '"payload": "[REDACTED]"',
    );
    const other = page.locator('tbody tr:not(.row-redacted):not(.payload-row)').first();
    await other.getByRole('button', { name: /Payload of event/ }).click();
    await page.waitForFunction(() => document.querySelectorAll('.payload-row').length === 2);
    await expect(page.locator('.payload-row').nth(1).textContent()).resolves.toContain('"payload"');
    await screenshot('ledger');
    await expectAccessible('ledger');
  });

  it('searches from the header: hostile text stays text, the hit opens its timeline at the event', async () => {
    await open('/runs');
    const box = page.getByRole('search', { name: 'Search the ledger' }).getByLabel('Search words');
    await box.fill('kestrel <script>window.__pwned=2</script>');
    await box.press('Enter');
    await page.waitForURL(/\/search\?q=kestrel/);
    await page.waitForSelector('table.search-hits tbody tr');
    const hit = page.locator('table.search-hits tbody tr').first();
    // The event's markup and the query's are text: no element made from them, no script ran.
    const snippet = hit.locator('td.snippet');
    await expect(snippet.textContent()).resolves.toContain(
      '<img src=x onerror="window.__pwned=1">',
    );
    await expect(snippet.locator('mark').allTextContents()).resolves.toContain('kestrel');
    await expect(page.locator('main img, main script').count()).resolves.toBe(0);
    await expect(page.evaluate(() => (window as { __pwned?: number }).__pwned)).resolves.toBe(
      undefined,
    );
    await expect(page.getByLabel('Words', { exact: true }).inputValue()).resolves.toBe(
      'kestrel <script>window.__pwned=2</script>',
    );
    await expect(page.getByLabel('Scope').inputValue()).resolves.toBe('episodic-demo');
    await screenshot('search');
    await expectAccessible('search');
    await snippet.getByRole('link').click();
    await page.waitForURL(/\/ledger\?.*session=search-e2e/);
    expect(new URL(page.url()).hash).toBe(`#event-${hostileEventId}`);
    const row = page.locator(`tr[id="event-${hostileEventId}"]`);
    await row.waitFor();
    await expect(row.getAttribute('class')).resolves.toContain('row-target');
    await expect(row.getAttribute('aria-current')).resolves.toBe('true');
    // The row sits below 30 others of its millisecond: the page scrolled to it.
    await page.waitForFunction((id) => {
      const box = document.getElementById(`event-${id}`)?.getBoundingClientRect();
      return box !== undefined && box.top >= 0 && box.bottom <= window.innerHeight;
    }, hostileEventId);
    await expect(page.evaluate(() => window.scrollY)).resolves.toBeGreaterThan(0);
    await expect(page.locator('main img, main script').count()).resolves.toBe(0);
    await expectAccessible('ledger at a search hit');
  });

  it('builds a seed 003 filter over artifacts and shows which episodes matched', async () => {
    await open('/artifacts');
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Key').fill('model');
    await page.getByLabel('Value').fill('built-in');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.waitForURL(/filter=/);
    await page.waitForSelector('article.artifact');
    await expect(page.locator('.matched-badge').first().textContent()).resolves.toBe('matched');
    await expect(page.locator('li.matched a').first().getAttribute('href')).resolves.toBe(
      `/tasks/${demo.report.task.episodeId}`,
    );
    await page.reload();
    await page.waitForSelector('article.artifact');
    await expect(page.getByLabel('Key').inputValue()).resolves.toBe('model');
    await screenshot('artifacts');
    await expectAccessible('artifacts');
    await page.getByLabel('Value').fill('nobody');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.waitForSelector('text=No artifacts match.');
  });

  it('lists runs and sessions people can scan: a title, duration, model and tokens; sessions with their last activity', async () => {
    await open('/runs');
    const headers = await page.locator('thead th').allTextContents();
    expect(headers).toEqual(expect.arrayContaining(['Title', 'Duration', 'Tokens', 'Model']));
    const row = page.locator('tr', { has: page.locator(`a[href="/runs/${turn('T5')}"]`) });
    await expect(row.locator('td.title-cell').textContent()).resolves.not.toBe('');
    await expect(page.locator('tbody').textContent()).resolves.toMatch(/\d+ in · \d+ out/);
    await open('/sessions');
    await expect(page.locator('thead th').allTextContents()).resolves.toEqual(
      expect.arrayContaining(['Last input', 'Last activity', 'Tokens (last run)']),
    );
    await expect(
      page
        .locator('tr', { has: page.locator(`a[href="/sessions/${demo.report.session.id}"]`) })
        .locator('td.title-cell')
        .textContent(),
    ).resolves.not.toBe('');
    await screenshot('sessions');
    await expectAccessible('sessions');
    // In a live session the "why" link is offered for what could be sent, not for every row.
    await open(`/sessions/${demo.report.session.id}`);
    await expect(
      page.getByRole('link', { name: /Why did the model/ }).count(),
    ).resolves.toBeGreaterThan(0);
    await expect(
      page
        .locator('li.episode-meta')
        .getByRole('link', { name: /Why did the model/ })
        .count(),
    ).resolves.toBe(0);
  });

  it('reads imported Codex and Claude Code sessions: raw entries folded with a count, encrypted reasoning labelled, no model inputs said so', async () => {
    const transcripts = fileURLToPath(new URL('../../../fixtures/transcripts/', import.meta.url));
    const imported: Array<{ session_id: string }> = [];
    for (const [format, file] of [
      ['codex', 'codex/rollout-2025-10-29T00-59-38-0199a2f4-6b1c-7d22-9e31-4c5a6b7c8d9e.jsonl'],
      ['claude-code', 'claude-code/session.jsonl'],
    ] as const) {
      const receipt = JSON.parse(
        await runNode(CLI, [
          'import',
          format,
          join(transcripts, file),
          '--no-ledger',
          '--json',
          '--home',
          demo.home,
          '--store',
          'fs',
        ]),
      ) as { conversations: Array<{ session_id: string }> };
      imported.push(...receipt.conversations);
    }
    const codex = imported[0]?.session_id as string;
    await open(`/sessions/${codex}`);
    await page.waitForSelector('details.folded-episodes');
    await expect(
      page.locator('details.folded-episodes summary').first().textContent(),
    ).resolves.toMatch(/\d+ raw imported entr(y|ies)/);
    // Folded: the raw entries are not shown until the toggle is opened.
    const firstRaw = page.locator('details.folded-episodes li.episode').first();
    await expect(firstRaw.isVisible()).resolves.toBe(false);
    await expect(page.locator('main').textContent()).resolves.toMatch(
      /encrypted reasoning \(\d+ bytes\)/,
    );
    await expect(page.locator('main').textContent()).resolves.not.toContain('gAAAA');
    await expect(page.locator('h3 .turn-usage').first().textContent()).resolves.toMatch(
      /in \/ .* out/,
    );
    await expect(page.getByRole('link', { name: /Why did the model/ }).count()).resolves.toBe(0);
    await expect(page.locator('main').textContent()).resolves.toContain(
      'the import did not record what was sent',
    );
    await expect(page.getByRole('form', { name: 'Explain an episode' }).isVisible()).resolves.toBe(
      false,
    );
    await page.locator('#timeline').scrollIntoViewIfNeeded();
    await page.evaluate(() => document.getElementById('timeline')?.scrollIntoView());
    await screenshot('imported-session');
    await expectAccessible('imported session');
    await page.locator('details.folded-episodes summary').first().click();
    await expect(firstRaw.isVisible()).resolves.toBe(true);
    // Its runs' model-inputs page says the import did not record them.
    const run = await page.locator('a[href^="/runs/"]').first().getAttribute('href');
    await open(`${run}/inputs`);
    await expect(page.locator('main').textContent()).resolves.toMatch(
      /imported from codex\. The import did not record what was sent to the model \(it holds \d+ model responses?\)/,
    );
    // The Claude Code session reads the same way.
    await open(`/sessions/${imported[1]?.session_id}`);
    await expect(page.locator('main').textContent()).resolves.toContain(
      'Imported from claude-code',
    );
    await expectAccessible('imported Claude Code session');
  });

  it("shows a running run's new records live (server-sent events), then its end", async () => {
    const store = createFsStore({ root: demo.home, durability: 'none' });
    const runId = '00000000-0000-4000-8000-00000000abcd';
    const ts = () => new Date().toISOString();
    try {
      await store.runs.append(runId, [
        {
          type: 'header',
          schema_version: 1,
          run_id: runId,
          started_at: ts(),
          model: { provider: 'test', name: 'live' },
        },
        { type: 'run.start', run_id: runId, ts: ts(), input: { type: 'text', text: 'Watch me' } },
      ] as RunRecord[]);
      await open(`/runs/${runId}`);
      await page.waitForSelector('.live-live');
      await store.runs.append(runId, [
        {
          type: 'agent.event',
          run_id: runId,
          ts: ts(),
          seq: 0,
          event: { type: 'tool_call', tool: 'grep', args: '{}', tool_call_id: 'live_1' },
        },
        {
          type: 'tool.output',
          run_id: runId,
          ts: ts(),
          tool: 'grep',
          tool_call_id: 'live_1',
          result_raw: 'appeared without a reload',
        },
      ] as RunRecord[]);
      await page.waitForSelector('text=appeared without a reload', { timeout: 90_000 });
      await store.runs.append(runId, [
        { type: 'run.end', run_id: runId, ts: ts(), outcome: 'completed' } as RunRecord,
      ]);
      await page.waitForSelector('.live-ended', { timeout: 90_000 });
      await expect(page.locator('li.record').count()).resolves.toBe(5);
    } finally {
      await store.close();
    }
  });

  it('the accessibility check can fail: axe reports a low-contrast, unlabelled element', async () => {
    await open('/runs');
    await page.evaluate(() => {
      const bad = document.createElement('p');
      bad.textContent = 'hard to read';
      bad.style.color = '#eeeeee';
      const input = document.createElement('input');
      document.querySelector('main')?.append(bad, input);
    });
    const ids = (await axeViolations(page)).map((violation) => violation.id);
    expect(ids).toEqual(expect.arrayContaining(['color-contrast', 'label']));
  });

  // Last: the import adds a session and runs to the demo's home.
  it('traces an imported Codex session, saying what a transcript does not record', async () => {
    const file = fileURLToPath(new URL(`../../../fixtures/transcripts/${CODEX}`, import.meta.url));
    await runNode(CLI, ['import', 'codex', file, '--no-ledger', '--home', demo.home]);
    const [conversation] = importTranscript('codex', readFileSync(file, 'utf8')).conversations;
    await open(`/sessions/${conversation?.sessionId}/trace`);
    await page.waitForSelector('text=/All \\d+ runs of this session, failed turns included/');
    await page.waitForSelector('#latency-chart-title');
    await expect(page.locator('.trace-missing').textContent()).resolves.toContain(
      'model calls without recorded request times',
    );
    await expect(page.locator('table.turn-figures tbody tr').count()).resolves.toBe(2);
    await expectAccessible('imported session charts');
    await page
      .locator('table.turn-figures tbody tr')
      .first()
      .getByRole('link', { name: /trace$/ })
      .click();
    await page.waitForSelector('table.trace');
    await expect(page.locator('.trace-missing').textContent()).resolves.toContain(
      'Imported from a codex transcript',
    );
    // The model call is placed at its answer (a tick), the tool call keeps its measured time.
    await expect(page.locator('tr.span-model svg.timing.tick').count()).resolves.toBe(2);
    await expect(page.locator('tr.span-model').first().textContent()).resolves.toContain(
      'no llm.request',
    );
    await expect(page.locator('tr.span-tool').first().textContent()).resolves.toContain('6.80 s');
    await screenshot('trace-import');
    await expectAccessible('imported trace');
  });

  it('works from the keyboard: skip link, navigation, links and buttons', async () => {
    await open('/runs');
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe(
      'Skip to content',
    );
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Runs');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/sessions$/);
    await page.waitForSelector('tbody tr');
    await expect(page.locator('a[aria-current="page"]').textContent()).resolves.toBe('Sessions');
    await expectAccessible('sessions');
    await page.goBack();
    await page.waitForURL(/\/runs$/);
  });
});
