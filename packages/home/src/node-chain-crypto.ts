// Node's SHA-256 and salt source for the chain (docs/design/verify.md 4.4): core takes both
// injected, and stays free of node:crypto.
import * as nodeCrypto from 'node:crypto';
import type { ChainWriterOptions, Sha256 } from '@episodic/core/adapter';

const hash = (
  nodeCrypto as unknown as {
    hash?: (algorithm: string, data: Uint8Array, encoding: 'buffer') => Buffer;
  }
).hash;

/** A synchronous SHA-256: `crypto.hash` (Node 20.12 and later), else `createHash`. */
export const nodeSha256: Sha256 =
  hash === undefined
    ? (bytes) => nodeCrypto.createHash('sha256').update(bytes).digest()
    : (bytes) => hash('sha256', bytes, 'buffer');

/** The chain writer's SHA-256 and salts (drawn 4 KB at a time), for a store that chains. */
export function nodeChainCrypto(): ChainWriterOptions {
  const pool = Buffer.alloc(4096);
  let next = pool.length;
  return {
    sha256: nodeSha256,
    randomSalt: () => {
      if (next === pool.length) {
        nodeCrypto.randomFillSync(pool);
        next = 0;
      }
      next += 16;
      return pool.subarray(next - 16, next);
    },
  };
}
