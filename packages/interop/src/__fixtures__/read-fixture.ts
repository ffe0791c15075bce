import { readFileSync } from 'node:fs';
import { createEpisodic, type RunRecord, snapshotEpisodes } from '@episodic/core';
import { checkRunRecord, sessionStateSchema } from '@episodic/core/schemas';
import { fc } from '@fast-check/vitest';
import { expect } from 'vitest';
import type { ImportedConversation } from '../conversation/imported-conversation.js';

/** The repository's transcript fixtures (shared with the CLI tests). */
export const TRANSCRIPTS = new URL('../../../../fixtures/transcripts/', import.meta.url);

/** The text of a transcript fixture under `fixtures/transcripts/`. */
export function readFixture(path: string): string {
  return readFileSync(new URL(path, TRANSCRIPTS), 'utf8');
}

/**
 * Checks that a converted conversation is valid Episodic data, with core's own readers: the
 * snapshot matches the session-state schema, its log restores without a parse error, and every run
 * record passes the run-record schema of its type.
 */
export function expectValidConversation(conversation: ImportedConversation): void {
  expect(sessionStateSchema.safeParse(conversation.state).success).toBe(true);
  const restored = createEpisodic(snapshotEpisodes(conversation.state)).read({ fromId: 0 });
  expect(restored.map((episode) => episode.payload)).toEqual(
    conversation.episodes.map((episode) => episode.payload),
  );
  expect(
    restored.some((episode) => episode.type === 'meta' && episode.payload.event === 'error.parse'),
  ).toBe(false);
  for (const run of conversation.runs) {
    expect(run.records[0]?.type).toBe('header');
    for (const record of run.records) {
      const check = checkRunRecord(record);
      expect(check, JSON.stringify(record).slice(0, 200)).toMatchObject({
        success: true,
        known: true,
      });
      expect((record as { run_id?: string }).run_id).toBe(run.runId);
    }
  }
}

/** The records of one type in a run. */
export function recordsOf(
  records: readonly RunRecord[],
  type: string,
): Array<Record<string, unknown>> {
  return records.filter((record) => record.type === type) as Array<Record<string, unknown>>;
}

/**
 * Lines for parser property tests: any mix of a fixture's own lines, arbitrary JSON values and
 * arbitrary text (without line breaks, so each element stays one line).
 */
export function mixedLines(text: string) {
  return fc.array(
    fc.oneof(
      fc.constantFrom(...text.split('\n').filter((line) => line !== '')),
      fc.json(),
      fc.string().filter((line) => !/[\r\n]/.test(line)),
    ),
    { maxLength: 30 },
  );
}
