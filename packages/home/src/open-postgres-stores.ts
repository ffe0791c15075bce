import { createFsStore } from '@episodic/store-fs';
import {
  createEpisodicHome,
  type EpisodicLocation,
  type OpenEpisodicStoresOptions,
  postgresUrlOf,
} from './episodic-location.js';
import type { EpisodicStores } from './episodic-stores.js';

/**
 * The PostgreSQL branch of `openEpisodicStores`: the ledger, the artifacts and (unless `store` is
 * `fs`) the runs and sessions in one schema of the server (`?schema=NAME` in the URL, default
 * `episodic`). `@episodic/store-postgres` and its driver are imported here, so commands that use
 * SQLite never load them.
 */
export async function openPostgresStores(
  location: EpisodicLocation,
  options: OpenEpisodicStoresOptions | undefined,
): Promise<EpisodicStores> {
  const { createPostgresStore, schemaOfUrl } = await import('@episodic/store-postgres');
  const { url, schema } = schemaOfUrl(postgresUrlOf(options) as string);
  const postgres = await createPostgresStore({
    connectionString: url,
    ...(schema === undefined ? {} : { schema }),
    ...(options?.ledger === undefined ? {} : { ledger: options.ledger }),
  });
  let runs = postgres.runs;
  let sessions = postgres.sessions;
  let closeFs: (() => Promise<void>) | undefined;
  if (location.store === 'fs') {
    try {
      createEpisodicHome(location);
      const fs = createFsStore({
        root: location.home,
        ...(options?.durability === undefined ? {} : { durability: options.durability }),
      });
      runs = fs.runs;
      sessions = fs.sessions;
      closeFs = () => fs.close();
    } catch (error) {
      await postgres.close();
      throw error;
    }
  }
  let closing: Promise<void> | undefined;
  return {
    ledger: postgres.ledger,
    runs,
    sessions,
    artifacts: postgres.artifacts,
    location,
    postgres,
    close() {
      closing ??= (async () => {
        try {
          await closeFs?.();
        } finally {
          await postgres.close();
        }
      })();
      return closing;
    },
  };
}
