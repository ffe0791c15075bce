import { describe, expect, it } from 'vitest';
import {
  artifactKeySchema,
  episodeRefSchema,
  ledgerEpisodeRef,
  normalizeEpisodeRef,
  parseEpisodeRef,
  sessionEpisodeRef,
  taskEpisodeRef,
} from './artifact.js';

const UUID = '6F1C2A4E-3B5D-4C7E-9F80-1A2B3C4D5E6F';

describe('episode references', () => {
  it('parses and normalizes the three documented forms', () => {
    expect(parseEpisodeRef(`task:${UUID}`)).toEqual({ kind: 'task', taskId: UUID.toLowerCase() });
    expect(parseEpisodeRef(`session:${UUID}#42`)).toEqual({
      kind: 'session',
      sessionId: UUID.toLowerCase(),
      episodeId: 42,
    });
    expect(parseEpisodeRef('ledger:01J9ZQ4V8N3K2M1P0R5S6T7U8W')).toEqual({
      kind: 'ledger',
      eventId: '01J9ZQ4V8N3K2M1P0R5S6T7U8W',
    });
    expect(normalizeEpisodeRef(`task:${UUID}`)).toBe(taskEpisodeRef(UUID));
    expect(normalizeEpisodeRef(`session:${UUID}#7`)).toBe(sessionEpisodeRef(UUID, 7));
    expect(ledgerEpisodeRef('evt_1')).toBe('ledger:evt_1');
  });

  it('rejects everything else', () => {
    for (const bad of [
      'task:1',
      `session:${UUID}`,
      `session:${UUID}#0`,
      `session:${UUID}#99999999999999999`,
      'ledger:',
      'ledger:../x',
      'run:abc',
      `task:${UUID} `,
      '',
    ]) {
      expect(parseEpisodeRef(bad), bad).toBeNull();
      expect(episodeRefSchema.safeParse(bad).success, bad).toBe(false);
    }
  });

  it('accepts safe artifact keys only', () => {
    expect(artifactKeySchema.safeParse('tool_sequence:0123abcd').success).toBe(true);
    expect(artifactKeySchema.safeParse('a/b@c+d=e-f.g').success).toBe(true);
    for (const bad of ['', ' a', 'a b', ':a', 'a\n', 'x'.repeat(257)]) {
      expect(artifactKeySchema.safeParse(bad).success, bad).toBe(false);
    }
  });
});
