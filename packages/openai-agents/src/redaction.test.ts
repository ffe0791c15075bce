// Sessions are runs, so Episodic's run redaction reaches their items: after
// `runs.redact(session.runId)` (what `episodic runs redact` calls), a resumed session (a new
// EpisodicSession, in this process or another) reads the scrubbed text, and the session keeps
// accepting changes (redaction rewrites lines in place, so positions stay valid).
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './__fixtures__/backends.js';
import { EpisodicSession } from './episodic-session.js';

const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');

describe.each(BACKENDS)('redacting a session ($name)', (backend) => {
  it('scrubs the stored items; a resumed session reads the redacted text; writes go on', async () => {
    const opened = await backend.open();
    try {
      const session = new EpisodicSession({ runs: opened.runs, sessionId: 'redact-me' });
      await session.addItems([
        { role: 'user', content: `my key is ${SECRET}` },
        {
          type: 'function_call',
          callId: 'c1',
          name: 'store_key',
          arguments: JSON.stringify({ key: SECRET }),
        },
        {
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'noted' }],
        },
      ]);
      const receipt = await opened.runs.redact(session.runId);
      expect(receipt.changedLines).toBeGreaterThan(0);
      const resumed = new EpisodicSession({ runs: opened.runs, sessionId: 'redact-me' });
      const items = await resumed.getItems();
      expect(JSON.stringify(items)).not.toContain(SECRET);
      expect(JSON.stringify(items)).toContain('my key is [REDACTED');
      expect(items).toHaveLength(3);
      // The session that wrote the secret goes on writing (its own copy is what it already had);
      // both see each other's changes.
      await session.popItem();
      await session.addItems([{ role: 'user', content: 'next' }]);
      expect((await resumed.getItems()).map((item) => (item as { role?: string }).role)).toEqual([
        'user',
        undefined,
        'user',
      ]);
    } finally {
      await opened.close();
    }
  });
});
