import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/episodic-error.js';
import { SEARCH_IN_MEMORY_MAX_TEXTS, searchTexts } from './search-in-memory.js';
import { searchTextOfArtifactContent } from './search-text.js';

const TEXTS: Array<readonly [string, string]> = [
  ['a', 'read_file then edit_file then run tests'],
  ['b', 'run tests'],
  ['c', 'deploy the staging database'],
  ['d', 'tests tests tests after a long list of other words that dilute the score a lot'],
];

function validationField(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    expect(EpisodicError.isInstance(error)).toBe(true);
    const issues = (error as EpisodicError).details.issues as Array<{ field: string }>;
    expect((error as EpisodicError).code).toBe('VALIDATION_ERROR');
    return issues[0]?.field;
  }
  throw new Error('expected a validation error');
}

describe('searchTexts', () => {
  it('keeps the texts holding every word and phrase, best first, with snippets', () => {
    const hits = searchTexts(TEXTS, 'run tests');
    expect(hits.map((hit) => hit.key)).toEqual(['b', 'a']);
    expect(hits[0]?.snippet).toBe('«run» «tests»');
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? Number.POSITIVE_INFINITY);
    expect(searchTexts(TEXTS, '"edit file"').map((hit) => hit.key)).toEqual(['a']);
    expect(searchTexts(TEXTS, 'STAGING Database').map((hit) => hit.key)).toEqual(['c']);
    expect(searchTexts(TEXTS, 'nowhere')).toEqual([]);
    expect(searchTexts([], 'tests')).toEqual([]);
  });

  it('ranks a denser match higher, ties in the order given', () => {
    const hits = searchTexts(
      [
        ['x', 'alpha beta'],
        ['y', 'alpha beta'],
      ],
      'alpha',
    );
    expect(hits.map((hit) => hit.key)).toEqual(['x', 'y']);
    expect(hits[0]?.score).toBe(hits[1]?.score);
  });

  it('refuses a query with no word, too long, or too many texts, naming the field', () => {
    expect(validationField(() => searchTexts(TEXTS, '  "" ', 'patterns query'))).toBe(
      'patterns query',
    );
    expect(validationField(() => searchTexts(TEXTS, 'x'.repeat(501), '--query'))).toBe('--query');
    const many = Array.from(
      { length: SEARCH_IN_MEMORY_MAX_TEXTS + 1 },
      (_, index) => [index, ''] as const,
    );
    expect(validationField(() => searchTexts(many, 'x'))).toBe('entries');
  });
});

describe('searchTextOfArtifactContent', () => {
  it('is the string leaves of the content, its key left out', () => {
    expect(
      searchTextOfArtifactContent({
        key: 'tool_sequence:abc123',
        type: 'tool_sequence',
        tools: ['read_file', 'edit_file'],
        success_rate: 1,
      }),
    ).toBe('tool_sequence\nread_file\nedit_file');
    expect(searchTextOfArtifactContent('a reflection')).toBe('a reflection');
    expect(searchTextOfArtifactContent(null)).toBe('');
  });
});
