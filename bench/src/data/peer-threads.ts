import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import { episodicThreads } from '../peers/episodic.js';
import { langGraphThreads } from '../peers/langgraph.js';
import { mastraThreads } from '../peers/mastra.js';
import type { ThreadSystemKind } from '../peers/thread.js';
import { removeStaleDatasets, storeBytes } from './sessions.js';
import { DATA_VERSION } from './version.js';

/** The systems of the peer comparison, Episodic first. */
export const PEER_SYSTEMS: readonly ThreadSystemKind[] = [
  episodicThreads('fs'),
  episodicThreads('fs-unsynced'),
  episodicThreads('sqlite'),
  langGraphThreads,
  mastraThreads,
];

/** A cached thread of one system (`bench/.data/peer-thread-…`). */
export interface PeerThreadDataset {
  system: string;
  messages: number;
  /** The system's files; copy them before writing. */
  store: string;
  bytes: number;
  buildSeconds: number;
}

/**
 * A thread of `messages` messages written by `kind` through its own API, cached by data version
 * and by the version of the system that wrote it.
 */
export async function ensurePeerThread(
  context: BenchContext,
  kind: ThreadSystemKind,
  messages: number,
): Promise<PeerThreadDataset> {
  const prefix = `peer-thread-${kind.datasetId ?? kind.id}-${messages}-`;
  const name = `${prefix}v${DATA_VERSION}-${kind.cacheKey()}`;
  const directory = join(context.paths.data, name);
  const infoPath = join(directory, 'info.json');
  if (existsSync(infoPath)) return JSON.parse(readFileSync(infoPath, 'utf8')) as PeerThreadDataset;
  removeStaleDatasets(context, prefix, name);
  const temporary = `${directory}.tmp`;
  rmSync(temporary, { recursive: true, force: true });
  context.log(`building a ${formatCount(messages)}-message thread with ${kind.label}…`);
  const started = Date.now();
  await kind.build(join(temporary, 'store'), messages);
  const info: PeerThreadDataset = {
    system: kind.datasetId ?? kind.id,
    messages,
    store: join(directory, 'store'),
    bytes: storeBytes(join(temporary, 'store')),
    buildSeconds: (Date.now() - started) / 1000,
  };
  writeFileSync(join(temporary, 'info.json'), JSON.stringify(info, null, 2));
  renameSync(temporary, directory);
  return info;
}

/**
 * Every system's threads at every size. A system that cannot be imported or run here is skipped
 * (its rows say why when they run).
 */
export async function ensurePeerThreads(context: BenchContext): Promise<void> {
  for (const kind of PEER_SYSTEMS) {
    try {
      for (const messages of context.sizes.peerThreads)
        await ensurePeerThread(context, kind, messages);
    } catch (error) {
      context.log(
        `${kind.label} cannot build its threads here: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
