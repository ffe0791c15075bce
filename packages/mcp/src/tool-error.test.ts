import { EpisodicError } from '@episodic/core';
import { parseInput } from '@episodic/core/adapter';
import { uuidSchema } from '@episodic/core/schemas';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_ERROR_CODES, toolUnsupported, toToolErrorBody } from './tool-error.js';

describe('toToolErrorBody', () => {
  it("passes a tool's own UNSUPPORTED answer through, never a store's", () => {
    const answer = toToolErrorBody(
      toolUnsupported('search_history cannot run here. Use memory_episodes_query instead.'),
      'search_history',
    );
    expect(answer).toEqual({
      error: 'search_history cannot run here. Use memory_episodes_query instead.',
      code: 'UNSUPPORTED',
    });
    expect(TOOL_ERROR_CODES).toContain(answer.code);
    const store = toToolErrorBody(
      new EpisodicError({ code: 'UNSUPPORTED', message: 'SQLite 3.31 at /srv/db lacks FTS5' }),
      'search_history',
    );
    expect(store.code).toBe('INTERNAL_ERROR');
    expect(store.error).not.toContain('/srv/db');
  });

  it('never echoes a path-like, non-ASCII or control-character value given as an id', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 80 }),
          fc.constantFrom(
            '../../etc/passwd',
            '/etc/shadow',
            'C:\\Windows\\win.ini',
            '\\\\server\\share',
            'a\u0000b',
          ),
        ),
        (value) => {
          let error: unknown;
          try {
            parseInput(
              z.strictObject({ episode_id: uuidSchema }),
              { episode_id: value },
              'get_episode arguments',
            );
          } catch (caught) {
            error = caught;
          }
          if (error === undefined) return;
          const body = toToolErrorBody(error, 'get_episode');
          expect(body.code).toBe('VALIDATION_ERROR');
          expect(body.error).toMatch(/^Invalid get_episode arguments: episode_id /);
          const echoed = /\(got (.*)\)\. Fix/.exec(body.error)?.[1];
          if (echoed !== undefined) {
            expect(echoed).toMatch(/^[\x20-\x7e]*$/);
            expect(echoed).not.toMatch(/[/\\]/);
          }
        },
      ),
    );
  });

  it('removes absolute paths from pass-through messages and hides storage details', () => {
    const notFound = new EpisodicError({
      code: 'NOT_FOUND',
      message:
        'Run x does not exist in /home/me/.episodic/sessions/2026/01/01 or C:\\data\\x.jsonl.',
    });
    expect(toToolErrorBody(notFound, 't').error).toBe('Run x does not exist in [path] or [path]');
    const logged: unknown[] = [];
    const storage = toToolErrorBody(
      new EpisodicError({ code: 'STORAGE_ERROR', message: 'disk full at /var/x' }),
      'add_episode_step',
      (entry) => logged.push(entry.error),
    );
    expect(storage).toEqual({
      code: 'STORAGE_ERROR',
      error: expect.stringMatching(/^The episode store failed while running add_episode_step\./),
    });
    expect(logged).toHaveLength(1);
    expect(TOOL_ERROR_CODES).toContain(storage.code);
  });
});
