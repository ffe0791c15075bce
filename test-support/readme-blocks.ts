import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi } from 'vitest';

/** A README's ```ts blocks, ready to run as a user pastes them. */
export interface ReadmeBlocks {
  /** The code of each block, in order. */
  readonly blocks: readonly string[];
  /**
   * Runs block `index` in the blocks' folder (its working directory) and returns what it logged
   * (`console.log` calls; `process.stdout.write` output is swallowed).
   */
  run(index: number): Promise<unknown[][]>;
  /** Removes the folder the blocks ran in. */
  remove(): void;
}

/**
 * The ```ts blocks of a package's README. Each runs from a file under the package's
 * `node_modules/.cache`, where it resolves `@episodic/*` and the package's dependencies the way a
 * user's project does.
 */
export function readmeBlocks(packageDirectory: string): ReadmeBlocks {
  const readme = readFileSync(join(packageDirectory, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  const cache = join(packageDirectory, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const directory = mkdtempSync(join(cache, 'readme-'));
  return {
    blocks,
    async run(index) {
      const file = join(directory, `block-${index}.ts`);
      writeFileSync(file, blocks[index] as string);
      const logged: unknown[][] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((...values) => {
        logged.push(values);
      });
      const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      const previous = process.cwd();
      process.chdir(directory);
      try {
        await import(file);
      } finally {
        process.chdir(previous);
        log.mockRestore();
        write.mockRestore();
      }
      return logged;
    },
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}
