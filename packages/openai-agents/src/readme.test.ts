// Runs every ```ts block of the README exactly as written, so the examples a user pastes keep
// working, with the network cut: the quick start's agent run must not open a socket or fetch.
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { readmeBlocks } from '../../../test-support/readme-blocks.js';

const readme = readmeBlocks(join(import.meta.dirname, '..'));
afterAll(readme.remove);

const attempts: string[] = [];
beforeAll(() => {
  vi.stubEnv('OPENAI_API_KEY', '');
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
    attempts.push(`fetch ${String(input)}`);
    throw new Error('the README examples must not use the network');
  });
  vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (this: net.Socket) {
    attempts.push('socket');
    throw new Error('the README examples must not use the network');
  });
  return () => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  };
});

it('has the quick start', () => {
  expect(readme.blocks.length).toBeGreaterThanOrEqual(2);
});

it.each(readme.blocks.map((_, index) => ({ name: `block ${index}`, index })))(
  'README $name runs as written, offline',
  async ({ index }) => {
    const logged = await readme.run(index);
    expect(attempts).toEqual([]);
    if (index === 0) {
      expect(logged).toEqual([['I see 3 items; you first said "Hi, I am Sam.".'], [4]]);
    }
    if (index === 1) {
      expect(logged).toEqual([
        [{ role: 'user', content: 'oops' }],
        [['function_call']],
        [
          [
            'header',
            'x.openai_agents.item',
            'x.openai_agents.item',
            'x.openai_agents.item',
            'x.openai_agents.pop',
          ],
        ],
        ['team-one'],
        [[]],
      ]);
    }
  },
);
