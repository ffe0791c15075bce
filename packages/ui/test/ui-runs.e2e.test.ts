// Run search and the chain badge in a real browser: the real `episodic ui` process serves two
// homes (runs in SQLite, which can be searched; chained run files, which can be verified), and
// Debian's Chromium (driven by playwright-core) clicks through them as a user would.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord } from '@episodic/core';
import { openEpisodicStores } from '@episodic/home';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchChromium } from './browser.js';
import { startUi, type UiProcess } from './processes.js';

const SEARCHED = 'a1b2c3d4-0000-4000-8000-000000000001';
const CLEAN = 'c1ea0000-0000-4000-8000-000000000002';
const TAMPERED = 'dead0000-0000-4000-8000-000000000003';
const STARTED = '2026-03-02T09:00:00.000Z';
/** A record whose text is markup and script: the search page must show it as text. */
const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> merlin';
/** The record the search finds: far down a long run, so opening it must page and scroll. */
const FOUND_AT = 231;

let root: string;
let searchable: UiProcess;
let chained: UiProcess;
let browser: Browser;
let page: Page;

function statusRecords(runId: string, count: number, text: (index: number) => string) {
  return [
    { type: 'header', schema_version: 1, run_id: runId, started_at: STARTED } as RunRecord,
    ...Array.from(
      { length: count },
      (_, index) =>
        ({
          type: 'run.status',
          run_id: runId,
          ts: new Date(Date.parse(STARTED) + index * 1000).toISOString(),
          status: 'running',
          message: text(index + 2),
        }) as RunRecord,
    ),
  ];
}

