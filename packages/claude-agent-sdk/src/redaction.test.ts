// Sessions are runs, so Episodic's run redaction reaches their transcript entries: after
// `runs.redact(sessionRunId(key))` (what `episodic runs redact` calls), `load` returns the scrubbed
// text and the session keeps accepting appends (redaction rewrites lines in place).
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './__fixtures__/backends.js';
import { EpisodicSessionStore } from './episodic-session-store.js';
import { sessionRunId } from './session-records.js';

const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');

describe.each(BACKENDS)('redacting a session ($name)', (backend) => {
  it('scrubs the stored entries; load returns the redacted text; appends go on', async () => {
    const opened = await backend.open();
    try {
      const store = new EpisodicSessionStore({ runs: opened.runs });
      const key = { projectKey: 'p', sessionId: 's' };
      await store.append(key, [
        { type: 'user', uuid: 'u1', message: { role: 'user', content: `my key is ${SECRET}` } },
        { type: 'assistant', uuid: 'a1', message: { role: 'assistant', content: 'noted' } },
      ]);
      const receipt = await opened.runs.redact(sessionRunId(key));
      expect(receipt.changedLines).toBeGreaterThan(0);
      const loaded = await store.load(key);
      expect(JSON.stringify(loaded)).not.toContain(SECRET);
      expect(JSON.stringify(loaded)).toContain('my key is [REDACTED');
      // The same store instance appends after the rewrite; uuids stay deduplicated.
      await store.append(key, [
        { type: 'user', uuid: 'u1' },
        { type: 'user', uuid: 'u2', message: { role: 'user', content: 'next' } },
      ]);
      expect((await store.load(key))?.map((entry) => entry.uuid)).toEqual(['u1', 'a1', 'u2']);
    } finally {
      await opened.close();
    }
  });
});
