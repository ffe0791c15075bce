import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { EpisodicError } from '@episodic/core';

export interface EpisodicHomeOptions {
  /** An explicit home directory; wins over the environment. */
  home?: string;
  /**
   * The environment to read `EPISODIC_HOME` from, and the user's home directory for the default
   * (`HOME`, `USERPROFILE` on Windows; the system's when unset). @default process.env
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The Episodic home directory: `options.home`, else `EPISODIC_HOME`, else `~/.episodic`, where
 * `~` is the `HOME` of `options.env` (so a caller that passes its own environment, such as the
 * CLI run in-process, never reaches the real user's home). Always an absolute path.
 */
export function resolveEpisodicHome(options: EpisodicHomeOptions = {}): string {
  const env = options.env ?? process.env;
  const chosen = options.home ?? env.EPISODIC_HOME;
  if (chosen !== undefined) {
    if (chosen.trim() === '' || chosen.includes('\0')) {
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `Invalid Episodic home ${JSON.stringify(chosen)}: it must be a non-empty path without NUL bytes. Pass --home DIR or set EPISODIC_HOME to a directory.`,
        details: { field: options.home !== undefined ? 'home' : 'EPISODIC_HOME', value: chosen },
      });
    }
    return isAbsolute(chosen) ? resolve(chosen) : resolve(process.cwd(), chosen);
  }
  const userHome = env[process.platform === 'win32' ? 'USERPROFILE' : 'HOME'];
  return resolve(userHome === undefined || userHome === '' ? homedir() : userHome, '.episodic');
}
