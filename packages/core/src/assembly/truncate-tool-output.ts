import * as z from 'zod';
import { parseInput } from '../validation/parse-input.js';

/** Tool outputs longer than this many characters are shortened before they are sent. */
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 8_000;

/** A shortened tool output. */
export interface TruncatedOutput {
  /** The text to send: unchanged when it fit, else head + marker + tail. */
  readonly text: string;
  /** How many characters were left out (0 when the text fit). */
  readonly omitted: number;
}

const maxCharsSchema = z.number().int().min(2).max(Number.MAX_SAFE_INTEGER);

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Shortens a tool output longer than `maxChars` (UTF-16 code units, as `String.length` counts) to
 * its first `maxChars / 2` and last `maxChars / 2` characters with
 * `\n\n(truncated: N chars omitted)\n\n` between them. A text of exactly `maxChars` is unchanged.
 * The cut never splits a surrogate pair: the kept head or tail is one character shorter instead.
 */
export function truncateToolOutput(
  text: string,
  maxChars: number = DEFAULT_MAX_TOOL_OUTPUT_CHARS,
): TruncatedOutput {
  parseInput(z.string(), text, 'truncateToolOutput text');
  parseInput(maxCharsSchema, maxChars, 'truncateToolOutput maxChars');
  if (text.length <= maxChars) return { text, omitted: 0 };
  let headLength = Math.floor(maxChars / 2);
  let tailLength = maxChars - headLength;
  if (
    isHighSurrogate(text.charCodeAt(headLength - 1)) &&
    isLowSurrogate(text.charCodeAt(headLength))
  )
    headLength -= 1;
  const tailStart = text.length - tailLength;
  if (isLowSurrogate(text.charCodeAt(tailStart)) && isHighSurrogate(text.charCodeAt(tailStart - 1)))
    tailLength -= 1;
  const omitted = text.length - headLength - tailLength;
  return {
    text: `${text.slice(0, headLength)}\n\n(truncated: ${omitted} chars omitted)\n\n${text.slice(text.length - tailLength)}`,
    omitted,
  };
}
