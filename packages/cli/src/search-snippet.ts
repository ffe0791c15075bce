import { SNIPPET_MATCH_END, SNIPPET_MATCH_START } from '@episodic/core/adapter';
import type { Styles } from './output.js';

const MARKED = new RegExp(
  `${SNIPPET_MATCH_START}([^${SNIPPET_MATCH_END}]*)(?:${SNIPPET_MATCH_END}|$)`,
  'g',
);

/**
 * A snippet for a terminal: the matched words in bold yellow when colour is on; otherwise the
 * `«` `»` markers stay, so piped output still shows what matched.
 */
export function styleSnippet(snippet: string, styles: Styles, color: boolean): string {
  if (!color) return snippet;
  return snippet.replace(MARKED, (_match, words: string) => styles.bold(styles.yellow(words)));
}
