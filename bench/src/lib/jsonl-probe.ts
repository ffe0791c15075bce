import { closeSync, openSync, readSync } from 'node:fs';

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
