import { type ContentRule, hintSpecOf } from './content-rules.js';

/**
 * Evaluates the hints of many rules in one pass over a text. Checking 23 hints one by one costs 23
 * scans of every string an event carries (most of a ledger append); this walks the text once,
 * looking up each position's two characters in a table of the hints' literals.
 */
export interface HintScanner {
  /** 1 at a rule's index when the scanner evaluates its hint (the rule has a built-in hint). */
  readonly covered: Uint8Array;
  /** True when every rule's hint is covered (so `scan` returning null leaves no rule to run). */
  readonly coversAll: boolean;
  /**
   * 1 at a covered rule's index when its hint holds for `text` (0 for uncovered rules), or null
   * when no covered hint holds at all (the common case).
   */
  scan(text: string): Uint8Array | null;
}

interface Needle {
  readonly text: string;
  readonly rule: number;
}

const PAIRS = 128 * 128;

function foldAscii(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

function startsWithIgnoringCase(text: string, at: number, word: string): boolean {
  if (at + word.length > text.length) return false;
  for (let offset = 0; offset < word.length; offset++) {
    if (foldAscii(text.charCodeAt(at + offset)) !== word.charCodeAt(offset)) return false;
  }
  return true;
}

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) >= 128) return false;
  return true;
}

function add(table: Array<Needle[] | undefined>, key: number, needle: Needle): void {
  const list = table[key];
  if (list === undefined) table[key] = [needle];
  else list.push(needle);
}

/** Builds the scanner for `rules`: rules whose hint is not a described built-in are not covered. */
export function createHintScanner(rules: readonly ContentRule[]): HintScanner {
  const covered = new Uint8Array(rules.length);
  const singles: Array<number[] | undefined> = new Array(128);
  const pairs: Array<Needle[] | undefined> = new Array(PAIRS);
  const foldedPairs: Array<Needle[] | undefined> = new Array(PAIRS);
  const digitRules: Array<{ rule: number; run: number }> = [];
  rules.forEach((rule, index) => {
    const spec = rule.hint === undefined ? undefined : hintSpecOf(rule.hint);
    if (spec === undefined) return;
    const literals = spec.literals ?? [];
    const words = spec.words ?? [];
    const usable =
      literals.every((literal) => literal.length > 0 && isAscii(literal)) &&
      words.every((word) => word.length > 1 && /^[a-z]+$/.test(word));
    if (!usable) return;
    covered[index] = 1;
    for (const literal of literals) {
      const first = literal.charCodeAt(0);
      if (literal.length === 1) {
        const list = singles[first];
        if (list === undefined) singles[first] = [index];
        else list.push(index);
      } else add(pairs, first * 128 + literal.charCodeAt(1), { text: literal, rule: index });
    }
    for (const word of words) {
      add(foldedPairs, word.charCodeAt(0) * 128 + word.charCodeAt(1), { text: word, rule: index });
    }
    if (spec.digitRun !== undefined) {
      digitRules.push({ rule: index, run: spec.digitRun });
    }
  });

  // One table answers, for the two characters at each position, whether anything can start
  // there (almost never): bit 1 an exact pair, 2 a case-folded pair, 4 a single character, 8 a digit.
  const starts = new Uint8Array(PAIRS);
  for (let first = 0; first < 128; first++) {
    for (let second = 0; second < 128; second++) {
      const key = first * 128 + second;
      starts[key] =
        (pairs[key] === undefined ? 0 : 1) |
        (foldedPairs[foldAscii(first) * 128 + foldAscii(second)] === undefined ? 0 : 2) |
        (singles[first] === undefined ? 0 : 4) |
        (digitRules.length > 0 && first >= 48 && first <= 57 ? 8 : 0);
    }
  }

  const isDigit = (code: number) => code >= 48 && code <= 57;

  /** Marks what may start at `index` (its character `code`, the next one `next`). */
  const visit = (
    text: string,
    index: number,
    code: number,
    next: number,
    bits: number,
    found: Uint8Array,
  ): number => {
    let marked = 0;
    if ((bits & 4) !== 0) {
      for (const rule of singles[code] as number[])
        if (found[rule] === 0) {
          found[rule] = 1;
          marked++;
        }
    }
    if ((bits & 1) !== 0) {
      for (const needle of pairs[code * 128 + next] as Needle[]) {
        if (found[needle.rule] === 0 && text.startsWith(needle.text, index)) {
          found[needle.rule] = 1;
          marked++;
        }
      }
    }
    if ((bits & 2) !== 0) {
      for (const needle of foldedPairs[foldAscii(code) * 128 + foldAscii(next)] as Needle[]) {
        if (found[needle.rule] === 0 && startsWithIgnoringCase(text, index, needle.text)) {
          found[needle.rule] = 1;
          marked++;
        }
      }
    }
    if ((bits & 8) !== 0 && (index === 0 || !isDigit(text.charCodeAt(index - 1)))) {
      // The start of a digit run: measure it once.
      let end = index + 1;
      while (end < text.length && isDigit(text.charCodeAt(end))) end++;
      for (const entry of digitRules) {
        if (found[entry.rule] === 0 && end - index >= entry.run) {
          found[entry.rule] = 1;
          marked++;
        }
      }
    }
    return marked;
  };

  const coversAll = covered.every((flag) => flag === 1);

  return {
    covered,
    coversAll,
    scan(text) {
      const found = new Uint8Array(rules.length);
      const last = text.length - 1;
      if (last < 0) return null;
      let marked = 0;
      let code = text.charCodeAt(0);
      for (let index = 0; index < last; index++) {
        const next = text.charCodeAt(index + 1);
        if ((code | next) < 128) {
          const bits = starts[(code << 7) | next] as number;
          if (bits !== 0) marked += visit(text, index, code, next, bits, found);
        } else if (code < 128) {
          // Before a non-ASCII character only a single character or a digit can match.
          const bits = (starts[code << 7] as number) & 12;
          if (bits !== 0) marked += visit(text, index, code, 0, bits, found);
        }
        code = next;
      }
      if (code < 128) {
        const bits = (starts[code << 7] as number) & 12;
        if (bits !== 0) marked += visit(text, last, code, 0, bits, found);
      }
      return marked === 0 ? null : found;
    },
  };
}
