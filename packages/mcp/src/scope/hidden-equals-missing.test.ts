/**
 * Issue 29, item 6: under an access policy, an object the policy hides and an object that does
 * not exist get the identical answer (same code, same message, same counts), for every tool that
 * takes an id or a cursor. Each row calls the tool once with the hidden id and once with an
 * unknown id of the same shape; the answers must be deep-equal once the id itself is replaced.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConnectedClient,
  CREATE_ARGUMENTS,
  connect,
  countingStores,
  UNKNOWN_ID,
} from '../__fixtures__/mcp-harness.js';

const SCOPE = 'team';
const POLICY = { required: { tenant: 'acme' } };
const HIDDEN_SESSION = '5a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d';
const UNKNOWN_SESSION = '6b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d4e';
const LEDGER_SESSION = 'ledger-session';

const open: ConnectedClient[] = [];
afterEach(async () => {
  for (const connected of open.splice(0)) await connected.close();
});

/** An id of the same shape as `id` that no store holds: its last character changed. */
function unknownLike(id: string, taken: ReadonlySet<string>): string {
  for (const last of '0123456789ABCDEFGHJKMNPQRSTVWXYZ') {
    const candidate = `${id.slice(0, -1)}${last}`;
    if (!taken.has(candidate)) return candidate;
  }
  throw new Error(`no unknown id like ${id}`);
}

async function setUp() {
  const { stores } = countingStores();
  const everything = await connect({ stores, scope: SCOPE });
  const acmeOnly = await connect({ stores, scope: SCOPE, policy: POLICY as never });
  open.push(everything, acmeOnly);

  const visibleTask = (
    await acmeOnly.call('create_episode', { ...CREATE_ARGUMENTS, metadata: { tenant: 'acme' } })
  ).body.episode_id as string;
  const hiddenTask = (
    await everything.call('create_episode', {
      ...CREATE_ARGUMENTS,
      session_id: HIDDEN_SESSION,
      metadata: { tenant: 'globex' },
    })
  ).body.episode_id as string;
  expect(visibleTask).toEqual(expect.any(String));
  expect(hiddenTask).toEqual(expect.any(String));

  const ids: string[] = [];
  for (const tenant of ['acme', 'globex', 'acme', 'globex', 'globex', 'acme']) {
    const receipt = await stores.ledger.append({
      scope: SCOPE,
      session_id: LEDGER_SESSION,
      agent_id: 'agent',
      type: 'ops.decision',
      summary: `for ${tenant}`,
      metadata: { tenant },
    });
    ids.push(receipt.event.event_id);
  }
  const hiddenEvent = ids[1] as string;
  const unknownEvent = unknownLike(hiddenEvent, new Set(ids));
  return { acmeOnly, everything, visibleTask, hiddenTask, hiddenEvent, unknownEvent, ids };
}

/** The answer with the id replaced, so answers about two different ids can be compared. */
function normalized(outcome: { isError: boolean; body: unknown }, id: string) {
  return {
    isError: outcome.isError,
    body: JSON.parse(JSON.stringify(outcome.body).split(id).join('<id>')),
  };
}

describe('hidden answers exactly like missing under an access policy', () => {
  it('every tool that takes an id or a cursor: hidden id vs unknown id are deep-equal', async () => {
    const { acmeOnly, hiddenTask, hiddenEvent, unknownEvent } = await setUp();
    const table: Array<[string, (id: string) => Record<string, unknown>, string, string]> = [
      ['get_episode', (id) => ({ episode_id: id }), hiddenTask, UNKNOWN_ID],
      ['get_episode_timeline', (id) => ({ episode_id: id }), hiddenTask, UNKNOWN_ID],
      [
        'add_episode_step',
        (id) => ({ episode_id: id, step_number: 1, tool: 't', action: 'a' }),
        hiddenTask,
        UNKNOWN_ID,
      ],
      [
        'complete_episode',
        (id) => ({ episode_id: id, outcome_type: 'success', verdict: 'v' }),
        hiddenTask,
        UNKNOWN_ID,
      ],
      ['memory_episodes_query', (id) => ({ afterId: id }), hiddenEvent, unknownEvent],
      ['memory_episodes_query', (id) => ({ afterId: id, limit: 1 }), hiddenEvent, unknownEvent],
      [
        'memory_episodes_query',
        (id) => ({ afterId: id, sessionId: LEDGER_SESSION }),
        hiddenEvent,
        unknownEvent,
      ],
      [
        'replay_session',
        (id) => ({ session_id: LEDGER_SESSION, after_id: id }),
        hiddenEvent,
        unknownEvent,
      ],
      [
        'replay_session',
        (id) => ({ session_id: id, source: 'runs' }),
        HIDDEN_SESSION,
        UNKNOWN_SESSION,
      ],
      ['list_runs', (id) => ({ session_id: id }), HIDDEN_SESSION, UNKNOWN_SESSION],
      ['memory_episodes_query', (id) => ({ sessionId: id }), HIDDEN_SESSION, UNKNOWN_SESSION],
      // Last: on an unknown id it changes nothing, and on the hidden one it must not either.
      ['delete_episode', (id) => ({ episode_id: id, confirm: true }), hiddenTask, UNKNOWN_ID],
    ];
    for (const [tool, args, hidden, unknown] of table) {
      const forHidden = normalized(await acmeOnly.call(tool, args(hidden)), hidden);
      const forUnknown = normalized(await acmeOnly.call(tool, args(unknown)), unknown);
      expect(forHidden, `${tool} ${JSON.stringify(args('<id>'))}`).toEqual(forUnknown);
    }
  });

  it('the hidden task is untouched by the calls a policy-bound client made on it', async () => {
    const { acmeOnly, everything, hiddenTask } = await setUp();
    await acmeOnly.call('add_episode_step', {
      episode_id: hiddenTask,
      step_number: 1,
      tool: 't',
      action: 'a',
    });
    await acmeOnly.call('delete_episode', { episode_id: hiddenTask, confirm: true });
    const seen = await everything.call('get_episode', { episode_id: hiddenTask });
    expect(seen.isError).toBe(false);
    expect(seen.body.episode.steps).toEqual([]);
  });

  it('a cursor a policy-bound client is given is always a visible event, so paging reaches the end', async () => {
    const { acmeOnly, everything, ids } = await setUp();
    const seen: string[] = [];
    let afterId: string | undefined;
    for (let page = 0; page < 10; page++) {
      const body = (
        await acmeOnly.call('memory_episodes_query', {
          limit: 1,
          ...(afterId === undefined ? {} : { afterId }),
        })
      ).body;
      expect(body.success, JSON.stringify(body)).toBe(true);
      seen.push(...body.events.map((event: { event_id: string }) => event.event_id));
      if (body.next_after_id === null) break;
      expect(seen).toContain(body.next_after_id);
      afterId = body.next_after_id;
    }
    expect(seen).toEqual([ids[0], ids[2], ids[5]]);
    expect((await everything.call('memory_episodes_query', {})).body.count).toBe(6);
  });
});
