import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runDemo, temporaryHome } from './run-built-demo.js';

// The READMEs quote the demo's output: the sample in apps/demo/README.md and the excerpt in the
// root README. Both must show what the demo prints today. Ids, paths, process ids, dates and
// timings change from run to run (and the reward with the timings), so they are compared as
// placeholders; every other character must match. `UPDATE_README=1` writes a fresh sample.

const DEMO_README = fileURLToPath(new URL('../README.md', import.meta.url));
const ROOT_README = fileURLToPath(new URL('../../../README.md', import.meta.url));
/** How the sample writes the home (the default home, from the repository root). */
const SAMPLE_HOME = 'apps/demo/.episodic-demo';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The output with everything that changes between runs replaced by a placeholder. */
function normalize(text: string, home: string): string {
  const uuids = new Set(
    text.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g),
  );
  let normalized = text.replace(new RegExp(`(/[^\\s]*)?${escapeRegExp(home)}`, 'g'), '<home>');
  for (const uuid of uuids) normalized = normalized.replaceAll(uuid, '<uuid>');
  // Short forms of the ids: their first 8 characters.
  for (const uuid of uuids)
    normalized = normalized.replace(new RegExp(`\\b${uuid.slice(0, 8)}\\b`, 'g'), '<id>');
  return normalized
    .replace(/call_[0-9a-f]{12}_(\d+)/g, 'call_<id>_$1')
    .replace(/\bsha256 [0-9a-f]{12,}/g, 'sha256 <sha>')
    .replace(/\band [0-9a-f]{16}…/g, 'and <sha>…')
    .replace(/\b(process|pid|demo:|this one:) \d+/g, '$1 <pid>')
    .replace(/\d{4}\/\d{2}\/\d{2}/g, '<date>')
    .replace(/[\d,]+(\.\d+)? (ms|s)\b/g, '<n> $2')
    .split('\n')
    .map((line) =>
      // The reward's efficiency factor comes from the measured durations.
      /reward|efficiency/.test(line) ? line.replace(/\d+\.\d+/g, '<x>') : line,
    )
    .join('\n');
}

/** The fenced block of `readme` that follows `marker`. */
function blockAfter(readme: string, marker: string): { start: number; end: number; text: string } {
  const at = readme.indexOf(marker);
  expect(at, `README has no "${marker}"`).toBeGreaterThanOrEqual(0);
  const open = readme.indexOf('```text\n', at);
  const start = open + '```text\n'.length;
  const end = readme.indexOf('\n```', start);
  return { start, end, text: readme.slice(start, end) };
}

describe('the demo output the READMEs quote', () => {
  const home = temporaryHome();
  let output: string;

  beforeAll(async () => {
    const result = await runDemo(['--home', home]);
    expect(result.status, result.stderr).toBe(0);
    output = result.stdout.trimEnd();
  });

  it('is the sample in apps/demo/README.md, ids, paths and timings aside', () => {
    const readme = readFileSync(DEMO_README, 'utf8');
    const sample = blockAfter(readme, '<summary><code>pnpm demo</code></summary>');
    if (process.env.UPDATE_README === '1') {
      const fresh = output.replaceAll(home, SAMPLE_HOME);
      writeFileSync(
        DEMO_README,
        `${readme.slice(0, sample.start)}${fresh}${readme.slice(sample.end)}`,
      );
      return;
    }
    expect(normalize(sample.text, SAMPLE_HOME)).toBe(normalize(output, home));
  });

  it('holds every line of the excerpt in the root README', () => {
    const excerpt = blockAfter(readFileSync(ROOT_README, 'utf8'), '## What the demo shows');
    const printed = new Set(normalize(output, home).split('\n'));
    const lines = normalize(excerpt.text, SAMPLE_HOME)
      .split('\n')
      .filter((line) => line !== '…');
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(printed, `root README: ${line}`).toContain(line);
  });
});
