// Pins docs/design/verify.md 8.3 ("kill -9 during chained appends: after reopening, verify reports
// at most the torn last line; 0 false altered"): a real child appends chained records with
// durability `always` and is killed with SIGKILL at a random moment (every fifth time through the
// crash point that writes half a record first); the parent verifies the run file as it was left,
// then reopens the store, appends and verifies again up to the record before the torn line.
// RELIABILITY_FULL=1 runs 100 kills.
import * as crypto from 'node:crypto';
import { createChainVerifier, type RunChainLine } from '@episodic/core/adapter';
import { describe, expect, it } from 'vitest';
import { count, randomInt, spawnChild } from './__fixtures__/child-process.js';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore } from './index.js';

const runIdFor = (iteration: number) =>
  `6c5b4a3e-2f1a-4b9c-8d7e-${iteration.toString(16).padStart(12, '0')}`;
const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest();

function verify(runId: string, lines: readonly RunChainLine[]) {
  const verifier = createChainVerifier({ sha256 });
  const stream = { kind: 'run', id: runId } as const;
  for (const { line, text } of lines) verifier.line(stream, text, { line });
  verifier.endStream(stream);
  return verifier.report();
}

describe('kill -9 of a chained run writer (real processes)', () => {
  it('leaves a run that verifies with no error: at most its torn last line, as a warning', async () => {
    const kills = count(10, 100);
    const directory = temporaryDirectory();
    let tornTails = 0;
    try {
      for (let iteration = 0; iteration < kills; iteration++) {
        const runId = runIdFor(iteration);
        const store = createFsStore({ root: directory.path, durability: 'always', chain: true });
        await store.runs.append(runId, [
          {
            type: 'header',
            schema_version: 1,
            run_id: runId,
            started_at: new Date().toISOString(),
          },
        ]);
        await store.close();

        const tear = iteration % 5 === 4;
        const child = spawnChild('append-writer', {
          root: directory.path,
          runId,
          writer: iteration % 4,
          minSize: 100,
          maxSize: 64 * 1024,
          durability: 'always',
          chain: true,
          ...(tear ? { tearAtIndex: randomInt(1, 20) } : {}),
        });
        await child.waitForLine((line) => line.startsWith('ack '));
        if (!tear) {
          await new Promise((resolve) => setTimeout(resolve, randomInt(0, 150)));
          child.process.kill('SIGKILL');
        }
        const exit = await child.exited;
        expect(exit.signal, exit.stderr).toBe('SIGKILL');

        const reopened = createFsStore({ root: directory.path, durability: 'always', chain: true });
        const left = (await reopened.readRunChain(runId)) ?? [];
        const report = verify(runId, left);
        expect(report.findings.filter((finding) => finding.severity === 'error')).toEqual([]);
        const warnings = report.findings.filter((finding) => finding.severity === 'warning');
        expect(warnings.length).toBeLessThanOrEqual(1);
        if (tear) expect(warnings).toMatchObject([{ finding: 'unreadable' }]);
        if (warnings.length === 1) {
          tornTails++;
          expect(warnings[0]?.where?.line).toBe(left.length);
        }
        // Appending after the crash continues the chain: everything before the torn line (if
        // any) still verifies, and the new line carries the next n.
        const marker = { type: 'x.test.marker', run_id: runId, ts: new Date().toISOString() };
        await reopened.runs.append(runId, [marker]);
        const after = (await reopened.readRunChain(runId)) ?? [];
        const before = warnings.length === 1 ? left.slice(0, -1) : left;
        expect(verify(runId, before).ok).toBe(true);
        const chained = before.length;
        expect(after.at(-1)?.text).toContain(`,"chain":{"n":${chained + 1},`);
        expect(await reopened.runs.delete(runId)).toBe(true);
        await reopened.close();
      }
      expect(tornTails).toBeGreaterThanOrEqual(Math.floor(kills / 5));
      console.log(
        `[figures] chained writer kill -9: ${kills} kills, 0 errors on verify, ${tornTails} torn last lines reported as warnings`,
      );
    } finally {
      directory.remove();
    }
  }, 900_000);
});
