import { describe, expect, it } from 'vitest';
import { loadFailureReason } from './sqlite-driver.js';

// Node's own message when an addon was built for another Node.js (src/node_binding.cc), as
// `require` throws it (ERR_DLOPEN_FAILED): the versions are on the 3rd and 4th lines.
const MISMATCH = `The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'
was compiled against a different Node.js version using
NODE_MODULE_VERSION 115. This version of Node.js requires
NODE_MODULE_VERSION 127. Please try re-compiling or re-installing
the module (for instance, using \`npm rebuild\` or \`npm install\`).`;

describe('loadFailureReason', () => {
  it('keeps the whole module-version mismatch, naming both NODE_MODULE_VERSION numbers', () => {
    const reason = loadFailureReason(
      Object.assign(new Error(MISMATCH), { code: 'ERR_DLOPEN_FAILED' }),
    );
    expect(reason).toMatch(
      /^its native addon was built for NODE_MODULE_VERSION 115, and this Node\.js \S+ requires NODE_MODULE_VERSION 127: The module /,
    );
    expect(reason).toContain(
      'was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 127. Please try re-compiling',
    );
    expect(reason).not.toContain('\n');
  });

  it('keeps any other loader message whole, on one line', () => {
    expect(
      loadFailureReason(new Error('Could not locate the bindings file. Tried:\n → /a\n → /b')),
    ).toBe('Could not locate the bindings file. Tried: → /a → /b');
    expect(loadFailureReason('x'.repeat(2_000))).toHaveLength(1_001);
  });
});
