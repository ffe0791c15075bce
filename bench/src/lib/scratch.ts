import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext } from './context.js';

/** A fresh scratch directory for one module; removed by `dispose`. */
export function scratchDirectory(
  context: BenchContext,
  name: string,
): {
  path: string;
  dispose(): void;
} {
  const path = join(context.paths.scratch, `${name}-${process.pid}`);
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path, { recursive: true });
  return { path, dispose: () => rmSync(path, { recursive: true, force: true }) };
}
