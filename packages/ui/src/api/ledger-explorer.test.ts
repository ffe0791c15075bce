import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { createStoreAccess } from '../stores/ui-stores.js';
import { ledgerEvent, ledgerPage } from './ledger-explorer.js';

let home: UiHome;

beforeAll(async () => {
  home = await createUiHome();
});
afterAll(() => home.close());

describe('GET /api/ledger', () => {
  it('reads one scope only, and every scope only when asked for explicitly', async () => {
    await expect(ledgerPage(home.stores.ledger, {})).rejects.toMatchObject({
      code: 'SCOPE_REQUIRED',
    });
    const proj = await ledgerPage(home.stores.ledger, { scope: 'proj', limit: '200' });
    expect(proj.events).toHaveLength(31);
    expect(new Set(proj.events.map((event) => event.scope))).toEqual(new Set(['proj']));
    const all = await ledgerPage(home.stores.ledger, { global: '1', limit: '200' });
    expect(all.events).toHaveLength(32);
    expect(await createStoreAccess(home.stores).listScopes()).toEqual(['other', 'proj']);
  });

  it('shows a redacted row as redacted, with no payload even on demand', async () => {
    const page = await ledgerPage(home.stores.ledger, { scope: 'proj', type: 'ops.alert' });
    expect(page.events).toEqual([
      expect.objectContaining({
        event_id: home.ids.redactedEventId,
        redacted: true,
        summary: '[REDACTED]',
      }),
    ]);
    const { event } = await ledgerEvent(home.stores.ledger, {
      scope: 'proj',
      type: 'ops.alert',
      event: home.ids.redactedEventId,
    });
    expect(event.payload).toBe('[REDACTED]');
    expect(JSON.stringify(event)).not.toContain('private');
  });

  it('pages forward with the cursor and filters by type, session, agent and time', async () => {
    const first = await ledgerPage(home.stores.ledger, {
      scope: 'proj',
      session: 's-1',
      limit: '10',
    });
    const second = await ledgerPage(home.stores.ledger, {
      scope: 'proj',
      session: 's-1',
      limit: '10',
      cursor: first.next_cursor as string,
    });
    expect(first.events.map((event) => event.summary)).toEqual(
      Array.from({ length: 10 }, (_, index) => `event ${index}`),
    );
    expect(second.events[0]?.summary).toBe('event 10');
    const planner = await ledgerPage(home.stores.ledger, {
      scope: 'proj',
      agent: 'planner',
      limit: '4',
    });
    expect(planner.events.map((event) => event.summary)).toEqual([
      'event 0',
      'event 3',
      'event 6',
      'event 9',
    ]);
    const morePlanner = await ledgerPage(home.stores.ledger, {
      scope: 'proj',
      agent: 'planner',
      limit: '4',
      cursor: planner.next_cursor as string,
    });
    expect(morePlanner.events.map((event) => event.summary)).toEqual([
      'event 12',
      'event 15',
      'event 18',
      'event 21',
    ]);
    const calls = await ledgerPage(home.stores.ledger, {
      scope: 'proj',
      type: 'tool.call',
      limit: '200',
    });
    expect(calls.events).toHaveLength(15);
    const early = await ledgerPage(home.stores.ledger, {
      scope: 'proj',
      to: '2026-01-01T00:00:04Z',
      limit: '200',
    });
    expect(early.events.map((event) => event.summary)).toEqual([
      'event 0',
      'event 1',
      'event 2',
      'event 3',
      'event 4',
    ]);
  });

  it('serves a payload on demand: the first event after the cursor, which must be the named one', async () => {
    const page = await ledgerPage(home.stores.ledger, { scope: 'proj', limit: '3' });
    const third = page.events[2];
    const { event } = await ledgerEvent(home.stores.ledger, {
      scope: 'proj',
      cursor: page.events[1]?.event_id as string,
      event: third?.event_id as string,
    });
    expect(event.payload).toEqual({ index: 2, secret_free: true });
    await expect(
      ledgerEvent(home.stores.ledger, { scope: 'proj', event: third?.event_id as string }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      ledgerPage(home.stores.ledger, { scope: 'proj', type: 'bogus' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('takes a unique prefix of an event id as cursor and event, within the scope only', async () => {
    const proj = (await ledgerPage(home.stores.ledger, { scope: 'proj', limit: '200' })).events;
    const other = (await ledgerPage(home.stores.ledger, { scope: 'other', limit: '200' })).events;
    const everyId = [...proj, ...other].map((event) => event.event_id);
    /** The shortest prefix (6 or more characters) that no other stored event id starts with. */
    const shortest = (id: string) => {
      for (let length = 6; length < id.length; length++) {
        const prefix = id.slice(0, length);
        if (everyId.filter((each) => each.startsWith(prefix)).length === 1) return prefix;
      }
      return id;
    };
    const [first, second, third] = proj;
    const cursor = shortest(second?.event_id as string);
    const page = await ledgerPage(home.stores.ledger, {
      scope: 'proj',
      limit: '1',
      cursor: cursor.toLowerCase(),
    });
    expect(page.events.map((event) => event.event_id)).toEqual([third?.event_id]);
    const { event } = await ledgerEvent(home.stores.ledger, {
      scope: 'proj',
      cursor,
      event: shortest(third?.event_id as string),
    });
    expect(event.event_id).toBe(third?.event_id);

    // A prefix two events of the scope share names both.
    const a = first?.event_id as string;
    const b = second?.event_id as string;
    let common = 0;
    while (a[common] === b[common]) common++;
    if (common >= 6) {
      const ambiguous = ledgerPage(home.stores.ledger, { scope: 'proj', cursor: a.slice(0, 6) });
      await expect(ambiguous).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      await expect(ambiguous).rejects.toThrow(`${a}, ${b}`);
    }
    // Another scope's event answers like an id nobody has.
    const foreign = shortest(other[0]?.event_id as string);
    const walled = ledgerPage(home.stores.ledger, { scope: 'proj', cursor: foreign });
    await expect(walled).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(walled).rejects.not.toThrow(other[0]?.event_id as string);
    expect(
      (await ledgerPage(home.stores.ledger, { scope: 'other', cursor: foreign })).events,
    ).toEqual(other.slice(1));
  });
});
