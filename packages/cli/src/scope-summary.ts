import type { EpisodicLedger } from '@episodic/home';
import { listSqliteScopeSummaries } from '@episodic/store-sqlite';

/** A note naming the scopes that hold events, when a query of `scope` found none. */
export function otherScopesNote(
  opened: Partial<Pick<EpisodicLedger, 'database'>>,
  scope: string | null,
): string | null {
  // Named from the SQLite file only; on PostgreSQL the note is left out (`scopes list` has them).
  if (opened.database === undefined) return null;
  const scopes = listSqliteScopeSummaries(opened.database).filter((entry) => entry.scope !== scope);
  if (scopes.length === 0) return null;
  const shown = scopes
    .sort((left, right) => right.events - left.events)
    .slice(0, 5)
    .map((entry) => `${entry.scope} (${entry.events} event${entry.events === 1 ? '' : 's'})`);
  const more = scopes.length > 5 ? ` and ${scopes.length - 5} more` : '';
  return `Scopes with events: ${shown.join(', ')}${more}. List them all with "episodic scopes list".`;
}
