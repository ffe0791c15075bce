import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { EpisodicError } from '@episodic/core';
import { describe, expect, it } from 'vitest';
import { resolveEpisodicHome } from './episodic-home.js';

describe('resolveEpisodicHome', () => {
  it('prefers the explicit option over the environment', () => {
    expect(resolveEpisodicHome({ home: '/tmp/a', env: { EPISODIC_HOME: '/tmp/b' } })).toBe(
      '/tmp/a',
    );
  });

  it('falls back to EPISODIC_HOME, then to ~/.episodic', () => {
    expect(resolveEpisodicHome({ env: { EPISODIC_HOME: '/tmp/b' } })).toBe('/tmp/b');
    expect(resolveEpisodicHome({ env: {} })).toBe(join(homedir(), '.episodic'));
  });

  it("finds ~ in the given environment's HOME, not the process's", () => {
    const variable = process.platform === 'win32' ? 'USERPROFILE' : 'HOME';
    const user = resolve('/tmp/another-user');
    expect(resolveEpisodicHome({ env: { [variable]: user } })).toBe(join(user, '.episodic'));
    expect(resolveEpisodicHome({ env: { [variable]: '' } })).toBe(join(homedir(), '.episodic'));
  });

  it('resolves relative paths against the working directory', () => {
    expect(resolveEpisodicHome({ home: 'data', env: {} })).toBe(resolve('data'));
  });

  it('rejects an empty or NUL-containing home with a VALIDATION_ERROR naming the source', () => {
    for (const [options, field] of [
      [{ home: '  ', env: {} }, 'home'],
      [{ env: { EPISODIC_HOME: 'a\0b' } }, 'EPISODIC_HOME'],
    ] as const) {
      const error = (() => {
        try {
          resolveEpisodicHome(options);
        } catch (caught) {
          return caught;
        }
        return null;
      })();
      expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
      expect((error as EpisodicError).details.field).toBe(field);
    }
  });
});
