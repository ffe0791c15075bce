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

/** Prose of about `length` UTF-16 code units. */
export function prose(random: () => number, length: number): string {
  let text = '';
  while (text.length < length) {
    const word = WORDS[Math.floor(random() * WORDS.length)] as string;
    text += text === '' ? word : ` ${word}`;
  }
  return text.slice(0, length);
}

/** Prose with only ASCII words (for ids and summaries). */
export function asciiProse(random: () => number, length: number): string {
  let text = '';
  const ascii = WORDS.slice(0, WORDS.indexOf('café'));
  while (text.length < length) {
    const word = ascii[Math.floor(random() * ascii.length)] as string;
    text += text === '' ? word : ` ${word}`;
  }
  return text.slice(0, length);
}
