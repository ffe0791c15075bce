import { EpisodicError } from '@episodic/core';

/** Which bytes may follow a lead byte as its first continuation byte (Unicode table 3-7). */
function secondByteRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/**
 * The byte offset of the first byte that does not begin (or continue) a well-formed UTF-8
 * character, or -1 when every byte does. Overlong forms, surrogates and code points above
 * U+10FFFF are malformed, as they are for `TextDecoder` with `fatal: true`.
 */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] as number;
    let length: number;
    if (lead < 0x80) length = 1;
    else if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) length = 3;
    else if (lead >= 0xf0 && lead <= 0xf4) length = 4;
    else return index;
    if (length > 1) {
      const [low, high] = secondByteRange(lead);
      const second = bytes[index + 1];
      if (second === undefined || second < low || second > high) return index;
      for (let offset = 2; offset < length; offset++) {
        const next = bytes[index + offset];
        if (next === undefined || next < 0x80 || next > 0xbf) return index;
      }
    }
    index += length;
  }
  return -1;
}

/** Up to four bytes from `offset`, as `0xe9 0x22`. */
export function showBytes(bytes: Uint8Array, offset: number): string {
  return Array.from(
    bytes.subarray(offset, offset + 4),
    (byte) => `0x${byte.toString(16).padStart(2, '0')}`,
  ).join(' ');
}

/**
 * The arguments of a process after its script (as `process.argv.slice(2)`, `count` of them), as
 * raw bytes, from the NUL-separated command line `readCommandLine` returns (Linux's
 * `/proc/self/cmdline`; the caller reads it). Undefined when it cannot be read (macOS, the BSDs
 * and Windows have no such file; Windows passes arguments as UTF-16, so bytes cannot be malformed
 * there), or when it does not hold as many arguments.
 */
export function rawProcessArguments(
  count: number,
  readCommandLine: () => Uint8Array,
): Uint8Array[] | undefined {
  let bytes: Uint8Array;
  try {
    bytes = readCommandLine();
  } catch {
    return undefined;
  }
  const entries: Uint8Array[] = [];
  let start = 0;
  for (let index = 0; index < bytes.length; index++) {
    if (bytes[index] !== 0) continue;
    entries.push(bytes.subarray(start, index));
    start = index + 1;
  }
  if (start < bytes.length) entries.push(bytes.subarray(start));
  return entries.length >= count + 2 ? entries.slice(entries.length - count) : undefined;
}

/**
 * Refuses a command-line argument whose bytes are not UTF-8, for every Episodic binary (`episodic`,
 * `episodic-mcp`). Node decodes the arguments before any code runs, replacing each malformed byte
 * with U+FFFD, so a value typed in Latin-1 would be used changed. `raw` gives the arguments as the
 * system passed them (one byte array per entry of `argv`, or undefined where the platform does not
 * say); it is called only when an argument holds U+FFFD, since every other one decoded without a
 * replacement. A `VALIDATION_ERROR` names the argument, its option, the byte offset and the fix.
 */
export function assertArgumentsAreUtf8(
  argv: readonly string[],
  raw: () => readonly Uint8Array[] | undefined,
): void {
  if (!argv.some((argument) => argument.includes('\uFFFD'))) return;
  const bytesOf = raw();
  if (bytesOf === undefined || bytesOf.length !== argv.length) return;
  for (let index = 0; index < argv.length; index++) {
    const text = argv[index] as string;
    if (!text.includes('\uFFFD')) continue;
    const bytes = bytesOf[index] as Uint8Array;
    const offset = firstInvalidUtf8Offset(bytes);
    if (offset === -1) continue;
    const previous = argv[index - 1];
    const option =
      !text.startsWith('-') && previous?.startsWith('--') === true && !previous.includes('=')
        ? previous
        : undefined;
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Argument ${index + 1}${option === undefined ? '' : ` (the value of ${option})`} is not valid UTF-8: the bytes at offset ${offset} (${showBytes(bytes, offset)}) do not form a character, and would be read as U+FFFD (${JSON.stringify(text)}). Nothing was changed; set a UTF-8 locale in your terminal (e.g. LANG=C.UTF-8), convert the text (iconv -f latin1 -t utf-8), or pass it in a file.`,
      details: {
        field: option ?? `argument ${index + 1}`,
        issues: [
          {
            field: option ?? `argument ${index + 1}`,
            message: `is not valid UTF-8 at byte offset ${offset}`,
            value: text,
          },
        ],
      },
    });
  }
}
