import { resolveScope } from './bind-scope.js';
import type { OpenEpisodicStoresOptions } from './episodic-location.js';
import type { EpisodicStores } from './episodic-stores.js';
import { openEpisodicStores } from './open-episodic-stores.js';

/** Options of `openEpisodicHome`: where the home is (as `openEpisodicStores`) and the scope to bind. */
export interface OpenEpisodicHomeOptions extends OpenEpisodicStoresOptions {
  /**
   * The scope to bind (normalized: `"My Project"` → `my-project`; `global` is refused).
   * @default `EPISODIC_SCOPE`, else `default`
   */
  scope?: string | undefined;
}

/** A home opened with its stores and the scope it is bound to. */
export interface EpisodicHome {
  readonly stores: EpisodicStores;
  /** The bound scope, normalized. */
  readonly scope: string;
}

/**
 * Opens a home (a folder, or a database given as `db`: a SQLite file or a PostgreSQL URL) and binds
 * a scope: the scope is validated before anything is opened, so a bad scope creates nothing.
 *
 * @example
 * ```ts
 * const { stores, scope } = await openEpisodicHome({ home: '/path/to/home', scope: 'My Project' });
 * await stores.ledger.query({ scope }); // scope is 'my-project'
 * await stores.close();
 * ```
 */
export async function openEpisodicHome(
  options: OpenEpisodicHomeOptions = {},
): Promise<EpisodicHome> {
  const { scope: given, ...storeOptions } = options;
  const scope = resolveScope(given, options.env ?? process.env);
  const stores = await openEpisodicStores(storeOptions);
  return { stores, scope };
}
