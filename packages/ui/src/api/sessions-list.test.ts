import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { createRunDigestCache } from './run-digests.js';
import { listSessionsPage } from './sessions-list.js';

let home: UiHome;
let deps: Parameters<typeof listSessionsPage>[0];

beforeAll(async () => {
  home = await createUiHome();
  deps = {
    sessions: home.stores.sessions,
    runs: home.stores.runs,
    digests: createRunDigestCache(home.stores.runs),
  };
});
afterAll(() => home.close());

describe('GET /api/sessions', () => {
  it("lists each session with its last input, last activity and its last run's status, model and tokens", async () => {
    const page = await listSessionsPage(deps, {});
    const session = page.sessions.find((entry) => entry.session_id === home.ids.sessionId);
    expect(session?.title).toBe('And then?');
    expect(Date.parse(session?.last_activity_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(session?.updated_at ?? ''),
    );
    expect(session?.last_run_id).not.toBeNull();
    expect(session?.last_run_status).toBe('completed');
    expect(session?.model).toBe('test/echo-1');
    // Its last run's response reports no usage: unknown, not zero.
    expect(session?.input_tokens).toBeNull();
    const fork = page.sessions.find((entry) => entry.session_id === home.ids.forkId);
    expect(fork).toMatchObject({ title: 'In the fork', last_run_id: home.ids.forkRunId });
  });

  it('refuses a bad query and changes nothing', async () => {
    await expect(listSessionsPage(deps, { offset: '-1' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});
