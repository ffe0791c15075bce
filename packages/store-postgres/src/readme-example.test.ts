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
