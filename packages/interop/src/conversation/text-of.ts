/** The text of a message's content or a tool's output: a string, or its parts' `text` joined. */
export function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? '' : JSON.stringify(content);
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (
      typeof part === 'object' &&
      part !== null &&
      typeof (part as { text?: unknown }).text === 'string'
    )
      texts.push((part as { text: string }).text);
  }
  return texts.join('\n');
}

/**
 * The full text of a tool output for `tool.output.result_raw`: a string as it is; parts that are all
 * text joined; anything else (images, structured results) as JSON, so nothing is lost.
 */
export function outputTextOf(output: unknown): string {
  if (typeof output === 'string') return output;
  if (
    Array.isArray(output) &&
    output.every(
      (part) =>
        typeof part === 'object' &&
        part !== null &&
        typeof (part as { text?: unknown }).text === 'string',
    )
  ) {
    return output.map((part) => (part as { text: string }).text).join('\n');
  }
  return JSON.stringify(output ?? null);
}
