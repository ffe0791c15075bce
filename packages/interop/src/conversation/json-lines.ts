import { isNulRun, safeJsonParse, splitJsonlLines } from '@episodic/core/adapter';
import type { ImportProblem } from './source-conversation.js';

/** One JSON object line of a JSONL source. */
export interface JsonObjectLine {
  /** The 1-based line number. */
  readonly line: number;
  readonly value: Record<string, unknown>;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The JSON object lines of a JSONL text, read the way every Episodic reader reads JSONL (BOM,
 * CRLF, blank lines and NUL padding survive). A line that is not a JSON object is reported in
 * `problems` with its number and skipped; reading never stops at one.
 */
export function readJsonObjectLines(
  text: string,
  problems: ImportProblem[],
  label: string | undefined,
): JsonObjectLine[] {
  const lines: JsonObjectLine[] = [];
  for (const { lineNumber, text: line } of splitJsonlLines(text)) {
    const where = { ...(label === undefined ? {} : { source: label }), line: lineNumber };
    if (isNulRun(line)) {
      problems.push({ ...where, message: 'a run of NUL bytes (a torn write); skipped' });
      continue;
    }
    const parsed = safeJsonParse(line);
    if (!parsed.success) {
      problems.push({
        ...where,
        message: `not valid JSON (${parsed.error}): ${JSON.stringify(clip(line))}; skipped`,
      });
      continue;
    }
    if (!isRecord(parsed.value)) {
      problems.push({ ...where, message: 'not a JSON object; skipped' });
      continue;
    }
    lines.push({ line: lineNumber, value: parsed.value });
  }
  return lines;
}

/** `value` without the listed top-level keys (what an importer keeps as `raw`). */
export function without(
  value: Record<string, unknown>,
  keys: readonly string[],
): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (!keys.includes(key)) rest[key] = item;
  return rest;
}

/** The string at `value[key]`, or undefined. */
export function stringAt(value: Record<string, unknown>, key: string): string | undefined {
  const item = value[key];
  return typeof item === 'string' ? item : undefined;
}

/** The number at `value[key]` when it is a finite non-negative number, or undefined. */
export function countAt(
  value: Record<string, unknown> | undefined,
  key: string,
): number | undefined {
  const item = value?.[key];
  return typeof item === 'number' && Number.isFinite(item) && item >= 0 ? item : undefined;
}
