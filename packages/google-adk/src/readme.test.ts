// Runs every ```ts block of the README exactly as written, so the examples a user pastes keep working,
// with the network shut: a block that opened a socket, resolved a host name or called fetch fails.
import dns from 'node:dns';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { readmeBlocks } from '../../../test-support/readme-blocks.js';

const readme = readmeBlocks(join(import.meta.dirname, '..'));
afterAll(readme.remove);

it('has the quick start', () => {
  expect(readme.blocks.length).toBeGreaterThanOrEqual(1);
});

it.each(readme.blocks.map((_, index) => ({ name: `block ${index}`, index })))(
  'README $name runs as written, offline',
  async ({ index }) => {
    const refuse = () => {
      throw new Error('the README example tried to use the network');
    };
    const spies = [
      vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(refuse),
      vi.spyOn(dns, 'lookup').mockImplementation(refuse),
      vi.spyOn(globalThis, 'fetch').mockImplementation(refuse),
    ];
    try {
      const logged = await readme.run(index);
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
      if (index === 0) {
        expect(logged).toEqual([
          ['greeter: Hello Ada!'],
          ['greeter: You said hi.'],
          [4, { mood: 'cheerful', 'user:last_reply': 'You said hi.' }],
          [{ 'user:last_reply': 'You said hi.' }],
        ]);
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  },
);
