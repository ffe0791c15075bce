import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

it('runs offline and verifies its own results', () => {
  const result = spawnSync(process.execPath, [main, '--json'], { encoding: 'utf8' });
  expect(result.status).toBe(0);
  const report = JSON.parse(result.stdout) as { episodes: unknown[]; roundTrip: boolean };
  expect(report.roundTrip).toBe(true);
  expect(report.episodes).toHaveLength(4);
});
