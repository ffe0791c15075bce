/**
 * Each session is one value under `sessions/<session id>`: its base snapshot and its delta log,
 * each as the text a file store would hold (lines ending in `\n`). One value, so a load always
 * sees a base and the deltas that go with it.
 */
export interface SessionValue {
  readonly base: string;
  readonly deltas: string;
}

export const SESSION_PREFIX = 'sessions/';

export const sessionKey = (sessionId: string): string => `${SESSION_PREFIX}${sessionId}`;

export const encodeSessionValue = (value: SessionValue): string => JSON.stringify(value);

export const decodeSessionValue = (text: string): SessionValue => JSON.parse(text) as SessionValue;

/** Lines as stored text: each one followed by its newline. */
export const linesText = (lines: Iterable<string>): string => {
  let text = '';
  for (const line of lines) text += `${line}\n`;
  return text;
};

/** The text up to its last newline: a last line a crash left without its newline is dropped. */
export const completeLines = (text: string): string => text.slice(0, text.lastIndexOf('\n') + 1);

/** The first line of a text (the whole text when it has no newline). */
export const firstLine = (text: string): string => {
  const end = text.indexOf('\n');
  return end === -1 ? text : text.slice(0, end);
};

/** The last complete line of a text, or null when it has none. */
export const lastCompleteLine = (text: string): string | null => {
  const complete = completeLines(text);
  if (complete === '') return null;
  return complete.slice(complete.lastIndexOf('\n', complete.length - 2) + 1, -1);
};

export const countLines = (text: string): number => text.split('\n').length - 1;

export const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');