async function open(ui: UiProcess, path: string): Promise<void> {
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

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'episodic-ui-runs-e2e-'));
  // Home 1: runs in SQLite (a search index), and a ledger event with the same word.
  const sqliteHome = join(root, 'sqlite-home');
  const one = await openEpisodicStores({ home: sqliteHome, store: 'sqlite', env: {} });
  try {
    await one.runs.append(
      SEARCHED,
      statusRecords(SEARCHED, 260, (position) =>
        position === FOUND_AT
          ? 'the peregrine landed on the roof'
          : position === 3
            ? HOSTILE
            : `step ${position}`,
      ),
    );
    await one.ledger.append({
      scope: 'default',
      session_id: 's-1',
      agent_id: 'a',
      type: 'ops.decision',
      summary: 'watch for the peregrine',
    });
  } finally {
    await one.close();
  }
  // Home 2: chained run files; one run then changed by hand.
  const chainedHome = join(root, 'chained-home');
  const two = await openEpisodicStores({ home: chainedHome, store: 'fs', env: {} });
  await two.close();
  writeFileSync(
    join(chainedHome, 'episodic-home.json'),
    JSON.stringify({ format: 'episodic.home.v1', store: 'fs', chain: true }),
  );
  const stores = await openEpisodicStores({ home: chainedHome, env: {} });
  try {
    for (const runId of [CLEAN, TAMPERED]) {
      await stores.runs.append(
        runId,
        statusRecords(runId, 3, (position) => `line ${position}`),
      );
    }
    // The home's SQLite ledger chains too: one session of two events.
    for (const summary of ['first decision', 'second decision']) {
      await stores.ledger.append({
        scope: 'proj',
        session_id: 'ledger-session',
        agent_id: 'a',
        type: 'ops.decision',
        summary,
      });
    }
  } finally {
    await stores.close();
  }
  const file = join(chainedHome, 'sessions', '2026', '03', '02', `${TAMPERED}.jsonl`);
  writeFileSync(file, readFileSync(file, 'utf8').replace('"line 3"', '"line 8"'));

  searchable = await startUi(['--home', sqliteHome, '--store', 'sqlite']);
  chained = await startUi(['--home', chainedHome]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  // The printed URLs: each token becomes a cookie of its own origin.
  await page.goto(searchable.url);
  await page.waitForSelector('main h1');
  await page.goto(chained.url);
  await page.waitForSelector('main h1');
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await searchable?.stop();
  await chained?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe('run search and chain badges in Chromium', () => {
  it('type a word, switch to the runs, click a hit: the run opens at that record', async () => {
    await open(searchable, '/runs');
    const box = page.getByRole('search', { name: 'Search the ledger' }).getByLabel('Search words');
    await box.fill('peregrine');
    await box.press('Enter');
    await page.waitForURL(/\/search\?q=peregrine/);
    await page.waitForSelector('table.search-hits tbody tr');
    await page.getByRole('navigation', { name: 'Search in' }).getByText('Run records').click();
    await page.waitForURL(/in=runs/);
    await page.waitForSelector('table.run-hits tbody tr');
    const hit = page.locator('table.run-hits tbody tr').first();
    await expect(hit.locator('td.snippet mark').allTextContents()).resolves.toEqual(['peregrine']);
    await expect(hit.textContent()).resolves.toContain('run.status');
    await expect(hit.textContent()).resolves.toContain(`#${FOUND_AT}`);
    await expectAccessible('run search');
    await hit.locator('td.snippet').getByRole('link').click();
    await page.waitForURL(new RegExp(`/runs/${SEARCHED}\\?at=${FOUND_AT}$`));
    const record = page.locator('li.record-at');
    await record.waitFor();
    await expect(record.getAttribute('id')).resolves.toBe(`record-${FOUND_AT - 1}`);
    await expect(record.getAttribute('aria-current')).resolves.toBe('true');
    await expect(record.textContent()).resolves.toContain('the peregrine landed on the roof');
    // Record 230 is on the second page of 200: that page was loaded and scrolled to it.
    await page.waitForFunction(() => {
      const box = document.querySelector('li.record-at')?.getBoundingClientRect();
      return box !== undefined && box.top >= 0 && box.bottom <= window.innerHeight;
    });
    await expect(page.evaluate(() => window.scrollY)).resolves.toBeGreaterThan(0);
    // Runs in SQLite are not chained yet: the badge says so, plainly.
    await page.waitForSelector('.badge.chain:not(.chain-checking)');
    await expect(page.locator('.badge.chain').textContent()).resolves.toBe('not chained');
    await expectAccessible('run at a search hit');
  });

  it('shows hostile record text as text in a run hit', async () => {
    await open(searchable, '/search?in=runs&q=merlin');
    await page.waitForSelector('table.run-hits tbody tr');
    const snippet = page.locator('table.run-hits td.snippet').first();
    await expect(snippet.textContent()).resolves.toContain(
      '<img src=x onerror="window.__pwned=1">',
    );
    await expect(snippet.locator('mark').allTextContents()).resolves.toEqual(['merlin']);
    await expect(page.locator('main img, main script').count()).resolves.toBe(0);
    await expect(page.evaluate(() => (window as { __pwned?: number }).__pwned)).resolves.toBe(
      undefined,
    );
  });

  it('says plainly when the runs cannot be searched (run files)', async () => {
    await open(chained, '/search?q=line&in=runs');
    const notice = page.locator('p.notice');
    await notice.waitFor();
    await expect(notice.textContent()).resolves.toContain('keep no search index');
    await expect(page.locator('table.run-hits').count()).resolves.toBe(0);
  });

  it('shows "verified" on a chained run and the error on a run changed by hand', async () => {
    await open(chained, `/runs/${CLEAN}`);
    await page.waitForSelector('.badge.chain:not(.chain-checking)');
    await expect(page.locator('.badge.chain').textContent()).resolves.toBe('verified');
    await expect(page.locator('.badge.chain').getAttribute('class')).resolves.toContain(
      'chain-verified',
    );
    await expectAccessible('run with a verified chain');

    await open(chained, `/runs/${TAMPERED}`);
    await page.waitForSelector('.badge.chain:not(.chain-checking)');
    const badge = page.locator('.badge.chain');
    await expect(badge.textContent()).resolves.toBe('1 error');
    await expect(badge.getAttribute('class')).resolves.toContain('chain-error');
    await expect(badge.getAttribute('title')).resolves.toMatch(
      /^Entry 3 \(line 3 of sessions\/2026\/03\/02\/.*\.jsonl\) was changed outside Episodic\.$/,
    );
    await page.locator('.chain-details summary').click();
    await expect(page.locator('.chain-details p').isVisible()).resolves.toBe(true);
    await expect(page.locator('.chain-details p').textContent()).resolves.toContain(
      'was changed outside Episodic',
    );
    await expectAccessible('run with a changed line');
  });

  it('shows the chain badge of one ledger session', async () => {
    await open(chained, '/ledger?scope=proj&session=ledger-session');
    await page.waitForSelector('.chain-line .badge.chain:not(.chain-checking)');
    await expect(page.locator('.chain-line').textContent()).resolves.toContain('ledger-session');
    await expect(page.locator('.chain-line .badge.chain').textContent()).resolves.toBe('verified');
    await expectAccessible('ledger session with its chain badge');
  });
});
