import { existsSync } from 'node:fs';
import {
  createMemoryRunStore,
  createMemorySessionStore,
  type RunStore,
  type SessionStore,
} from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import type { EpisodicLocation, OpenEpisodicStoresOptions } from './episodic-location.js';
import { readHomeConfig } from './home-config.js';

/** The run and session stores of a location's run files (`store: 'fs'`). */
export interface RunFiles {
  readonly runs: RunStore;
  readonly sessions: SessionStore;
  close(): Promise<void>;
}

/**
 * Opens the run files under the home. Read-only on a home that does not exist, the stores are
 * empty in-memory ones, because the file store creates its root when it opens.
 */
export function openRunFiles(
  location: EpisodicLocation,
  options: OpenEpisodicStoresOptions,
): RunFiles {
  if (options.readOnly === true && !existsSync(location.home)) {
    const runs = createMemoryRunStore();
    return { runs, sessions: createMemorySessionStore(), close: () => runs.close() };
  }
  // The home's config may turn chained run files on (`"chain": true | "strict"`).
  const chain = readHomeConfig(location.home)?.chain;
  const fs = createFsStore({
    root: location.home,
    ...(options.durability === undefined ? {} : { durability: options.durability }),
    ...(chain === undefined ? {} : { chain }),
  });
  return { runs: fs.runs, sessions: fs.sessions, close: () => fs.close() };
}
