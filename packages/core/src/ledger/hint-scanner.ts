import { type ContentRule, hintSpecOf } from './content-rules.js';

/**
 * Evaluates the hints of many rules in one pass over a text. Checking 23 hints one by one costs 23
 * scans of every string an event carries (most of a ledger append); this walks the text once,
 * looking up each position's two characters in a table of the hints' literals.
 */
export interface HintScanner {
  /** 1 at a rule's index when the scanner evaluates its hint (the rule has a built-in hint). */
  readonly covered: Uint8Array;
  /** 1 at a covered rule's index when its hint holds for `text` (0 for uncovered rules). */
  scan(text: string): Uint8Array;
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
  let shortestRun = Number.POSITIVE_INFINITY;
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
      shortestRun = Math.min(shortestRun, spec.digitRun);
    }
  });

  // Typed tables answer "nothing starts here" (almost every position) without touching the lists.
  const singleMask = new Uint8Array(128);
  for (let code = 0; code < 128; code++) if (singles[code] !== undefined) singleMask[code] = 1;
  const pairMask = new Uint8Array(PAIRS);
  for (let key = 0; key < PAIRS; key++) {
    pairMask[key] = (pairs[key] === undefined ? 0 : 1) | (foldedPairs[key] === undefined ? 0 : 2);
  }
  const hasDigitRules = digitRules.length > 0;

  return {
    covered,
    scan(text) {
      const found = new Uint8Array(rules.length);
      const length = text.length;
      let digits = 0;
      let code = length > 0 ? text.charCodeAt(0) : 0;
      for (let index = 0; index < length; index++) {
        const next = index + 1 < length ? text.charCodeAt(index + 1) : 0x10000;
        if (code >= 48 && code <= 57) {
          digits++;
          if (hasDigitRules && digits >= shortestRun) {
            for (const entry of digitRules) if (digits >= entry.run) found[entry.rule] = 1;
          }
        } else digits = 0;
        if (code < 128) {
          if (singleMask[code] === 1) {
            for (const rule of singles[code] as number[]) found[rule] = 1;
          }
          if (next < 128) {
            if (((pairMask[code * 128 + next] as number) & 1) !== 0) {
              for (const needle of pairs[code * 128 + next] as Needle[]) {
                if (found[needle.rule] === 0 && text.startsWith(needle.text, index))
                  found[needle.rule] = 1;
              }
            }
            const foldedKey = foldAscii(code) * 128 + foldAscii(next);
            if (((pairMask[foldedKey] as number) & 2) !== 0) {
              for (const needle of foldedPairs[foldedKey] as Needle[]) {
                if (found[needle.rule] === 0 && startsWithIgnoringCase(text, index, needle.text))
                  found[needle.rule] = 1;
              }
            }
          }
        }
        code = next;
      }
      return found;
    },
  };
}
