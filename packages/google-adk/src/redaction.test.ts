// Sessions, user state and app state are runs, so Episodic's run redaction reaches what ADK
// stored: after `runs.redact(…)` (what `episodic runs redact` calls) on the session's run and on
// its user's and app's runs, a resumed session (a fresh service, or this one after `forget()`)
// reads the scrubbed text in its events and its state, and the session keeps accepting events
// (redaction rewrites lines in place).
import { createEvent, createEventActions } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './__fixtures__/backends.js';
import { EpisodicSessionService } from './episodic-session-service.js';
import { appRunId, sessionRunId, userRunId } from './session-records.js';

const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');

describe.each(BACKENDS)('redacting an ADK session ($name)', (backend) => {
  it('scrubs the stored events and state; a resumed session reads the redacted text; appends go on', async () => {
    const opened = await backend.open();
    try {
      const service = new EpisodicSessionService({ runs: opened.runs });
      const key = { appName: 'app', userId: 'ada', sessionId: 's' };
      const session = await service.createSession(key);
      await service.appendEvent({
        session,
        event: createEvent({
          author: 'user',
          content: { role: 'user', parts: [{ text: `my key is ${SECRET}` }] },
          actions: createEventActions({
            stateDelta: { key: SECRET, 'user:key': SECRET, 'app:key': SECRET },
          }),
        }),
      });
      for (const runId of [
        sessionRunId(key.appName, key.userId, key.sessionId),
        userRunId(key.appName, key.userId),
        appRunId(key.appName),
      ]) {
        const receipt = await opened.runs.redact(runId);
        expect(receipt.changedLines).toBeGreaterThan(0);
      }
      // Until it forgets, this service serves what it read; a resumed session reads the store.
      expect(JSON.stringify(await service.getSession(key))).toContain(SECRET);
      const resumed = await new EpisodicSessionService({ runs: opened.runs }).getSession(key);
      service.forget();
      for (const read of [resumed, await service.getSession(key)]) {
        expect(JSON.stringify(read)).not.toContain(SECRET);
        expect(read?.events[0]?.content?.parts?.[0]?.text).toMatch(/^my key is \[REDACTED/);
        expect(read?.state.key).toMatch(/^\[REDACTED/);
        expect(read?.state['user:key']).toMatch(/^\[REDACTED/);
        expect(read?.state['app:key']).toMatch(/^\[REDACTED/);
      }
      // The same service appends after the rewrite.
      await service.appendEvent({ session, event: createEvent({ author: 'agent' }) });
      const after = await new EpisodicSessionService({ runs: opened.runs }).getSession(key);
      expect(after?.events.map((event) => event.author)).toEqual(['user', 'agent']);
    } finally {
      await opened.close();
    }
  });
});
