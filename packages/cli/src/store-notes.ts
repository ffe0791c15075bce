import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import { databaseHoldsRuns, type EpisodicLocation, openEpisodicRunStores } from '@episodic/home';
import { countFsStoreFiles } from '@episodic/store-fs';

// What a command that found nothing says: where it looked, and what it can see elsewhere. The
// wording names paths and the option that would show the other data.

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Where runs and sessions were looked for: "the fs store (run files under /h/sessions)". */
export function describeRunStore(location: EpisodicLocation): string {
  if (!existsSync(location.home) && (location.store === 'fs' || !existsSync(location.database))) {
    return `the ${location.store} store of ${location.home}, which does not exist (nothing was created)`;
  }
  if (location.store === 'fs') {
    return `the fs store (run files under ${join(location.home, 'sessions')})`;
  }
  return existsSync(location.database) || location.database === ':memory:'
    ? `the sqlite store (${location.database})`
    : `the sqlite store (${location.database}, which does not exist yet)`;
}

const EXPLICIT = new Set(['option', 'environment']);

/**
 * What the store the command did not read holds, as notes: run files beside a database, or runs in
 * the database beside run files. An explicit `--store fs` never opens the database (better-sqlite3
 * may not even be built), so then the note only says the database exists, and only when the
 * command found nothing (`found: false`); after a store the user chose found something, nothing is
 * said.
 */
export async function otherRunStoreNotes(
  location: EpisodicLocation,
  found = false,
): Promise<string[]> {
  if (found && EXPLICIT.has(location.storeSource)) return [];
  if (location.store === 'sqlite') {
    const files = countFsStoreFiles(location.home);
    if (files.runFiles + files.snapshots === 0) return [];
    const held = [
      files.runFiles > 0 ? plural(files.runFiles, 'run file') : undefined,
      files.snapshots > 0 ? plural(files.snapshots, 'session snapshot') : undefined,
    ].filter((part) => part !== undefined);
    return [
      `${location.home} also holds ${held.join(' and ')} (the fs store): add --store fs to read them.`,
    ];
  }
  if (location.database === ':memory:' || !existsSync(location.database)) return [];
  if (EXPLICIT.has(location.storeSource)) {
    return [
      `The database ${location.database} may hold runs and sessions too (not opened with --store fs): add --store sqlite to read them.`,
    ];
  }
  if (!databaseHoldsRuns(location.database)) return [];
  const other = openEpisodicRunStores({
    home: location.home,
    db: location.database,
    store: 'sqlite',
    readOnly: true,
    env: {},
  });
  try {
    const runs = (await other.runs.list()).runs.length;
    const sessions = (await other.sessions.list()).length;
    const held = [
      runs > 0 ? plural(runs, 'run') : undefined,
      sessions > 0 ? plural(sessions, 'session') : undefined,
    ].filter((part) => part !== undefined);
    return [
      `The database ${location.database} also holds ${held.join(' and ')} (the sqlite store): add --store sqlite to read them.`,
    ];
  } finally {
    await other.close();
  }
}

/**
 * A `NOT_FOUND` from a store, said again with the home and the store that were searched and what
 * the other store holds. Any other error is returned as it is.
 */
export async function notFoundWhere(
  error: unknown,
  location: EpisodicLocation,
  extra: { scope?: string; notes?: readonly string[] } = {},
): Promise<unknown> {
  if (!EpisodicError.hasCode(error, 'NOT_FOUND')) return error;
  const notes = [...(extra.notes ?? []), ...(await otherRunStoreNotes(location))];
  const base = (error as Error).message.replace(/\.?\s*$/, '');
  const scope = extra.scope === undefined ? '' : ` in scope "${extra.scope}"`;
  return new EpisodicError({
    code: 'NOT_FOUND',
    message: `${base}. Searched${scope} in ${describeRunStore(location)}, home ${location.home}.${notes.length === 0 ? '' : ` ${notes.join(' ')}`}`,
    details: {
      ...(error as EpisodicError).details,
      home: location.home,
      store: location.store,
      ...(extra.scope === undefined ? {} : { scope: extra.scope }),
    },
    cause: error,
  });
}
