// Runs every ```ts block of the README exactly as written, so the examples a user pastes keep working.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { readmeBlocks } from '../../../test-support/readme-blocks.js';

const readme = readmeBlocks(join(import.meta.dirname, '..'));
afterAll(readme.remove);

it('has the examples', () => {
  expect(readme.blocks.length).toBeGreaterThanOrEqual(3);
});

it.each(readme.blocks.map((_, index) => ({ name: `block ${index}`, index })))(
  'README $name runs as written',
  async ({ index }) => {
    const logged = await readme.run(index);
    expect(logged.length).toBeGreaterThan(0);
    if (index === 0) expect(logged[0]).toEqual(['Hello!', ['item', 'item', 'meta']]);
    if (index === 1) {
      expect(logged[0]?.[1]).toEqual([
        'header',
        'run.start',
        'run.status',
        'llm.request',
        'llm.response',
        'tool.output',
        'llm.request',
        'llm.response',
        'run.status',
        'run.end',
      ]);
    }
  },
);
