import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { completedRun, runIdFor } from '../testing/run-fixtures.js';
import { createMemoryRunStore } from './memory-run-store.js';
import { scopeRunStore } from './scoped-run-store.js';

const chain = {
  sha256: (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest()),
  randomSalt: () => new Uint8Array(randomBytes(16)),
};

describe('scopeRunStore(...).verifyChain', () => {
  it("verifies the scope's runs only; another scope's run is NOT_FOUND", async () => {
    const runs = createMemoryRunStore({ chain });
    const mine = scopeRunStore(runs, { scope: 'mine' });
    const theirs = scopeRunStore(runs, { scope: 'theirs' });
    const [a, b, c] = [runIdFor(0x21), runIdFor(0x22), runIdFor(0x23)];
    await mine.append(a, completedRun(a, 2));
    await mine.append(b, completedRun(b, 3));
    await theirs.append(c, completedRun(c, 4));

    const report = await mine.verifyChain({ sha256: chain.sha256 });
    expect(report.findings).toEqual([]);
    expect(report.verified.streams).toBe(2);
    expect(report.verified.entries).toBe(completedRun(a, 2).length + completedRun(b, 3).length);
    const named = await mine.verifyChain({ sha256: chain.sha256, runIds: [b, c] });
    expect(named.verified.streams).toBe(1);
    await expect(mine.verifyChain({ sha256: chain.sha256, runId: c })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const whole = await runs.verifyChain({ sha256: chain.sha256 });
    expect(whole.verified.streams).toBe(3);
  });
});
