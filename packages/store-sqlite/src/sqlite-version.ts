import { EpisodicError } from '@episodic/core';

/** The oldest SQLite we accept: 3.7.0–3.51.2 carry the WAL-reset corruption bug. */
export const MINIMUM_SQLITE_VERSION = '3.51.3';

function parts(version: string): number[] {
  return version.split('.').map((part) => Number.parseInt(part, 10) || 0);
}

/** True when `version` (e.g. `3.53.2`) is at least `minimum`. */
export function isSqliteVersionSupported(
  version: string,
  minimum = MINIMUM_SQLITE_VERSION,
): boolean {
  const have = parts(version);
  const need = parts(minimum);
  for (let index = 0; index < Math.max(have.length, need.length); index++) {
    const difference = (have[index] ?? 0) - (need[index] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return true;
}

/** Throws `UNSUPPORTED` when the linked SQLite is older than 3.51.3. */
export function assertSqliteVersion(version: string): void {
  if (!isSqliteVersionSupported(version)) {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: `SQLite ${version} is too old: Episodic needs ${MINIMUM_SQLITE_VERSION} or newer (older versions can corrupt a WAL database). Reinstall better-sqlite3 12 so it builds its bundled SQLite.`,
      details: { sqliteVersion: version, minimum: MINIMUM_SQLITE_VERSION },
    });
  }
}
