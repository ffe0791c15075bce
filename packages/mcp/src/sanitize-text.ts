/**
 * Characters a tool result must never carry to a model or a terminal: C0/C1 controls (except tab
 * and newline), ESC sequences, bidi overrides and isolates, zero-width and tag characters.
 */
const ANSI_ESCAPE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/** Default upper bound on one tool result's text. */
export const MAX_TOOL_TEXT = 64 * 1024;

/**
 * Makes text safe to return from a tool: escape sequences and invisible or direction-changing
 * characters are removed, and text over `max` characters is cut with a marker saying how much.
 */
export function sanitizeText(text: string, max = MAX_TOOL_TEXT): string {
  const clean = text.replace(ANSI_ESCAPE, '').replace(UNSAFE, '');
  if (clean.length <= max) return clean;
  const marker = `\n…(truncated: ${clean.length - max} more characters)`;
  let cut = Math.max(0, max - marker.length);
  // Never split a surrogate pair.
  const code = clean.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return `${clean.slice(0, cut)}${marker}`;
}
