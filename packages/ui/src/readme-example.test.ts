// The README's "Use it from code" example, run as written (with a temporary home).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEpisodicStores } from '@episodic/home';
import { expect, it } from 'vitest';
import { startUiServer } from './index.js';

it('serves a home from code as the README shows', async () => {
  const home = mkdtempSync(join(tmpdir(), 'episodic-ui-readme-'));
  try {
    const stores = await openEpisodicStores({ home, store: 'fs' });
    const ui = await startUiServer({ stores, port: 0 });
    expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
    const overview = await fetch(`${ui.origin}/api/overview`, {
      headers: { authorization: `Bearer ${ui.token}` },
    });
    expect(await overview.json()).toMatchObject({ home, store: 'fs', scopes: [] });
    const runs = await fetch(`${ui.origin}/api/runs`, {
      headers: { authorization: `Bearer ${ui.token}` },
    });
    expect(await runs.json()).toMatchObject({ runs: [], next_cursor: null });
    await ui.close();
    await stores.close();
    await expect(fetch(`${ui.origin}/api/overview`)).rejects.toThrow();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
