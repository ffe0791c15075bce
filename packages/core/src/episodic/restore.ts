import { type Episode, restoredEpisodeSchema } from '../schema/episode.js';
import { lazyCompiled } from '../validation/compiled-schema.js';
import { describeValue, formatPath, valueAtPath } from '../validation/describe-value.js';
import { isCommonRestoredEpisode } from './episode-guard.js';
import { forEachJsonlLine, isNulRun } from './jsonl-lines.js';

const restoredEpisode = lazyCompiled(restoredEpisodeSchema);

/** What restoring found: the episodes to keep (ids repaired) and one message per bad entry. */
export interface RestoreResult {
  episodes: Episode[];
  errors: string[];
}

const MAX_ERROR_TEXT = 200;

function clip(text: string): string {
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT - 1)}…` : text;
}

/**
 * Validates one candidate episode. A valid value is kept as it is (it is a fresh parse the log
 * owns; the log freezes it on first read); the full parse runs only to explain a failure or to
 * fill defaults.
 */
function checkEpisode(value: unknown): { episode: Episode } | { error: string } {
  const schema = restoredEpisode();
  if (schema.validate(value) && hasSource(value)) return { episode: value as Episode };
  const result = schema.safeParse(value);
  if (result.success) return { episode: result.data as Episode };
  const [issue] = result.error.issues;
  const field = issue ? formatPath(issue.path) : '(root)';
  const detail = issue?.message ?? 'does not match the episode schema';
  return {
    error: `not an episode: ${field}: ${detail} (got ${describeValue(valueAtPath(value, issue?.path ?? []))})`,
  };
}

function hasSource(value: unknown): boolean {
  const meta = (value as { meta?: { source?: unknown } }).meta;
  return meta !== undefined && meta.source !== undefined;
}

/**
 * Assigns ids: an id that is an integer above the previous one is kept, anything else becomes
 * previous + 1, so ids stay strictly increasing whatever the input held.
 */
function withRepairedId(episode: Episode, previousId: number): Episode {
  const id = episode.id as unknown;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id > previousId) return episode;
  return { ...episode, id: previousId + 1 } as Episode;
}

/** Restores episodes from JSONL. Never throws on bad data. */
export function restoreFromJsonl(text: string, startAfterId = 0): RestoreResult {
  const episodes: Episode[] = [];
  const errors: string[] = [];
  const schema = restoredEpisode();
  let previousId = startAfterId;
  forEachJsonlLine(text, (line, lineNumber) => {
    // An ordinary line starts with "{": it cannot be a NUL run.
    if (line.charCodeAt(0) !== 0x7b && isNulRun(line)) {
      errors.push(`line ${lineNumber}: ${line.length} NUL bytes (a torn write)`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      errors.push(
        clip(
          `line ${lineNumber}: invalid JSON: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      return;
    }
    const episode = acceptParsed(value, previousId, schema, `line ${lineNumber}`, errors);
    if (episode === null) return;
    previousId = episode.id;
    episodes.push(episode);
  });
  return { episodes, errors };
}

/**
 * One value fresh from `JSON.parse` as an episode, its id repaired, or null (the reason pushed to
 * `errors`). The common case is inline: a valid episode is kept as parsed, without a result object.
 */
function acceptParsed(
  value: unknown,
  previousId: number,
  schema: ReturnType<typeof restoredEpisode>,
  label: string,
  errors: string[],
): Episode | null {
  let episode: Episode;
  if (isCommonRestoredEpisode(value) || (schema.validate(value) && hasSource(value)))
    episode = value as Episode;
  else {
    const checked = checkEpisode(value);
    if ('error' in checked) {
      errors.push(clip(`${label}: ${checked.error}`));
      return null;
    }
    episode = checked.episode;
  }
  return withRepairedId(episode, previousId);
}

/**
 * Restores episodes a store has just parsed from JSON and hands over (nobody else holds them):
 * the rules of `restoreFromArray` without its defensive copy through JSON, which on a long
 * session cost more than reading it.
 */
export function restoreFromParsed(values: readonly unknown[], startAfterId = 0): RestoreResult {
  const episodes: Episode[] = [];
  const errors: string[] = [];
  const schema = restoredEpisode();
  let previousId = startAfterId;
  for (let index = 0; index < values.length; index++) {
    const episode = acceptParsed(values[index], previousId, schema, `entry ${index}`, errors);
    if (episode === null) continue;
    previousId = episode.id;
    episodes.push(episode);
  }
  return { episodes, errors };
}

/**
 * Restores episodes from an array with the same id rule as JSONL: an id above the previous one is
 * kept, any other becomes previous + 1. Never throws on bad entries.
 */
export function restoreFromArray(values: readonly unknown[]): RestoreResult {
  const episodes: Episode[] = [];
  const errors: string[] = [];
  let previousId = 0;
  values.forEach((value, index) => {
    let candidate: unknown;
    try {
      // Episodes handed in by the caller may be shared and mutable: copy them through JSON.
      candidate = JSON.parse(JSON.stringify(value) ?? 'null');
    } catch (error) {
      errors.push(
        clip(
          `entry ${index}: not serializable: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      return;
    }
    const checked = checkEpisode(candidate);
    if ('error' in checked) {
      errors.push(clip(`entry ${index}: ${checked.error}`));
      return;
    }
    const episode = withRepairedId(checked.episode, previousId);
    previousId = episode.id;
    episodes.push(episode);
  });
  return { episodes, errors };
}
