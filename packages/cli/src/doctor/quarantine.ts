import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** One entry of the quarantine manifest. */
export interface QuarantineEntry {
  /** `fragments` (damaged lines cut out of a file) or `file` (a whole file moved aside). */
  readonly kind: 'fragments' | 'file';
  /** Where it came from, relative to the home (or absolute when outside it). */
  readonly source: string;
  /** Where it is now, relative to the quarantine folder. */
  readonly stored_as: string;
  /** Why. */
  readonly reason: string;
  /** For fragments: each cut line, in order, with its place in the original file. */
  readonly fragments?: ReadonlyArray<{
    line: number;
    byte_offset: number;
    byte_length: number;
    /** Where its bytes start in `stored_as` (fragments are stored one after another, each followed by `\n`). */
    stored_offset: number;
    terminated: boolean;
    message: string;
  }>;
}

/**
 * A quarantine folder `<home>/quarantine/<UTC time>-<id>/`, created on first use. Everything is
 * written and synced here BEFORE the original is changed, and `manifest.json` (rewritten
 * atomically after each entry) says where every byte came from, so a repair never loses data.
 */
export interface Quarantine {
  /** The folder, once created; null while nothing was quarantined. */
  readonly path: string | null;
  /** Stores the damaged lines cut from `source`; returns the entry's `stored_as`. */
  saveFragments(
    source: string,
    fragments: ReadonlyArray<{
      bytes: Buffer;
      line: number;
      byteOffset: number;
      terminated: boolean;
      message: string;
    }>,
    reason: string,
  ): void;
  /** Moves a whole file into the quarantine (same relative path), e.g. an unreadable snapshot. */
  moveFile(source: string, reason: string): void;
  readonly entries: readonly QuarantineEntry[];
  /**
   * Why nothing can be quarantined, or null: `<home>/quarantine` exists but is not a real
   * directory (a symbolic link, which could lead out of the home, or a file). `--fix` then
   * repairs nothing, since every repair writes to the quarantine first.
   */
  readonly refusal: string | null;
}

function syncDirectory(path: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY);
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems cannot fsync a directory; the data files themselves were synced.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function writeSynced(path: string, data: Buffer | string): void {
  const fd = fs.openSync(path, 'wx', 0o600);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function createQuarantine(home: string, now: Date): Quarantine {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const folder = join(home, 'quarantine', `${stamp}-${randomBytes(3).toString('hex')}`);
  const entries: QuarantineEntry[] = [];
  let created = false;

  const parent = join(home, 'quarantine');
  const refusal = (): string | null => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(parent);
    } catch {
      return null;
    }
    if (stat.isDirectory()) return null;
    return `${parent} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}, and doctor --fix never writes through it (it could lead out of the home). Replace it with a directory (or remove it), then run doctor --fix again`;
  };
  const ensure = () => {
    if (created) return;
    const refused = refusal();
    if (refused !== null) throw new Error(refused);
    // Created level by level, never through a link: the home is what the user named, the rest is ours.
    try {
      fs.mkdirSync(parent, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!fs.lstatSync(parent).isDirectory()) throw new Error(refusal() ?? `${parent} changed`);
    fs.mkdirSync(folder, { mode: 0o700 });
    syncDirectory(dirname(folder));
    created = true;
  };
  const sourceName = (source: string) => {
    const inside = relative(home, source);
    return inside.startsWith('..') ? source : inside;
  };
  const target = (name: string) => {
    const path = join(folder, name.startsWith('/') ? join('outside', name) : name);
    fs.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    return path;
  };
  const writeManifest = () => {
    const manifest = `${JSON.stringify({ format: 'episodic.quarantine.v1', home, created_at: now.toISOString(), entries }, null, 2)}\n`;
    const temp = join(folder, `.manifest.json.${process.pid}.tmp`);
    fs.rmSync(temp, { force: true });
    writeSynced(temp, manifest);
    fs.renameSync(temp, join(folder, 'manifest.json'));
    syncDirectory(folder);
  };

  return {
    get path() {
      return created ? folder : null;
    },
    entries,
    get refusal() {
      return refusal();
    },
    saveFragments(source, fragments, reason) {
      ensure();
      const name = `${sourceName(source)}.damaged`;
      const path = target(name);
      const parts: Buffer[] = [];
      const stored: NonNullable<QuarantineEntry['fragments']>[number][] = [];
      let storedOffset = 0;
      for (const fragment of fragments) {
        stored.push({
          line: fragment.line,
          byte_offset: fragment.byteOffset,
          byte_length: fragment.bytes.length,
          stored_offset: storedOffset,
          terminated: fragment.terminated,
          message: fragment.message,
        });
        parts.push(fragment.bytes, Buffer.from('\n'));
        storedOffset += fragment.bytes.length + 1;
      }
      writeSynced(path, Buffer.concat(parts));
      syncDirectory(dirname(path));
      entries.push({
        kind: 'fragments',
        source: sourceName(source),
        stored_as: relative(folder, path),
        reason,
        fragments: stored,
      });
      writeManifest();
    },
    moveFile(source, reason) {
      ensure();
      const path = target(sourceName(source));
      try {
        fs.renameSync(source, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        // Only a regular file is copied (a link is never read through, a FIFO never opened).
        if (!fs.lstatSync(source).isFile()) throw error;
        // Another filesystem: copy and sync before the original goes.
        writeSynced(path, fs.readFileSync(source));
        fs.unlinkSync(source);
      }
      syncDirectory(dirname(path));
      syncDirectory(dirname(source));
      entries.push({
        kind: 'file',
        source: sourceName(source),
        stored_as: relative(folder, path),
        reason,
      });
      writeManifest();
    },
  };
}
