import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { type ChainOption, EpisodicError } from '@episodic/core';
import { safeJsonParse } from '@episodic/core/adapter';
import { chainOptionSchema } from '@episodic/core/schemas';
import * as z from 'zod';
import { VERSION } from './version.js';

/** The file in an Episodic home that says how the home was created. */
export const HOME_CONFIG_FILE = 'episodic-home.json';

/** The format name in every home config. */
const HOME_CONFIG_FORMAT: EpisodicHomeConfig['format'] = 'episodic.home.v1';

/**
 * What an Episodic home records about itself (`<home>/episodic-home.json`), written once when the
 * CLI or the MCP server creates the home. Unknown fields are kept, so a newer version can add some.
 */
export interface EpisodicHomeConfig {
  /** Always `episodic.home.v1`. */
  readonly format: 'episodic.home.v1';
  /** Where this home keeps runs and sessions: `sqlite` (the database) or `fs` (run files). */
  readonly store: 'sqlite' | 'fs';
  /** When the home was created (ISO 8601). */
  readonly created_at?: string;
  /** What created it, e.g. `@episodic/home 0.1.0`. */
  readonly created_by?: string;
  /**
   * Chain the home's run files (`store: 'fs'`; store-fs's `chain` option, docs/design/verify.md):
   * `true`, `'strict'`, or `false`. Absent: `false`.
   */
  readonly chain?: ChainOption;
  /**
   * A random key (16 bytes, base64url) naming this home in its anchor files
   * (`episodic.anchors.v1`, docs/design/verify.md section 5), added by the first `anchors create`.
   */
  readonly home_key?: string;
}

export const homeConfigSchema = z.looseObject({
  format: z.literal(HOME_CONFIG_FORMAT),
  store: z.enum(['sqlite', 'fs']),
  created_at: z.string().optional(),
  created_by: z.string().optional(),
  chain: chainOptionSchema.optional(),
  home_key: z.string().min(1).max(100).optional(),
});

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** A file's text; a FIFO or a directory in its place is refused without blocking on it. */
function readRegularFile(path: string): string {
  const fd = openSync(path, READ_FLAGS);
  try {
    if (!fstatSync(fd).isFile()) {
      throw new EpisodicError({
        code: 'CORRUPT_DATA',
        message: `${path} is not a regular file, so the home's config cannot be read. Move it out of the home (or replace it with the config file), then retry; nothing was changed.`,
        details: { path },
      });
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The home's config, or null when it has none (a home created before the config existed, or by a
 * program that writes run files itself). A config that cannot be read is `CORRUPT_DATA` naming the
 * file and the fix; nothing is changed.
 */
export function readHomeConfig(home: string): EpisodicHomeConfig | null {
  const path = join(home, HOME_CONFIG_FILE);
  let text: string;
  try {
    text = readRegularFile(path);
  } catch (error) {
    if (EpisodicError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new EpisodicError({
      code: 'STORAGE_ERROR',
      message: `Could not read ${path}: ${(error as Error).message}. Check its permissions.`,
      details: { path },
      cause: error,
    });
  }
  const parsed = safeJsonParse(text);
  const checked = parsed.success ? homeConfigSchema.safeParse(parsed.value) : undefined;
  if (checked?.success !== true) {
    throw new EpisodicError({
      code: 'CORRUPT_DATA',
      message: `${path} is not a valid Episodic home config (expected {"format":"${HOME_CONFIG_FORMAT}","store":"sqlite"|"fs"}). Fix it, or delete it and pass --store sqlite|fs (EPISODIC_STORE) to say where runs and sessions live; nothing was changed.`,
      details: { path },
    });
  }
  return checked.data as EpisodicHomeConfig;
}

/** What to do when the home cannot be written: named read-only when it is. */
function readOnlyHint(error: unknown, home: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EROFS') {
    return `The home ${home} is on a read-only filesystem (EROFS): choose a writable one with --home / EPISODIC_HOME.`;
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return `The home ${home} is read-only for this user (${code}): make it writable (e.g. chmod u+w ${JSON.stringify(home)}) or choose another with --home / EPISODIC_HOME.`;
  }
  return "Check the home's permissions.";
}

/**
 * Writes the config of a home that was just created (temp file, fsync, rename, so a reader never
 * sees half of it). Existing homes are never given one afterwards: what they hold decides.
 */
export function writeHomeConfig(home: string, store: 'sqlite' | 'fs', now: Date): void {
  writeConfigFile(home, {
    format: HOME_CONFIG_FORMAT,
    store,
    created_at: now.toISOString(),
    created_by: `@episodic/home ${VERSION}`,
  });
}

/**
 * The home's anchor key (`home_key`), drawn and added to its config on first use (every other
 * field kept, unknown ones too). `undefined` when the home has no config: a home created before
 * the config existed is never given one (what it holds decides how it opens).
 */
export function homeAnchorKey(home: string, draw: () => string): string | undefined {
  const config = readHomeConfig(home);
  if (config === null) return undefined;
  if (config.home_key !== undefined) return config.home_key;
  const homeKey = draw();
  writeConfigFile(home, { ...config, home_key: homeKey });
  return homeKey;
}

/** Writes the config (temp file, fsync, rename, so a reader never sees half of it). */
function writeConfigFile(home: string, config: EpisodicHomeConfig): void {
  const path = join(home, HOME_CONFIG_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(temporary, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(config, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    throw new EpisodicError({
      code: 'STORAGE_ERROR',
      message: `Could not write ${path}: ${(error as Error).message}. ${readOnlyHint(error, home)}`,
      details: { path },
      cause: error,
    });
  }
}
