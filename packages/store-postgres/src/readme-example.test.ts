// The README's first example, run as written (DATABASE_URL pointing at the test server, in a
// schema of its own).
import { expect, it } from 'vitest';
import { dropSchema, testPostgresUrl, uniqueSchema } from '../test/postgres-test-schema.js';
import { createPostgresStore } from './index.js';

it('appends and queries as the README shows', async () => {
  const schema = uniqueSchema('readme');
  const process = { env: { DATABASE_URL: testPostgresUrl() } };
  try {
    const store = await createPostgresStore({ connectionString: process.env.DATABASE_URL, schema });
    await store.ledger.append({
      scope: 'team-a',
      session_id: 'sess-001',
      agent_id: 'worker-7',
      type: 'conversation.user',
      summary: 'Asked for status',
    });
    const page = await store.ledger.query({ scope: 'team-a', sessionId: 'sess-001' });
    await store.close();
    expect(page.events.map((event) => [event.summary, event.position])).toEqual([
      ['Asked for status', 1],
    ]);
  } finally {
    await dropSchema(testPostgresUrl(), schema);
  }
});

it('searches as the README shows', async () => {
  const schema = uniqueSchema('readme_search');
  const process = { env: { DATABASE_URL: testPostgresUrl() } };
  try {
    const store = await createPostgresStore({ connectionString: process.env.DATABASE_URL, schema });
    await store.ledger.append({
      scope: 'team-a',
      session_id: 'sess-001',
      agent_id: 'worker-7',
      type: 'tool.result',
      summary: 'Deployed the billing service',
      payload: { note: 'café' },
    });
    const page = await store.ledger.search({ scope: 'team-a', text: '"billing service" cafe' });
    await store.close();
    expect(page.hits.map((hit) => hit.snippet)).toEqual(['Deployed the «billing service»\n«café»']);
  } finally {
    await dropSchema(testPostgresUrl(), schema);
  }
});

it('searches runs as the README shows', async () => {
  const schema = uniqueSchema('readme_run_search');
  const process = { env: { DATABASE_URL: testPostgresUrl() } };
  try {
    const store = await createPostgresStore({ connectionString: process.env.DATABASE_URL, schema });
    const runId = '0c9e4b1a-6f2d-4e8a-9b3c-7d5e1f2a3b4c';
    await store.runs.append(runId, [
      { type: 'header', schema_version: 1, run_id: runId, started_at: '2026-02-03T12:00:00.000Z' },
      {
        type: 'agent.event',
        run_id: runId,
        ts: '2026-02-03T12:00:01.000Z',
        seq: 1,
        event: { type: 'final', text: 'Flushed the billing cache' },
      },
    ]);
    const page = await store.runs.search({ text: 'billing cache' });
    await store.runs.delete(runId);
    await store.close();
    expect(page.hits).toEqual([
      expect.objectContaining({
        run_id: runId,
        position: 2,
        type: 'agent.event',
        snippet: 'Flushed the «billing» «cache»',
      }),
    ]);
  } finally {
    await dropSchema(testPostgresUrl(), schema);
  }
});
