import { EpisodicError } from '@episodic/core';

// Core's messages name library options ({ allow: ['pii'] }, caps.payloadBytes); on the command
// line the same fix is a flag, so the message is rewritten to name the flag instead.
const REWRITES: ReadonlyArray<readonly [RegExp, (match: string, ...groups: string[]) => string]> = [
  [/pass \{ redact: true \}/g, () => 'pass --redact-content'],
  [
    /pass \{ allow: \[([^\]]*)\] \}/g,
    (_match, kinds: string) =>
      `pass ${kinds
        .split(',')
        .map((kind) => kind.trim().replace(/'/g, ''))
        .filter((kind) => kind !== '')
        .map((kind) => (kind === 'tool_output' ? '--allow-tool-output' : `--allow ${kind}`))
        .join(' ')}`,
  ],
  [/raise caps\.payloadBytes/g, () => 'raise --payload-cap-bytes'],
  [/raise caps\.refsBytes/g, () => 'raise --refs-cap-bytes'],
  [
    /pass scope \(a project, tenant or team name\), or global: true/g,
    () => 'pass --scope SCOPE, or --all-scopes',
  ],
  [/pass global: true/g, () => 'pass --all-scopes'],
  [/give either scope or global: true/g, () => 'give either --scope or --all-scopes'],
  [
    /Pass the nextCursor of the previous page of the same search, or leave cursor out/g,
    () =>
      'Pass the next_cursor the previous page of the same search printed as --cursor, or leave --cursor out',
  ],
  [
    /or page through query\(\) with filters instead/g,
    () => 'or read the events with "episodic episodes query" and its filters instead',
  ],
  [
    /Pass the next_after_id of a page from the same scope, or leave afterId out/g,
    () =>
      'Pass the next_after_id of a page from the same scope as --after-id, or leave --after-id out',
  ],
];

/** The same error with its message phrased for the command line. Other errors pass through. */
export function forCommandLine(error: unknown): unknown {
  if (!EpisodicError.isInstance(error)) return error;
  let message = error.message;
  for (const [pattern, replace] of REWRITES) message = message.replace(pattern, replace);
  if (message === error.message) return error;
  return new EpisodicError({
    code: error.code,
    message,
    details: { ...error.details },
    cause: error.cause,
  });
}
