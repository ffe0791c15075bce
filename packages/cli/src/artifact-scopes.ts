import type { Artifact, ArtifactStore } from '@episodic/core';
import { scopeOfArtifactKey } from '@episodic/mcp';

const PAGE = 500;

/** Every artifact of the store, every scope's, in key order (a page at a time). */
export async function* everyArtifact(artifacts: ArtifactStore): AsyncGenerator<Artifact> {
  let afterKey: string | undefined;
  for (;;) {
    const page = await artifacts.list({
      limit: PAGE,
      ...(afterKey === undefined ? {} : { afterKey }),
    });
    yield* page.artifacts;
    if (page.nextKey === null) return;
    afterKey = page.nextKey;
  }
}

/** How many artifacts of each kind every scope holds (patterns, reflections, summaries…). */
export async function artifactScopes(
  artifacts: ArtifactStore,
): Promise<Map<string, Record<string, number>>> {
  const byScope = new Map<string, Record<string, number>>();
  for await (const artifact of everyArtifact(artifacts)) {
    const { scope } = scopeOfArtifactKey(artifact.key);
    const counts = byScope.get(scope) ?? {};
    counts[artifact.kind] = (counts[artifact.kind] ?? 0) + 1;
    byScope.set(scope, counts);
  }
  return byScope;
}

/** A note naming the scopes that hold artifacts of `kind`, when a search of `scope` found none. */
export async function otherPatternScopesNote(
  artifacts: ArtifactStore,
  scope: string,
  kind: string,
): Promise<string | null> {
  const others = [...(await artifactScopes(artifacts)).entries()]
    .filter(([name, counts]) => name !== scope && (counts[kind] ?? 0) > 0)
    .map(([name, counts]) => `${name} (${counts[kind]})`);
  if (others.length === 0) return null;
  return `Scopes with ${kind}s: ${others.slice(0, 5).join(', ')}${others.length > 5 ? ` and ${others.length - 5} more` : ''}: add --scope SCOPE.`;
}
