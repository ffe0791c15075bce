// Ledger event ids as people type them: `resolveEventId` (a whole id or a unique prefix).
import { describe, expect, it } from 'vitest';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { eventOf } from './fixtures.js';

/** Registers the tests of `Ledger.resolveEventId`. */
export function ledgerEventIdTests({ open }: ContractGroup<'ledger'>): void {
  // Ids as people type them: a unique prefix of an event id, found by an indexed range in the
  // caller's scope. Ids are chosen so that prefixes collide across scopes.
  describe('event ids by prefix', () => {
    it('resolves a whole id or a unique prefix in the scope; an ambiguous one names its candidates; other scopes stay invisible', async (context) => {
      const { store: ledger } = await open(context);
      const A1 = '01JH4Z5Q8K2M3N4P5Q6R7S8T9V';
      const A2 = '01JH4Z5Q8K2M3N4P5Q6R7S8T9W';
      const A3 = '01JH4ZAAAAAAAAAAAAAAAAAAAA';
      const B1 = '01JH4Z5Q8K9999999999999999';
      const B_ONLY = '01JH4ZBBBBBBBBBBBBBBBBBBBB';
      const inA = { scope: 'project-a' };
      for (const eventId of [A1, A2, A3]) await ledger.append(eventOf({ event_id: eventId }));
      for (const eventId of [B1, B_ONLY]) {
        await ledger.append(eventOf({ event_id: eventId, scope: 'project-b' }));
      }
      await ledger.append(eventOf({ event_id: 'short' }));
      await ledger.append(eventOf({ event_id: 'short-and-longer' }));

      expect(await ledger.resolveEventId(A1, inA)).toBe(A1);
      expect(await ledger.resolveEventId('01JH4ZA', inA)).toBe(A3);
      // Upper-case ids typed in lower case.
      expect(await ledger.resolveEventId('01jh4za', inA)).toBe(A3);
      expect(
        await ledger.resolveEventId('01JH4Z5Q8K2M3N4P5Q6R7S8T9W', { scope: ' Project-A ' }),
      ).toBe(A2);
      // A whole id wins over the longer ids it starts; a short whole id is looked up as it is.
      expect(await ledger.resolveEventId('short', inA)).toBe('short');
      expect(await ledger.resolveEventId('short-', inA)).toBe('short-and-longer');

      // Ambiguous in project-a: A1 and A2 are named and counted, B1 (project-b) is not.
      const ambiguous = await expectEpisodicError(
        ledger.resolveEventId('01JH4Z5Q8K', inA),
        'VALIDATION_ERROR',
      );
      expect(ambiguous.message).toContain(`is the start of 2 event ids: ${A1}, ${A2}.`);
      expect(ambiguous.message).not.toContain(B1);
      expect(ambiguous.details).toMatchObject({ count: 2, candidates: [A1, A2] });

      // Another scope's event answers exactly like an id nobody has, by prefix or whole.
      const walled = await expectEpisodicError(ledger.resolveEventId('01JH4ZB', inA), 'NOT_FOUND');
      expect(walled.message).not.toContain(B_ONLY);
      const nobody = await expectEpisodicError(ledger.resolveEventId('01JH4ZC', inA), 'NOT_FOUND');
      expect(walled.message.replace('01JH4ZB', '01JH4ZC')).toBe(nobody.message);
      await expectEpisodicError(ledger.resolveEventId(B_ONLY, inA), 'NOT_FOUND');
      expect(await ledger.resolveEventId('01JH4ZB', { scope: 'project-b' })).toBe(B_ONLY);
      // Every scope, when asked for: then all three share the prefix.
      const everywhere = await expectEpisodicError(
        ledger.resolveEventId('01JH4Z5Q8K', { global: true }),
        'VALIDATION_ERROR',
      );
      expect(everywhere.details).toMatchObject({ count: 3, candidates: [A1, A2, B1] });
      expect(await ledger.resolveEventId('01JH4Z5Q8K9', { global: true })).toBe(B1);

      // Too short to be a prefix and not a whole id; not an id at all; no scope.
      const short = await expectEpisodicError(ledger.resolveEventId('01JH4', inA), 'NOT_FOUND');
      expect(short.message).toContain('6 or more characters');
      const bad = await expectEpisodicError(
        ledger.resolveEventId('01JH4Z 5Q', inA),
        'VALIDATION_ERROR',
      );
      expect(bad.message).toContain('An event id is');
      await expectEpisodicError(ledger.resolveEventId('01JH4Z', {} as never), 'SCOPE_REQUIRED');

      // unmatched: 'as-given' returns what no visible event has unchanged (the caller answers
      // NOT_FOUND in its own words); ambiguity and non-ids are still errors, other scopes still walled.
      const asGiven = { ...inA, unmatched: 'as-given' as const };
      expect(await ledger.resolveEventId('01JH4ZA', asGiven)).toBe(A3);
      expect(await ledger.resolveEventId('01JH4ZB', asGiven)).toBe('01JH4ZB');
      expect(await ledger.resolveEventId(B_ONLY, asGiven)).toBe(B_ONLY);
      expect(await ledger.resolveEventId('01JH4', asGiven)).toBe('01JH4');
      await expectEpisodicError(ledger.resolveEventId('01JH4Z5Q8K', asGiven), 'VALIDATION_ERROR');
      await expectEpisodicError(ledger.resolveEventId('01JH4Z 5Q', asGiven), 'VALIDATION_ERROR');
      const wrongMode = await expectEpisodicError(
        ledger.resolveEventId('01JH4ZA', { ...inA, unmatched: 'skip' } as never),
        'VALIDATION_ERROR',
      );
      expect(wrongMode.message).toContain('unmatched');
    });

    it('never resolves, names or counts an event the access policy hides', async (context) => {
      const { store: ledger } = await open(context);
      const SHOWN = 'evt-policy-shown';
      const HIDDEN = 'evt-policy-hidden';
      await ledger.append(eventOf({ event_id: SHOWN, metadata: { tenant: 'acme' } }));
      await ledger.append(eventOf({ event_id: HIDDEN, metadata: { tenant: 'other' } }));
      const policy = { required: { tenant: 'acme' } };
      expect(await ledger.resolveEventId('evt-policy', { scope: 'project-a', policy })).toBe(SHOWN);
      const hidden = await expectEpisodicError(
        ledger.resolveEventId('evt-policy-h', { scope: 'project-a', policy }),
        'NOT_FOUND',
      );
      expect(hidden.message).not.toContain(HIDDEN);
      await expectEpisodicError(
        ledger.resolveEventId(HIDDEN, { scope: 'project-a', policy }),
        'NOT_FOUND',
      );
      await expectEpisodicError(
        ledger.resolveEventId('evt-policy', { scope: 'project-a' }),
        'VALIDATION_ERROR',
      );
    });
  });
}
