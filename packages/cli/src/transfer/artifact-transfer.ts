import {
  type Artifact,
  type ArtifactStore,
  type EpisodeRef,
  type Metadata,
  normalizeScope,
} from '@episodic/core';
import { jsonEqual } from '@episodic/core/adapter';
import { ARTIFACT_MAX_EPISODES_PER_UPSERT, taskEpisodeRef } from '@episodic/core/schemas';
import { scopeOfArtifactKey } from '@episodic/mcp';
import { everyArtifact } from '../artifact-scopes.js';
import type { ExportedArtifact } from './export-format.js';

// What was learned travels with a backup: artifacts (patterns, reflections, checkpoint summaries)
// with their associations and the metadata of the episodes they point at, so effective metadata
// and metadata filters work the same after an import.

/** What an export holds besides runs, sessions and events. */
export interface ExportedLearning {
  /** By key. */
  readonly artifacts: ExportedArtifact[];
  /** By episode reference. */
  readonly metadata: { episode: EpisodeRef; metadata: Metadata }[];
}

/** The episodes an export holds, to pick the artifacts learned from them. */
export interface ExportedEpisodes {
  /** Every artifact of the scope (`--all`), not only those of the exported episodes. */
  readonly all: boolean;
  readonly runIds: ReadonlySet<string>;
  readonly sessionIds: ReadonlySet<string>;
  readonly eventIds: ReadonlySet<string>;
}

function exportedOf(artifact: Artifact): ExportedArtifact {
  return {
    key: artifact.key,
    kind: artifact.kind,
    content: artifact.content,
    created_at: artifact.createdAt,
    updated_at: artifact.updatedAt,
    episodes: [...artifact.episodes],
  };
}

function touches(ref: string, episodes: ExportedEpisodes): boolean {
  if (ref.startsWith('task:')) return episodes.runIds.has(ref.slice(5));
  if (ref.startsWith('ledger:')) return episodes.eventIds.has(ref.slice(7));
  if (ref.startsWith('session:')) return episodes.sessionIds.has(ref.slice(8, ref.indexOf('#')));
  return false;
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * The artifacts to export with their episodes' metadata: those of the scope (every scope with
 * `--all-scopes`) that were learned from an exported episode (all of them with `--all`), and the
 * metadata of every episode they point at and of every exported task episode.
 */
export async function collectLearning(
  artifacts: ArtifactStore,
  selector: { scope: string } | { global: true },
  episodes: ExportedEpisodes,
): Promise<ExportedLearning> {
  const scope = 'scope' in selector ? normalizeScope(selector.scope) : null;
  const found: ExportedArtifact[] = [];
  for await (const artifact of everyArtifact(artifacts)) {
    if (scope !== null && scopeOfArtifactKey(artifact.key).scope !== scope) continue;
    if (!episodes.all && !artifact.episodes.some((ref) => touches(ref, episodes))) continue;
    found.push(exportedOf(artifact));
  }
  const refs = new Set<EpisodeRef>();
  for (const artifact of found) for (const ref of artifact.episodes) refs.add(ref);
  for (const runId of episodes.runIds) refs.add(taskEpisodeRef(runId));
  const metadata: ExportedLearning['metadata'] = [];
  for (const episode of [...refs].sort(compareText)) {
    const stored = await artifacts.getEpisodeMetadata(episode);
    if (stored !== null) metadata.push({ episode, metadata: stored });
  }
  return { artifacts: found.sort((left, right) => compareText(left.key, right.key)), metadata };
}

/** What importing the learned part writes, and what is already there. */
export interface LearningPlan {
  readonly artifacts: ExportedArtifact[];
  readonly metadata: { episode: EpisodeRef; metadata: Metadata }[];
  skippedArtifacts: number;
  skippedMetadata: number;
}

/**
 * Checks the exported artifacts and metadata against the home: the same content already there is
 * skipped (so an import can run again), other content under the same key or episode is a conflict.
 */
export async function planLearning(
  artifacts: ArtifactStore,
  learning: ExportedLearning,
  conflicts: string[],
): Promise<LearningPlan> {
  const plan: LearningPlan = {
    artifacts: [],
    metadata: [],
    skippedArtifacts: 0,
    skippedMetadata: 0,
  };
  for (const entry of learning.metadata) {
    const stored = await artifacts.getEpisodeMetadata(entry.episode);
    if (stored === null) plan.metadata.push(entry);
    else if (jsonEqual(stored, entry.metadata)) plan.skippedMetadata++;
    else conflicts.push(`episode ${entry.episode} has other metadata`);
  }
  for (const artifact of learning.artifacts) {
    const stored = await artifacts.get(artifact.key);
    if (stored === null) plan.artifacts.push(artifact);
    else if (jsonEqual(exportedOf(stored), artifact)) plan.skippedArtifacts++;
    else conflicts.push(`artifact ${artifact.key} exists with other content`);
  }
  return plan;
}

/**
 * Writes the planned metadata, then the artifacts with their associations in order, stamped with
 * their exported `created_at` and `updated_at` through `clock` (the artifact store's clock).
 */
export async function writeLearning(
  artifacts: ArtifactStore,
  plan: LearningPlan,
  clock: { current: Date },
  onWritten: () => void,
): Promise<void> {
  for (const { episode, metadata } of plan.metadata) {
    await artifacts.setEpisodeMetadata(episode, metadata);
    onWritten();
  }
  for (const artifact of plan.artifacts) {
    clock.current = new Date(artifact.created_at);
    for (
      let start = 0;
      start < artifact.episodes.length;
      start += ARTIFACT_MAX_EPISODES_PER_UPSERT
    ) {
      await artifacts.upsert({
        key: artifact.key,
        kind: artifact.kind,
        content: artifact.content,
        episodes: artifact.episodes.slice(start, start + ARTIFACT_MAX_EPISODES_PER_UPSERT),
      });
    }
    if (artifact.updated_at !== artifact.created_at) {
      // The same content and episodes again: only `updatedAt` changes.
      clock.current = new Date(artifact.updated_at);
      await artifacts.upsert({
        key: artifact.key,
        kind: artifact.kind,
        content: artifact.content,
        episodes: artifact.episodes.slice(0, 1),
      });
    }
    onWritten();
  }
}
