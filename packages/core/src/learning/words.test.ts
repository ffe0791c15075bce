import { describe, expect, it } from 'vitest';
import { containsWord, decisionWordsIn, normalizeText, wordsOf } from './words.js';

describe('whole-word matching', () => {
  it('matches whole words only: "analysis" does not contain the word "is"', () => {
    expect(containsWord('Run analysis', 'is')).toBe(false);
    expect(containsWord('This is fine', 'is')).toBe(true);
    expect(containsWord('IS it?', 'is')).toBe(true);
    expect(containsWord('rate_limiter_tests.rs', 'tests')).toBe(true);
    expect(containsWord('latest.rs', 'test')).toBe(false);
  });

  it('finds decision words by whole word, in order, once each', () => {
    expect(decisionWordsIn('Check if tests pass, then check again')).toEqual(['check', 'if']);
    expect(decisionWordsIn('Modify config')).toEqual([]); // "modify" contains "if"
    expect(decisionWordsIn('Checkout the branch')).toEqual([]);
    expect(decisionWordsIn('Whenever possible, refactor')).toEqual([]);
    expect(decisionWordsIn('Decide WHETHER to retry')).toEqual(['decide', 'whether']);
    expect(decisionWordsIn('validate-input')).toEqual(['validate']);
  });

  it('splits words in any script and normalizes text', () => {
    expect(wordsOf('Überprüfe, ob größer 10')).toEqual(['überprüfe', 'ob', 'größer', '10']);
    expect(normalizeText('  Check   IF\n ready ')).toBe('check if ready');
  });
});
