// A transcript line JSON.parse would change (a key given twice keeps its last value) or that later
// code would overflow the stack on (8000 nested arrays, once an INTERNAL_ERROR "Maximum call stack
// size exceeded") is reported as damaged with the key or the place, and reading goes on.
import { describe, expect, it } from 'vitest';
import { readJsonObjectLines } from './json-lines.js';
import type { ImportProblem } from './source-conversation.js';

describe('readJsonObjectLines', () => {
  it('reports a duplicate key and 8000-deep nesting as damaged lines, naming where, and reads on', () => {
    const deep = `${'['.repeat(8000)}${']'.repeat(8000)}`;
    const text = [
      '{"type":"user","message":{"content":"dup","content":"second"}}',
      `{"type":"assistant","input":${deep}}`,
      '{"type":"user","text":"kept"}',
    ].join('\n');
    const problems: ImportProblem[] = [];
    const lines = readJsonObjectLines(text, problems, 'a.jsonl');
    expect(lines).toEqual([{ line: 3, value: { type: 'user', text: 'kept' } }]);
    expect(problems).toEqual([
      {
        source: 'a.jsonl',
        line: 1,
        message: expect.stringContaining(
          'the key "content" appears twice in the object at $.message',
        ),
      },
      {
        source: 'a.jsonl',
        line: 2,
        message: expect.stringContaining(
          'nested more than 512 arrays and objects deep at $.input[0]',
        ),
      },
    ]);
  });
});
