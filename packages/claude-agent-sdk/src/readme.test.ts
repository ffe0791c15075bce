// Runs every ```ts block of the README exactly as written, so the examples a user pastes keep working.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { readmeBlocks } from '../../../test-support/readme-blocks.js';

const readme = readmeBlocks(join(import.meta.dirname, '..'));
afterAll(readme.remove);

it('has the quick start', () => {
  expect(readme.blocks.length).toBeGreaterThanOrEqual(1);
});

it.each(readme.blocks.map((_, index) => ({ name: `block ${index}`, index })))(
  'README $name runs as written',
  async ({ index }) => {
    const logged = await readme.run(index);
    expect(logged.length).toBeGreaterThan(0);
    if (index === 0) expect(logged).toEqual([[['user', 'custom-title']], ['Greeting']]);
  },
);
