import * as fs from 'node:fs';

/**
 * The file operations the run-file writer and readers use. Injectable so tests can count write
 * calls or simulate a full disk; everything else (directories, renames) goes through `node:fs`.
 */
export interface FsIo {
  openSync(path: string, flags: number, mode?: number): number;
  closeSync(fd: number): void;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  readSync(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): number;
  /** `mode` (when given) lets readers refuse what is not a regular file (a FIFO, a directory). */
  fstatSync(fd: number): { size: number; ino?: number; mode?: number };
  fsyncSync(fd: number): void;
  fdatasyncSync(fd: number): void;
}

/** The real file operations. */
export const nodeFsIo: FsIo = {
  openSync: (path, flags, mode) => fs.openSync(path, flags, mode),
  closeSync: (fd) => fs.closeSync(fd),
  writeSync: (fd, buffer, offset, length) => fs.writeSync(fd, buffer, offset, length),
  readSync: (fd, buffer, offset, length, position) =>
    fs.readSync(fd, buffer, offset, length, position),
  fstatSync: (fd) => fs.fstatSync(fd),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  fdatasyncSync: (fd) => fs.fdatasyncSync(fd),
};
