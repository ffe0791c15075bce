import { spawnSync } from 'node:child_process';
import { nowMicros } from './stats.js';

/**
 * The environment of cold-start rows: the caller's, without `NODE_EXTRA_CA_CERTS` (on Node 20 it
 * adds ~30 ms to every process start by parsing the CA bundle eagerly; research/performance.md §0).
 */
export function coldStartEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== 'NODE_EXTRA_CA_CERTS') environment[key] = value;
  }
  return { ...environment, ...extra };
}

export interface SpawnTiming {
  /** Wall time from spawn to exit, in ms. */
  ms: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns `node args…`, waits for it to exit, and times it. */
export function timeNode(
  args: readonly string[],
  environment: Record<string, string>,
): SpawnTiming {
  const before = nowMicros();
  const result = spawnSync(process.execPath, args, {
    env: environment,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ms = (nowMicros() - before) / 1000;
  return { ms, status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The first line of a process's complaint, for "not available" notes. */
export function firstLineOf(text: string): string {
  return text.trim().split('\n')[0]?.slice(0, 200) ?? '';
}
