import * as fs from 'node:fs';
import { type FsIo, nodeFsIo } from '../index.js';

/** The state of one file at the moment of a simulated power loss. */
export interface CrashSnapshot {
  path: string;
  /** Every byte the writer had written (the page cache). */
  bytes: Buffer;
  /** How many leading bytes were on disk: the file length at its last completed fsync/fdatasync. */
  syncedLength: number;
}

/** An `FsIo` that counts I/O operations and "loses power" before the N-th one. */
export interface CrashIo {
  readonly io: FsIo;
  /** Write and sync operations performed so far. */
  readonly operations: number;
  /** True once the power is lost: every later operation throws. */
  readonly crashed: boolean;
  /** Loses power now (if it has not already): returns the state of every file written through this io. */
  crash(): CrashSnapshot[];
  /** The snapshot taken at the crash, or undefined before it. */
  readonly snapshot: CrashSnapshot[] | undefined;
}

/** Thrown by every operation after the simulated power loss. */
export class PowerLoss extends Error {
  readonly code = 'EIO';
  constructor() {
    super('simulated power loss');
  }
}

/**
 * A power-loss double behind the writer's I/O interface (research/reliability.md T8, after SQLite's
 * crash VFS). Writes and reads go to the real file, so everything else the store does with `node:fs`
 * (locating, listing) sees it; the double only remembers, per file, how long it was at its last
 * completed fsync or fdatasync. The fsyncs themselves are not performed: what is durable is decided
 * by the simulation, not by the disk. Before the `crashAt`-th write or sync (1-based), the power
 * goes: the state is snapshotted and that operation and every later one throws `PowerLoss`.
 */
export function createCrashIo(crashAt: number): CrashIo {
  const paths = new Map<number, string>();
  const synced = new Map<string, number>();
  let operations = 0;
  let snapshot: CrashSnapshot[] | undefined;

  const take = (): CrashSnapshot[] => {
    const taken: CrashSnapshot[] = [];
    for (const [path, syncedLength] of synced) {
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(path);
      } catch {
        continue;
      }
      taken.push({ path, bytes, syncedLength: Math.min(syncedLength, bytes.length) });
    }
    return taken;
  };
  const crash = () => {
    snapshot ??= take();
    return snapshot;
  };
  const guard = () => {
    if (snapshot !== undefined) throw new PowerLoss();
  };
  const count = () => {
    guard();
    operations++;
    if (operations >= crashAt) {
      crash();
      throw new PowerLoss();
    }
  };
  const sync = (fd: number) => {
    count();
    const path = paths.get(fd);
    if (path !== undefined) synced.set(path, nodeFsIo.fstatSync(fd).size);
  };

  const io: FsIo = {
    openSync(path, flags, mode) {
      guard();
      const fd = nodeFsIo.openSync(path, flags, mode);
      // Only files opened for writing are run files this simulation tracks.
      if ((flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR)) !== 0) {
        paths.set(fd, path);
        if (!synced.has(path)) synced.set(path, 0);
      }
      return fd;
    },
    closeSync(fd) {
      paths.delete(fd);
      nodeFsIo.closeSync(fd);
    },
    writeSync(fd, buffer, offset, length) {
      count();
      return nodeFsIo.writeSync(fd, buffer, offset, length);
    },
    readSync(fd, buffer, offset, length, position) {
      guard();
      return nodeFsIo.readSync(fd, buffer, offset, length, position);
    },
    fstatSync(fd) {
      guard();
      return nodeFsIo.fstatSync(fd);
    },
    fsyncSync: sync,
    fdatasyncSync: sync,
  };
  return {
    io,
    get operations() {
      return operations;
    },
    get crashed() {
      return snapshot !== undefined;
    },
    get snapshot() {
      return snapshot;
    },
    crash,
  };
}

/** How the bytes that were not yet synced fare in the power loss. */
export interface Damage {
  /** Which part of the unsynced tail reached the disk: none, all, a cut at a 512-byte sector boundary, or at any byte. */
  keep: 'none' | 'all' | 'sector' | 'byte';
  /** Where the cut falls, as a fraction of the unsynced tail. */
  at: number;
  /** Each kept unsynced 512-byte sector is replaced by NULs with this probability (delayed allocation). */
  zeroSectors: number;
  /** NUL bytes after the kept data: the file size reached the disk before its content. */
  nulTail: number;
  /** Random source for the sector choices, in [0, 1). */
  random: () => number;
}

const SECTOR = 512;

/**
 * The bytes a file holds after the power loss: the synced prefix intact, then what `damage` keeps
 * of the rest, possibly with sectors of NULs, possibly followed by NULs (atomiccommit.html: "the
 * file size is updated before the file content"; Claude Code #49876: NUL runs in session files).
 */
export function bytesAfterPowerLoss(file: CrashSnapshot, damage: Damage): Buffer {
  const { bytes, syncedLength } = file;
  const unsynced = bytes.length - syncedLength;
  let end: number;
  switch (damage.keep) {
    case 'none':
      end = syncedLength;
      break;
    case 'all':
      end = bytes.length;
      break;
    case 'sector': {
      const cut = syncedLength + Math.floor(damage.at * (unsynced + 1));
      end = Math.max(syncedLength, Math.min(bytes.length, cut - (cut % SECTOR)));
      break;
    }
    default:
      end = syncedLength + Math.floor(damage.at * (unsynced + 1));
  }
  const kept = Buffer.from(bytes.subarray(0, Math.min(end, bytes.length)));
  if (damage.zeroSectors > 0) {
    for (let sector = Math.floor(syncedLength / SECTOR) * SECTOR; sector < kept.length; ) {
      const next = sector + SECTOR;
      if (damage.random() < damage.zeroSectors) {
        kept.fill(0, Math.max(sector, syncedLength), Math.min(next, kept.length));
      }
      sector = next;
    }
  }
  return damage.nulTail > 0 ? Buffer.concat([kept, Buffer.alloc(damage.nulTail)]) : kept;
}
