import {
  createRunDigester,
  EpisodicError,
  type RunDigest,
  type RunDigester,
  type RunStore,
} from '@episodic/core';

interface Entry {
  digester: RunDigester;
  position: number;
  digest: RunDigest;
}

/**
 * Digests (title, tokens, duration) of the runs a list shows. A run is read once from its start,
 * then only what was appended since (`readAfter` its last position); a run that has ended keeps
 * its digest. Only the runs a page shows are read, never every run of the store.
 */
export function createRunDigestCache(runs: RunStore, capacity = 10_000) {
  const known = new Map<string, Entry>();
  return {
    async get(runId: string): Promise<RunDigest> {
      let entry = known.get(runId);
      if (entry !== undefined && entry.digest.endedAt !== null) return entry.digest;
      let after: Awaited<ReturnType<RunStore['readAfter']>>;
      try {
        after = await runs.readAfter(runId, entry?.position ?? 0);
      } catch (error) {
        // Deleted and started again since it was read: read it from its start.
        if (!(EpisodicError.isInstance(error) && error.code === 'CONFLICT') || entry === undefined)
          throw error;
        entry = undefined;
        after = await runs.readAfter(runId, 0);
      }
      if (entry === undefined) {
        const digester = createRunDigester();
        entry = { digester, position: 0, digest: digester.result() };
        if (known.size >= capacity) known.delete(known.keys().next().value as string);
        known.set(runId, entry);
      }
      entry.digester.add(after.records);
      entry.position = after.position;
      entry.digest = entry.digester.result();
      return entry.digest;
    },
  };
}

export type RunDigestCache = ReturnType<typeof createRunDigestCache>;
