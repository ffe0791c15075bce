// Runs every ```ts block of the README exactly as written, in a temporary directory, so the examples
// a user pastes keep working.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';

const packageDirectory = join(import.meta.dirname, '..');
const readme = readFileSync(join(packageDirectory, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
// Inside the package, so the blocks resolve `ai` and `@episodic/*` like a user's project does.
mkdirSync(join(packageDirectory, 'node_modules', '.cache'), { recursive: true });
const directory = mkdtempSync(join(packageDirectory, 'node_modules', '.cache', 'readme-'));
const previousDirectory = process.cwd();

afterAll(() => {
  process.chdir(previousDirectory);
  rmSync(directory, { recursive: true, force: true });
});

it('has the examples', () => {
  expect(blocks.length).toBeGreaterThanOrEqual(1);
});

it.each(blocks.map((code, index) => ({ name: `block ${index}`, index, code })))(
  'README $name runs as written',
  async ({ index, code }) => {
    const file = join(directory, `block-${index}.ts`);
    writeFileSync(file, code);
    const logged: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...values) => {
      logged.push(values);
    });
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    process.chdir(directory);
    await import(file);
    expect(logged.length).toBeGreaterThan(0);
    if (index === 0) expect(logged[0]).toEqual([['hello', 'note 2']]);
  },
);
