/** A small, fast, seeded PRNG (mulberry32): data sets are the same on every run. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

// Ordinary prose that no content guard flags (no credentials, digits runs, e-mail, stack traces),
// with a few non-ASCII words so decoding is exercised the way real transcripts exercise it.
const WORDS = (
  'the agent read file plan step result summary context model tool call output review change ' +
  'update branch module function value list table query index order session turn reply user ' +
  'assistant message draft report check build test green fix issue note ledger memory window ' +
  'budget segment boundary checkpoint resume replay record stream chunk line parse render answer ' +
  'question detail reason choice option status done next first last small large quick careful ' +
  'café naïve über résumé façade Zürich São Paulo 東京 данные λ'
).split(' ');

const ASCII_WORDS = WORDS.slice(0, WORDS.indexOf('café'));

/**
 * A flat copy of `text`, like every string `JSON.parse` returns (what MCP, CLI and HTTP callers
 * hand in). Built by concatenation and `slice`, it would be a rope or a slice of one, which
 * character-by-character reads (scanners, validators) pay extra for.
 */
function flat(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

function words(random: () => number, pool: readonly string[], length: number): string {
  let text = '';
  while (text.length < length) {
    const word = pool[Math.floor(random() * pool.length)] as string;
    text += text === '' ? word : ` ${word}`;
  }
  return flat(text.slice(0, length));
}

/** Prose of `length` UTF-16 code units. */
export function prose(random: () => number, length: number): string {
  return words(random, WORDS, length);
}

/** Prose with only ASCII words (for ids and summaries). */
export function asciiProse(random: () => number, length: number): string {
  return words(random, ASCII_WORDS, length);
}
