import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How this machine can give a test a small file system of its own, or why it cannot. */
export type SmallFilesystemSupport = { how: 'unshare' | 'mount' } | { skip: string };

/**
 * Probes for a way to mount a tiny tmpfs: in a private user + mount namespace (`unshare -rm`, works
 * without root where user namespaces are enabled, and the mount disappears with the process), else
 * a plain `mount` when running as root. Neither: the reason, for `it.skipIf`.
 */
export function smallFilesystemSupport(): SmallFilesystemSupport {
  const probe = spawnSync(
    'unshare',
    [
      '-rm',
      'sh',
      '-c',
      'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d"; s=$?; rmdir "$d"; exit $s',
    ],
    { encoding: 'utf8' },
  );
  if (probe.status === 0) return { how: 'unshare' };
  const unshareProblem = probe.error?.message ?? probe.stderr.trim();
  let mountProblem = 'the tests do not run as root';
  if (process.getuid?.() === 0) {
    // Root in a container without CAP_SYS_ADMIN cannot mount either: try it.
    const directory = mkdtempSync(join(tmpdir(), 'episodic-mount-probe-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', directory], {
        stdio: 'pipe',
      });
      execFileSync('umount', [directory], { stdio: 'pipe' });
      return { how: 'mount' };
    } catch (error) {
      mountProblem = `mount as root failed (${(error as Error).message.split('\n')[0]})`;
    } finally {
      rmdirSync(directory);
    }
  }
  return {
    skip: `no small file system can be mounted here: \`unshare -rm\` failed (${unshareProblem || `exit ${probe.status}`}) and ${mountProblem}`,
  };
}

/** What a child run on the small file system printed. */
export interface SmallFilesystemRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `argv` with a tmpfs of `sizeBytes` mounted on `directory` (which must exist and be empty).
 * With `unshare` only the child sees the mount; with `mount` it is unmounted when the child exits.
 */
export function runOnSmallFilesystem(
  support: { how: 'unshare' | 'mount' },
  directory: string,
  sizeBytes: number,
  argv: readonly string[],
): Promise<SmallFilesystemRun> {
  const size = `size=${Math.ceil(sizeBytes / 4096) * 4096}`;
  let command: string;
  let args: string[];
  if (support.how === 'unshare') {
    command = 'unshare';
    args = [
      '-rm',
      'sh',
      '-c',
      'mount -t tmpfs -o "$1" tmpfs "$2" && shift 2 && exec "$@"',
      'sh',
      size,
      directory,
      ...argv,
    ];
  } else {
    execFileSync('mount', ['-t', 'tmpfs', '-o', size, 'tmpfs', directory]);
    [command, ...args] = argv as [string, ...string[]];
  }
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('close', (code, signal) => {
      if (support.how === 'mount') execFileSync('umount', [directory]);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
