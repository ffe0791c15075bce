import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const CHUNK = 1024 * 1024;
const NEWLINE = 0x0a;

/** The research R1 probe: 1 MB chunked readSync, Buffer.indexOf('\n'), per-line decode, JSON.parse. */
export function probeReadAll(path: string): unknown[] {
  const records: unknown[] = [];
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(CHUNK);
    let carry: Buffer | null = null;
    let offset = 0;
    for (;;) {
      const read = readSync(fd, chunk, 0, CHUNK, offset);
      if (read === 0) break;
      offset += read;
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(NEWLINE, start);
        if (newline === -1 || newline >= read) {
          const rest = Buffer.from(chunk.subarray(start, read));
          carry = carry === null ? rest : Buffer.concat([carry, rest]);
          break;
        }
        if (carry !== null) {
          const line = Buffer.concat([carry, chunk.subarray(start, newline)]);
          carry = null;
          records.push(JSON.parse(line.toString('utf8')));
        } else {
          records.push(JSON.parse(chunk.toString('utf8', start, newline)));
        }
        start = newline + 1;
      }
    }
    if (carry !== null && carry.length > 0) records.push(JSON.parse(carry.toString('utf8')));
  } finally {
    closeSync(fd);
  }
  return records;
}

const TAIL_BLOCK = 64 * 1024;

/** The research R5 probe: read backwards in 64 KB blocks until `count` lines, decode, JSON.parse. */
export function probeTail(path: string, count: number): unknown[] {
  const fd = openSync(path, 'r');
  try {
    let position = fstatSync(fd).size;
    const lines: string[] = [];
    let pending: Buffer | null = null;
    while (position > 0 && lines.length < count) {
      const start = Math.max(0, position - TAIL_BLOCK);
      const block = Buffer.allocUnsafe(position - start);
      readSync(fd, block, 0, block.length, start);
      const bytes: Buffer = pending === null ? block : Buffer.concat([block, pending]);
      let end = bytes.length;
      while (lines.length < count && end > 0) {
        const newline = bytes.lastIndexOf(NEWLINE, end - 1);
        if (newline === -1) break;
        if (newline + 1 < end) lines.push(bytes.toString('utf8', newline + 1, end));
        end = newline;
      }
      pending = bytes.subarray(0, end);
      position = start;
    }
    if (lines.length < count && pending !== null && pending.length > 0)
      lines.push(pending.toString('utf8'));
    return lines.reverse().map((line) => JSON.parse(line) as unknown);
  } finally {
    closeSync(fd);
  }
}
