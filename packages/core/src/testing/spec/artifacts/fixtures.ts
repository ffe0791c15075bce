// Episode references, secrets and a "nothing changed" snapshot for the ArtifactStore tests.
import type { Metadata } from '../../../schema/metadata.js';
import type { ArtifactStore } from '../../../store/artifact-store.js';

/** Task episode references. */
export const TASK_1 = 'task:6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
export const TASK_2 = 'task:7a2d3b5f-4c6e-4d8f-8a91-2b3c4d5e6f70';
export const TASK_3 = 'task:8b3e4c60-5d7f-4e90-9ba2-3c4d5e6f7081';
/** A session episode and a ledger event, as episode references. */
export const SESSION_EPISODE = 'session:9c4f5d71-6e80-4fa1-8cb3-4d5e6f708192#12';
export const LEDGER_EVENT = 'ledger:01J9ZQ4V8N3K2M1P0R5S6T7U8W';

/**
 * Secrets the default content detectors find (assembled so this file does not look like a leak).
 */
export const AWS = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');
export const GITHUB = ['ghp_', 'a1B2c3D4e5F6g7H8'.repeat(3).slice(0, 36)].join('');
/** Task metadata with secrets in values, in an array and in a key. */
export const SECRET_METADATA: Metadata = {
  tenant: 'acme',
  token: GITHUB,
  tags: ['billing', `aws ${AWS}`],
  [`note ${AWS}`]: 'key with a secret',
  priority: 3,
};

/** Everything a store holds, read back through the public API (for "nothing changed" checks). */
export async function snapshot(store: ArtifactStore, episodes: readonly string[]) {
  const artifacts = await store.list({ limit: 500 });
  const metadata = await Promise.all(episodes.map((ref) => store.getEpisodeMetadata(ref)));
  return { artifacts, metadata };
}
